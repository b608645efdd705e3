// The serve_http_fuzz target's body (docs: fuzz/README.md): raw bytes as HTTP/1.1 requests
// (method, path, query, headers, body; several pipelined requests per input) through the
// request parser and its limits (serve/http.h) into the REST front-end's handlers
// (Server::handle) over a fresh live cluster. Findings (abort()): a 500 (a handler threw), a
// failure that is not a metav1.Status with the response's code and a reason, a response that is
// not valid UTF-8 or not JSON where it says JSON, a parser refusal with an unexpected code, and
// whatever ASan/UBSan report. Shared by fuzz/serve_http_fuzz.cc (libFuzzer) and
// tests/serve/serve_http_corpus_test.cc (the corpus replayed by ctest).
#pragma once

#include <cstddef>
#include <cstdint>

namespace wsim::fuzz {

// Serves every request in `data`; aborts on a finding. Returns the number of requests served.
int serve_http_one_input(const std::uint8_t* data, std::size_t size);

}  // namespace wsim::fuzz
