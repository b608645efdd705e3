// libFuzzer entry of serve_http_fuzz: raw HTTP requests into `wsim serve`'s handler layer
// (fuzz/serve_http_target.h).
#include <cstddef>
#include <cstdint>

#include "fuzz/serve_http_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wsim::fuzz::serve_http_one_input(data, size);
  return 0;
}
