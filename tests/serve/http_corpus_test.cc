// The serve_http_fuzz corpus (corpus/fuzz/serve_http_fuzz/: kubectl's recorded requests and the
// issue #32 attacks) replayed through the fuzz target's body without libFuzzer: a finding
// aborts, and every kubectl seed must be served as at least one request.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/serve_http_target.h"

namespace {

TEST(ServeHttpCorpus, EverySeedIsServedWithoutAFinding) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(WSIM_SERVE_HTTP_CORPUS)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string data = text.str();
    const int served = wsim::fuzz::serve_http_one_input(
        reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    if (entry.path().filename().string().rfind("kubectl-", 0) == 0) {
      EXPECT_GT(served, 0) << entry.path();
    }
    ++files;
  }
  EXPECT_GE(files, 10u);
}

}  // namespace
