// Replays corpus/regressions/gitpod: every scenario must end with the verdict (and invariant)
// its expectation names for the manager it is run with. Scenarios whose expectations name
// several managers are run once per manager.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tests/gitpod/scenario_runner.h"

namespace wsim::gitpod::testing {
namespace {

std::vector<std::string> corpus_files() {
  std::vector<std::string> out;
  const std::filesystem::path dir =
      std::filesystem::path(WSIM_SOURCE_DIR) / "corpus/regressions/gitpod";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".textproto") continue;
    // A hunted case is replayed by run_corpus_replay_test, whose driver draws what a hunt's run
    // draws (the scheduler, incidents) and honours `go_past`; this runner stops at the first
    // violation and draws only what the Gitpod run itself draws, so it replays scripted cases.
    const proto::Scenario scenario = load_scenario(entry.path().string());
    if (scenario.go_past_size() > 0 || !scenario.scripted_only()) continue;
    out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::set<std::string> managers_of(const proto::Scenario& scenario) {
  std::set<std::string> out;
  for (const proto::Expectation& e : scenario.expect()) {
    auto it = e.when().find("manager");
    if (it != e.when().end()) out.insert(it->second);
  }
  if (out.empty())
    out.insert(scenario.gitpod().manager().empty() ? "mk2" : scenario.gitpod().manager());
  return out;
}

class GitpodCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(GitpodCorpus, EndsWithTheExpectedVerdict) {
  const proto::Scenario base = load_scenario(GetParam());
  for (const std::string& manager : managers_of(base)) {
    proto::Scenario scenario = base;
    scenario.mutable_gitpod()->set_manager(manager);
    const std::optional<proto::Expectation> expected = expectation_for(scenario);
    ASSERT_TRUE(expected.has_value()) << GetParam() << ": no expectation for " << manager;
    const Outcome outcome = run_gitpod(scenario);
    SCOPED_TRACE(GetParam() + " with manager " + manager);
    EXPECT_EQ(proto::Verdict_Name(outcome.verdict), proto::Verdict_Name(expected->verdict()))
        << outcome.describe();
    if (!expected->invariant().empty()) {
      ASSERT_TRUE(outcome.violation.has_value()) << outcome.describe();
      EXPECT_EQ(outcome.violation->invariant_id, expected->invariant()) << outcome.describe();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Regressions, GitpodCorpus, ::testing::ValuesIn(corpus_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = std::filesystem::path(info.param).stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace wsim::gitpod::testing
