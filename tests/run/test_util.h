// Helpers shared by the run-layer tests: system registration, scenarios from text, scratch
// directories, and running the `wsim` binary.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "model/toy/register.h"
#include "sim/run/scenario.h"
#include "tests/run/selftest_system.h"

namespace wsim::run::testing {

inline void register_test_systems() {
  selftest::register_selftest_system();
  toy::register_toy_system();
}

// Parses and validates; fails the test (and returns an empty scenario) on error.
inline LoadedScenario scenario_from_text(const std::string& text) {
  register_test_systems();
  LoadedScenario loaded;
  std::string error;
  EXPECT_TRUE(parse_scenario(text, "test.textproto", loaded, error)) << error;
  EXPECT_TRUE(validate_scenario(loaded, error)) << error;
  return loaded;
}

// "wsim-run-test-<pid>-": the prefix of this test process's scratch directories.
inline std::string scratch_prefix() { return "wsim-run-test-" + std::to_string(::getpid()) + "-"; }

// Removes every scratch directory of this process from the temporary directory.
inline void remove_scratch_dirs() {
  const std::string prefix = scratch_prefix();
  std::error_code ec;
  std::vector<std::filesystem::path> doomed;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) doomed.push_back(entry.path());
  }
  for (const auto& path : doomed) std::filesystem::remove_all(path, ec);
}

// The fixture of the whole test program: when it ends, its scratch directories go (the suite
// leaves nothing in the temporary directory). WSIM_KEEP_TEST_DIRS=1 keeps them for debugging.
class ScratchDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    const char* keep = std::getenv("WSIM_KEEP_TEST_DIRS");
    if (keep != nullptr && std::string(keep) == "1") return;
    remove_scratch_dirs();
  }
};
// One registration per test program (an inline variable is initialised once), owned by gtest.
inline ::testing::Environment* const kScratchDirCleanup =
    ::testing::AddGlobalTestEnvironment(new ScratchDirCleanup);

// A fresh, empty directory for one test, removed when the test program ends.
inline std::string scratch_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (scratch_prefix() + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Runs `wsim ARGS` (the binary built with the tests) in `dir`; returns its exit code and puts
// stdout + stderr into `output`.
inline int run_wsim(const std::string& dir, const std::string& args, std::string* output) {
  const std::string log = dir + "/wsim-output.txt";
  const std::string command =
      "cd '" + dir + "' && '" WSIM_BINARY "' " + args + " > '" + log + "' 2>&1";
  const int status = std::system(command.c_str());
  if (output != nullptr) *output = read_text(log);
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace wsim::run::testing
