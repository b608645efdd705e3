// The scenario `load` shape (issue 13, docs/performance.md §3): a steady number of live
// workspaces with arrivals and departures, for Gitpod and GitLab. Each run goes its full length
// (RunOptions::go_past_every_safety) so the workload, not the first bug, decides what happens.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/all_systems/all_systems.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"

namespace wsim::run {
namespace {

RunResult run_text(const std::string& text) {
  register_all_systems();
  LoadedScenario loaded;
  std::string error;
  EXPECT_TRUE(parse_scenario(text, "inline", loaded, error)) << error;
  EXPECT_TRUE(validate_scenario(loaded, error)) << error;
  RunOptions options;
  options.keep_trace = true;
  options.go_past_every_safety = true;
  return execute_run(*loaded.system, loaded.scenario, options);
}

// 20 live workspaces living ~10 minutes for an hour: about 120 arrivals, ids in arrival order.
TEST(LoadShape, GitpodResidentsArriveAndLeave) {
  const RunResult result = run_text(R"(
    seed: 3 fault_phase_ms: 3600000 settle_ms: 600000
    gitpod { nodes: 2 }
    load { live_workspaces: 20 mean_lifetime_ms: 600000 })");
  std::set<std::string> started;
  for (const TraceEvent& e : result.trace) {
    if (e.verb == "start-reply" && e.result == "OK") started.insert(e.actor);
  }
  EXPECT_GE(started.size(), 60u);   // Departures made room for new arrivals...
  EXPECT_LE(started.size(), 240u);  // ...at about live / mean lifetime per unit of time.
  EXPECT_TRUE(started.count("user/ws0") > 0 && started.count("user/ws19") > 0);
  bool reported = false;
  for (const auto& [name, value] : result.swarm) {
    if (name == "load.live_workspaces") reported = value == "20";
  }
  EXPECT_TRUE(reported);
}

TEST(LoadShape, GitlabResidentsCreateAndTerminate) {
  const RunResult result = run_text(R"(
    seed: 5 fault_phase_ms: 3600000
    gitlab { workload_intensity: "quiet" }
    load { live_workspaces: 30 mean_lifetime_ms: 600000 })");
  std::set<std::string> created;
  int terminated = 0;
  for (const TraceEvent& e : result.trace) {
    if (e.actor != "user" || e.object.rfind("ws-L", 0) != 0) continue;
    if (e.verb == "create") created.insert(e.object);
    if (e.verb == "terminate") ++terminated;
  }
  EXPECT_GE(created.size(), 90u);
  EXPECT_LE(created.size(), 360u);
  EXPECT_GE(terminated, 60);
}

TEST(LoadShape, BoundsAreChecked) {
  register_all_systems();
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(
      parse_scenario("gitpod {} load { live_workspaces: 100001 }", "inline", loaded, error));
  EXPECT_FALSE(validate_scenario(loaded, error));
  EXPECT_NE(error.find("live_workspaces"), std::string::npos) << error;
  LoadedScenario caps;
  ASSERT_TRUE(parse_scenario("gitpod { workspaces: 1000 nodes: 50 }", "inline", caps, error));
  EXPECT_TRUE(validate_scenario(caps, error)) << error;  // The old cap was 16 workspaces, 8 nodes.
}

}  // namespace
}  // namespace wsim::run
