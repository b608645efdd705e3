// Replays corpus/regressions/gitlab/*.textproto through the run layer: every expectation of a file
// is run with its `when` fields set, and must be met (docs/architecture.md §7 "Corpus").
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "model/gitlab/register.h"
#include "sim/run/driver.h"
#include "sim/run/expect.h"
#include "sim/run/scenario.h"

namespace wsim::gitlab {
namespace {

std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  const std::filesystem::path dir =
      std::filesystem::path(WSIM_SOURCE_DIR) / "corpus" / "regressions" / "gitlab";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".textproto") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs `path` once per expectation, with that expectation's `when` applied.
void replay(const std::string& path) {
  register_gitlab_system();
  run::LoadedScenario base;
  std::string error;
  ASSERT_TRUE(run::load_scenario_file(path, base, error)) << error;
  ASSERT_GT(base.scenario.expect_size(), 0) << path << ": no expectations";
  for (int i = 0; i < base.scenario.expect_size(); ++i) {
    run::LoadedScenario loaded = base;
    std::string variant;
    for (const auto& [key, value] : base.scenario.expect(i).when()) {
      ASSERT_TRUE(run::set_field(loaded, key, value, "--" + key, error)) << error;
      variant += key + "=" + value + " ";
    }
    ASSERT_TRUE(run::validate_scenario(loaded, error)) << path << " " << variant << error;
    const run::RunResult result = run::execute_run(*loaded.system, loaded.scenario, {});
    const std::string invariant = result.violation ? result.violation->invariant_id : "";
    const run::ExpectationCheck check =
        run::check_expectation(loaded.scenario, *loaded.system, result.verdict, invariant);
    EXPECT_TRUE(check.applies) << path << " " << variant;
    EXPECT_TRUE(check.met) << path << " " << variant << ": " << check.message << "\n"
                           << result.state;
  }
}

TEST(GitlabCorpus, EveryRegressionScenarioMeetsItsExpectations) {
  const std::vector<std::string> files = corpus_files();
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    replay(file);
  }
}

}  // namespace
}  // namespace wsim::gitlab
