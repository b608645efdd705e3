// Replays the whole regression corpus (corpus/regressions/*/*.textproto, docs/architecture.md §7)
// through the run layer: each file once per expectation, with that expectation's `when` fields set,
// and the expectation must be met. Every system of model/ is linked and registered here
// (register_all_systems()). tests/gitlab
// and tests/gitpod replay their own directories too (with model-level detail); this test is the one
// that also covers files `wsim corpus add` writes for any system.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "model/all_systems/all_systems.h"
#include "sim/run/driver.h"
#include "sim/run/expect.h"
#include "sim/run/scenario.h"
#include "sim/triage/corpus.h"

namespace wsim::run {
namespace {

std::vector<std::filesystem::path> corpus_files() {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path root = std::filesystem::path(WSIM_SOURCE_DIR) / "corpus/regressions";
  for (const auto& dir : std::filesystem::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      if (entry.path().extension() == ".textproto") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void replay_file(const std::filesystem::path& path) {
  LoadedScenario base;
  std::string error;
  ASSERT_TRUE(load_scenario_file(path.string(), base, error)) << error;
  ASSERT_GT(base.scenario.expect_size(), 0) << "no expectations";
  for (int i = 0; i < base.scenario.expect_size(); ++i) {
    LoadedScenario loaded = base;
    std::string variant;
    for (const auto& [key, value] : base.scenario.expect(i).when()) {
      ASSERT_TRUE(set_field(loaded, key, value, "--" + key, error)) << error;
      variant += key + "=" + value + " ";
    }
    ASSERT_TRUE(validate_scenario(loaded, error)) << variant << error;
    const RunResult result = execute_run(*loaded.system, loaded.scenario, {});
    const std::string invariant = result.violation ? result.violation->invariant_id : "";
    const ExpectationCheck check =
        check_expectation(loaded.scenario, *loaded.system, result.verdict, invariant);
    EXPECT_TRUE(check.applies) << variant;
    EXPECT_TRUE(check.met) << variant << ": " << check.message;
  }
}

TEST(CorpusReplay, EveryFileMeetsEveryExpectation) {
  register_all_systems();
  const std::vector<std::filesystem::path> files = corpus_files();
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    replay_file(file);
  }
}

// Every corpus directory is a registered system's (register_all_systems(): a system registered
// only by its model/<system>/ folder is replayed too), and the toy's regression is among them.
// A new system needs no corpus directory until it has a known bug.
TEST(CorpusReplay, EveryCorpusDirectoryIsARegisteredSystem) {
  register_all_systems();
  std::set<std::string> directories;
  for (const auto& file : corpus_files()) {
    directories.insert(file.parent_path().filename().string());
  }
  for (const std::string& directory : directories) {
    EXPECT_NE(find_system(directory), nullptr) << "corpus/regressions/" << directory;
  }
  EXPECT_EQ(directories.count("toy"), 1u);
}

TEST(CorpusReplay, StemNamesTheInvariantSeedAndSlug) {
  EXPECT_EQ(corpus_stem("gitlab.L1", 3, "limbo after kubectl"), "L1-s3-limbo-after-kubectl");
  EXPECT_EQ(corpus_stem("toy.S1", 0, ""), "S1-s0-regression");
}

}  // namespace
}  // namespace wsim::run
