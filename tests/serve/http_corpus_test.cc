// The serve_http_fuzz corpus (corpus/fuzz/serve_http_fuzz/: the requests of kubectl, the Python
// client and client-node as recorded (tests/serve/record_requests.py), and the issue #32
// attacks) replayed through the fuzz target's body without libFuzzer: a finding aborts, and every
// recorded client seed is served whole (each of its requests answered).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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
    const std::string name = entry.path().filename().string();
    for (const char* client : {"kubectl-", "python-", "client-node-"}) {
      if (name.rfind(client, 0) != 0) continue;
      EXPECT_GT(served, 0) << name;
      // Every request of a seed recorded whole (the older kubectl seeds were cut by hand).
      if (name.rfind("kubectl-0", 0) == 0) continue;
      std::size_t requests = 0;
      for (std::size_t at = data.find(" HTTP/1.1\r\n"); at != std::string::npos;
           at = data.find(" HTTP/1.1\r\n", at + 1)) {
        ++requests;
      }
      EXPECT_EQ(static_cast<std::size_t>(served), requests) << name;
    }
    ++files;
  }
  EXPECT_GE(files, 10u);
}

}  // namespace
