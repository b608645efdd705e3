// The corpus through the real run layer (sim/run: scenario file loading and validation with a
// dry run of the scripted events, the driver's phases, expectation checking) — the path the
// `wsim run --scenario` CLI takes. Complements corpus_test.cc, which also runs each scenario
// once per manager named in its expectations.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/gitpod/register.h"
#include "sim/run/amplifiers.h"
#include "sim/run/driver.h"
#include "sim/run/expect.h"
#include "sim/run/scenario.h"
#include "sim/run/system.h"
#include "sim/triage/corpus_bugs.h"
#include "sim/triage/labelled_realism.h"

namespace wsim::gitpod {
namespace {

std::vector<std::string> corpus_files() {
  std::vector<std::string> out;
  const std::filesystem::path dir =
      std::filesystem::path(WSIM_SOURCE_DIR) / "corpus/regressions/gitpod";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".textproto") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GitpodRunLayer, EveryCorpusScenarioMeetsItsExpectation) {
  register_gitpod_system();
  for (const std::string& path : corpus_files()) {
    SCOPED_TRACE(path);
    run::LoadedScenario loaded;
    std::string error;
    ASSERT_TRUE(run::load_scenario_file(path, loaded, error)) << error;
    ASSERT_TRUE(run::validate_scenario(loaded, error)) << error;
    const run::RunResult result = run::execute_run(*loaded.system, loaded.scenario, {});
    const std::string invariant = result.violation ? result.violation->invariant_id : "";
    const run::ExpectationCheck check =
        run::check_expectation(loaded.scenario, *loaded.system, result.verdict, invariant);
    EXPECT_TRUE(check.applies);
    EXPECT_TRUE(check.met) << check.message << "\n" << result.state;
  }
}

// The operator fault (gitpod.operator.delete_workspace) deletes a Workspace CR stuck in Stopping,
// not one the controller put there a second ago (kOperatorPatienceMs, [invented] 10 minutes):
// with the fault firing at every fault step, every pod rejected once (the breaker) and ws-daemon
// outages (which leave CRs stuck in Stopping), each operator delete comes at least 10 minutes
// after its workspace's CR was created. With no patience it fails (a CR deleted 9m26s after its
// creation here; in a breaker hunt, seed 92, one deleted 1 s after its start: gitpod.L4).
TEST(GitpodRunLayer, TheOperatorDeletesOnlyACrStuckInStopping) {
  register_gitpod_system();
  run::LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(run::parse_scenario(R"(
    seed: 3 fault_phase_ms: 7200000 settle_ms: 3600000
    faults { name: "gitpod.operator.delete_workspace" enabled: true fire_num: 1 fire_den: 1 }
    faults { name: "gitpod.daemon.outage" enabled: true }
    gitpod { manager: "mk2" breaker: true workspaces: 3 nodes: 2 user_action_interval_ms: 60000 }
  )",
                                  "inline", loaded, error))
      << error;
  ASSERT_TRUE(run::validate_scenario(loaded, error)) << error;
  run::RunOptions options;
  options.keep_trace = true;
  options.go_past_every_safety = true;  // The whole two hours, whatever else breaks meanwhile.
  const run::RunResult result = run::execute_run(*loaded.system, loaded.scenario, options);
  std::map<std::string, TimeMs> created_ms;
  int deletes = 0;
  for (const TraceEvent& e : result.trace) {
    if (e.actor == "ws-manager" && e.verb == "create-workspace") created_ms[e.object] = e.time_ms;
    if (e.actor != "kubectl" || e.verb != "delete") continue;
    const std::string prefix = "Workspace/gitpod/";
    ASSERT_EQ(e.object.rfind(prefix, 0), 0u) << e.object;
    const std::string name = e.object.substr(prefix.size());
    ASSERT_TRUE(created_ms.contains(name)) << name;
    EXPECT_GE(e.time_ms - created_ms[name], 10 * kMinuteMs) << name << " at " << e.time_ms;
    ++deletes;
  }
  EXPECT_GT(deletes, 0);  // The fault did fire on stuck CRs: the check above is not vacuous.
}

TEST(GitpodRunLayer, RejectsUnknownVersionsAndActions) {
  register_gitpod_system();
  run::LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(run::parse_scenario(R"(gitpod { manager: "mk3" })", "inline", loaded, error));
  EXPECT_FALSE(run::validate_scenario(loaded, error));
  EXPECT_NE(error.find("mk3"), std::string::npos) << error;
  run::LoadedScenario bad_action;
  ASSERT_TRUE(run::parse_scenario(
      R"(gitpod {} events { at_ms: 0 actor: "user" action: "fly" target: "alice" })", "inline",
      bad_action, error));
  EXPECT_FALSE(run::validate_scenario(bad_action, error));
  EXPECT_NE(error.find("fly"), std::string::npos) << error;
}

// The hunt's summary and banner name the versions in words: an empty `fixes` (every fix) reads
// "fixes=all", a list reads as itself.
TEST(GitpodRunLayer, VersionsSayAllFixesWhenTheFieldIsEmpty) {
  register_gitpod_system();
  run::LoadedScenario latest;
  std::string error;
  ASSERT_TRUE(run::parse_scenario(R"(gitpod { manager: "mk2" })", "inline", latest, error));
  ASSERT_TRUE(run::validate_scenario(latest, error)) << error;
  EXPECT_NE(run::describe_versions(latest.scenario, *latest.system).find("fixes=all "),
            std::string::npos)
      << run::describe_versions(latest.scenario, *latest.system);
  run::LoadedScenario listed;
  ASSERT_TRUE(
      run::parse_scenario(R"(gitpod { manager: "mk2" fixes: "16622" })", "inline", listed, error));
  ASSERT_TRUE(run::validate_scenario(listed, error)) << error;
  EXPECT_NE(run::describe_versions(listed.scenario, *listed.system).find("fixes=16622 "),
            std::string::npos)
      << run::describe_versions(listed.scenario, *listed.system);
  // So does the hunt's banner (the whole config).
  EXPECT_NE(run::describe_config(latest.scenario, *latest.system).find(" fixes=all "),
            std::string::npos)
      << run::describe_config(latest.scenario, *latest.system);
  EXPECT_NE(run::describe_config(listed.scenario, *listed.system).find(" fixes=16622 "),
            std::string::npos);
}

// A bug whose corpus file reproduces it with every amplifier at production (B15's scripted file:
// four production events) is realistic by that file (sim/triage/labelled_realism.h
// production_exemplar), whatever a breaker hunt's seed needed.
TEST(GitpodRunLayer, B15HasAProductionExemplarInTheCorpus) {
  register_gitpod_system();
  const run::System* system = run::find_system("gitpod");
  ASSERT_NE(system, nullptr);
  std::vector<run::KnownBug> known;
  std::string error;
  ASSERT_TRUE(
      run::known_bugs(std::string(WSIM_SOURCE_DIR) + "/corpus/regressions", "gitpod", known, error))
      << error;
  const std::string exemplar = run::production_exemplar(*system, known, "B15");
  ASSERT_FALSE(exemplar.empty());
  run::CorpusBug bug;
  run::LoadedScenario loaded;
  ASSERT_TRUE(run::parse_corpus_bug(exemplar, bug, error)) << error;
  ASSERT_TRUE(run::load_bug_script(bug, loaded, error)) << error;
  EXPECT_TRUE(run::amplified_in(loaded.scenario, *system).empty()) << exemplar;
  EXPECT_EQ(bug.bug, "B15");
  EXPECT_EQ(run::production_exemplar(*system, known, "no-such-bug"), "");
}

}  // namespace
}  // namespace wsim::gitpod
