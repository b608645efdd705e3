// HTTP/1.1 messages of `wsim serve`: the request a handler sees, the response it fills in, and
// the incremental request parser with the limits of the real API server (a Go net/http server
// with the apiserver's handler chain in front):
//
//  - the request line and headers together at most HttpLimits::head_bytes_max (Go's
//    http.DefaultMaxHeaderBytes, 1 MiB) and at most head_fields_max header fields (trailers of a
//    chunked body count too): else 431 Request Header Fields Too Large, as Go answers;
//  - a body at most body_bytes_max (the apiserver's MaxRequestBodyBytes, 3 MiB), checked
//    BEFORE buffering: a larger Content-Length is refused at once and a chunked body as soon as
//    its chunks pass the bound (413 RequestEntityTooLarge, "Request entity too large: limit is
//    3145728", the apiserver's words);
//  - malformed framing (request line, header line, Content-Length, chunk size) is 400.
//
// Invariants:
//  1. A parser never holds more than head_bytes_max + body_bytes_max + one read of input that
//     it has not yet consumed or refused.
//  2. After kError the parser accepts no more input; the connection is answered and closed.
//  3. Request::path is percent-decoded and may hold any byte (invalid UTF-8, NUL): handlers
//     must treat it as data. Responses serialize JSON with invalid UTF-8 replaced (U+FFFD), as
//     Go's encoding/json does.
//
// Not modelled: HTTP/2, TLS, gzip request bodies, `Expect` other than 100-continue (ignored),
// absolute-form targets other than http://host/... (the host is dropped).
//
// Threading: a parser belongs to one connection (one thread at a time); Request and Response
// are plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace wsim::serve::http {

// Case-insensitive header names (RFC 9110 §5.1).
struct CaseInsensitiveLess {
  bool operator()(const std::string& a, const std::string& b) const;
};
using Headers = std::multimap<std::string, std::string, CaseInsensitiveLess>;
using Params = std::multimap<std::string, std::string>;

struct Request {
  std::string method;  // "GET", "POST", ... (case as sent; methods are case-sensitive).
  std::string target;  // As sent: "/api/v1/pods?watch=true".
  std::string path;    // Percent-decoded path of the target, no query.
  Params params;       // Decoded query parameters ('+' is a space), sorted by key.
  Headers headers;
  std::string body;  // Decoded (chunked bodies are joined).
  bool keep_alive = true;
  bool expects_continue = false;  // "Expect: 100-continue".

  bool has_param(const std::string& key) const { return params.count(key) > 0; }
  // The first value of `key`, or "".
  std::string get_param_value(const std::string& key) const;
  std::string get_header_value(const std::string& key) const;
  bool has_header(const std::string& key) const { return headers.count(key) > 0; }
};

// What a streamed response (a watch) writes through.
class DataSink {
 public:
  // Writes `size` bytes as one chunk; false when the client is gone.
  std::function<bool(const char* data, std::size_t size)> write;
  std::function<void()> done;  // Ends the stream (the zero chunk).
  std::function<bool()> is_writable;
};

// Called until it returns false or calls sink.done(); `offset` counts the bytes written so far.
using ContentProvider = std::function<bool(std::size_t offset, DataSink& sink)>;

struct Response {
  int status = -1;
  Headers headers;
  std::string body;
  ContentProvider provider;  // Set: a chunked stream (watches); body is ignored.

  void set_content(std::string content, const std::string& content_type);
  void set_header(const std::string& key, const std::string& value);
  void set_chunked_content_provider(const std::string& content_type, ContentProvider provider);
  bool streamed() const { return static_cast<bool>(provider); }
};

struct HttpLimits {
  std::size_t head_bytes_max = 1u << 20;  // Go http.DefaultMaxHeaderBytes.
  std::size_t head_fields_max = 1000;     // [invented] Go bounds bytes only; this keeps maps small.
  std::size_t body_bytes_max = 3u << 20;  // apiserver MaxRequestBodyBytes (3 * 1024 * 1024).
};

// The reason phrase of a status code ("Not Found").
const char* reason_phrase(int status);

// The status line, headers and body (Content-Length framing) of a non-streamed response.
// `keep_alive` false adds "Connection: close".
std::string serialize_head(const Response& response, bool keep_alive, bool chunked);
std::string serialize(const Response& response, bool keep_alive);

// A refusal before any handler ran (431, 413, 400, 429): a metav1.Status body for the ones the
// apiserver words as a Status (413, 429), Go's plain text for the others.
Response refusal(int status, const std::string& message);

// "%2F" -> "/"; `plus_is_space` for query strings. Bad escapes are kept as they are.
std::string percent_decode(std::string_view text, bool plus_is_space);

// Parses one request at a time from a byte stream.
class RequestParser {
 public:
  enum class State { kNeedMore, kDone, kError };

  explicit RequestParser(HttpLimits limits) : limits_(limits) {}

  // Consumes bytes of `input` (erasing what it used). kDone: request() holds a request and the
  // rest of `input` is the next one (call reset() first); kError: error() is the answer.
  State feed(std::string& input);
  // True once the head was read and the client waits for "100 Continue" (sent at most once).
  bool wants_continue();
  Request& request() { return request_; }
  const Response& error() const { return error_; }
  // Bytes of the current request received so far (0 = between requests).
  bool in_progress() const { return phase_ != Phase::kHead || consumed_ > 0; }
  void reset();

 private:
  enum class Phase { kHead, kBody, kChunkSize, kChunkData, kChunkDataEnd, kTrailer, kDone };

  State fail(int status, const std::string& message);
  State parse_head(std::string& input);
  State parse_head_lines(std::string_view head);
  State start_body();
  State parse_body(std::string& input);
  State parse_chunked(std::string& input);
  bool parse_request_line(std::string_view line);

  HttpLimits limits_;
  Phase phase_ = Phase::kHead;
  Request request_;
  Response error_;
  std::size_t consumed_ = 0;  // Head bytes consumed (including trailers).
  std::size_t fields_ = 0;    // Header fields, trailers included.
  std::uint64_t content_length_ = 0;
  std::uint64_t chunk_left_ = 0;
  std::size_t head_scanned_ = 0;  // Bytes of the input already searched for the head's end.
  bool continue_sent_ = false;
};

// UTF-8 validity (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
bool valid_utf8(std::string_view text);
// `text` with every invalid sequence replaced by U+FFFD.
std::string sanitize_utf8(std::string_view text);

// The deepest nesting of arrays/objects in JSON text (a linear scan that respects strings; the
// text need not be valid JSON). Recursion over a parsed document is bounded by this.
std::size_t json_depth(std::string_view text);

}  // namespace wsim::serve::http
