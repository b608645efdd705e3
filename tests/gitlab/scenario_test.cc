// Whole scripted runs: the acceptance targets of issue 3 (limbo of docs/systems/gitlab.md §7.1,
// seed 000).
#include <gtest/gtest.h>

#include "model/gitlab/invariants/catalog.h"
#include "tests/gitlab/run_helper.h"

namespace wsim::gitlab::testing {
namespace {

TEST(GitlabScenario, CreatedWorkspaceReachesRunning) {
  proto::Scenario scenario = scripted("A1", "R1");
  add_event(scenario, kSecondMs, "user", "create", "ws-0");
  TestRun run(scenario);
  const Outcome outcome = run.run();
  EXPECT_TRUE(outcome.passed()) << outcome.summary() << run.system().describe_state();
  const WorkspaceRow* row = run.system().rails().table().find_by_name("ws-0");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->actual_state, State::kRunning) << run.system().describe_state();
}

TEST(GitlabScenario, LimboIsStuckWithPreFixAgent) {
  TestRun run(limbo("A0a", "R1"));
  const Outcome outcome = run.run();
  EXPECT_FALSE(outcome.safety) << outcome.summary();
  EXPECT_TRUE(outcome.has_liveness(std::string(kL1))) << outcome.summary();
  EXPECT_TRUE(outcome.has_liveness(std::string(kL2))) << outcome.summary();
}

TEST(GitlabScenario, LimboEndsInTheProductionSignatureOfSeed000) {
  TestRun run(limbo("A0a", "R1"));
  run.run();
  const WorkspaceRow* row = run.system().rails().table().find_by_name("ws-0");
  ASSERT_NE(row, nullptr);
  // gitlab#411205: desired Terminated, actual Running, responded_to_agent_at later than
  // desired_state_updated_at, no Deployment, no tracker entry.
  EXPECT_EQ(row->desired_state, State::kTerminated);
  EXPECT_EQ(row->actual_state, State::kRunning);
  ASSERT_TRUE(row->responded_to_agent_at.has_value());
  EXPECT_GT(*row->responded_to_agent_at, row->desired_state_updated_at);
  EXPECT_EQ(
      run.system().cluster().api().peek(kube::ObjectRef{"Deployment", row->namespace_, row->name}),
      nullptr);
  const ReconcilerState* state = run.system().agent().state();
  ASSERT_NE(state, nullptr);
  EXPECT_FALSE(state->termination.contains_name("ws-0"));
  EXPECT_TRUE(run.system().checker().in_limbo(*row));
}

TEST(GitlabScenario, LimboConvergesWithTheFix) {
  TestRun run(limbo("A1", "R1"));
  const Outcome outcome = run.run();
  EXPECT_TRUE(outcome.passed()) << outcome.summary() << run.system().describe_state();
  const WorkspaceRow* row = run.system().rails().table().find_by_name("ws-0");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->actual_state, State::kTerminated);
}

}  // namespace
}  // namespace wsim::gitlab::testing

namespace wsim::gitlab::testing {
namespace {

TEST(GitlabScenario, SwallowedStopWaitsForTheNextFullSync) {
  proto::Scenario scenario = scripted("A1", "R1");
  scenario.mutable_gitlab()->set_rails_touch_gap_max_ms(5000);
  scenario.set_fault_phase_ms(80 * kMinuteMs);
  add_event(scenario, kSecondMs, "user", "create", "ws-0");
  add_event(scenario, 21500, "user", "stop", "ws-0");
  TestRun run(scenario);
  run.system().start();
  GitlabRun* system = &run.system();
  for (const proto::ScriptedEvent& event : scenario.events()) {
    run.sim().loop().schedule(event.at_ms(), [system, event] {
      std::string error;
      ASSERT_TRUE(system->perform(event, error)) << error;
    });
  }
  run.sim().loop().run_until(30 * kMinuteMs);
  const Probes& probes = run.sim().probes();
  EXPECT_EQ(probes.probe(system->probes().desired_change_between_select_and_touch).hits, 1u);
  EXPECT_EQ(system->rails().table().find_by_name("ws-0")->actual_state, State::kRunning);
  run.sim().loop().run_until(70 * kMinuteMs);  // Past the hourly FULL.
  EXPECT_EQ(system->rails().table().find_by_name("ws-0")->actual_state, State::kStopped);
}

TEST(GitlabScenario, RandomWorkloadRunsAreDeterministic) {
  for (const char* agent : {"A0a", "A1", "A3"}) {
    proto::Scenario scenario = scripted(agent, "R3");
    scenario.set_scripted_only(false);
    scenario.set_seed(42);
    scenario.set_fault_phase_ms(30 * kMinuteMs);
    TestRun first(scenario);
    first.run();
    TestRun second(scenario);
    second.run();
    EXPECT_EQ(first.sim().fingerprint(), second.sim().fingerprint()) << agent;
    EXPECT_GT(first.sim().trace().count(), 100u) << agent;
  }
}

}  // namespace
}  // namespace wsim::gitlab::testing

namespace wsim::gitlab::testing {
namespace {

// Agent k8s/client.go@9743dcf6 Apply :122-147 starts one cli-utils applier per inventory group
// before it reads any event (docs/fidelity.md, GitLab "Apply"): the groups of one config apply
// concurrently. A3's config has two groups (secrets, workspace): the workspace group's first
// apply comes before the secrets group has patched its inventory (it ends with that patch).
// Sequential groups (the port before issue #30) fail this.
TEST(GitlabApply, InventoryGroupsOfOneConfigApplyConcurrently) {
  proto::Scenario scenario = scripted("A3", "R3");
  add_event(scenario, 1000, "user", "create", "ws-0");
  TestRun run(scenario);
  run.run();
  std::optional<std::size_t> workspace_first_apply;
  std::optional<std::size_t> secrets_inventory_patch;
  const std::vector<TraceEvent>& events = run.sim().trace().events();
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.actor != "agentk") continue;
    if (!workspace_first_apply && e.verb == "apply" &&
        e.object.find("ws-0-workspace-inventory") != std::string::npos) {
      workspace_first_apply = i;
    }
    if (!secrets_inventory_patch && e.verb == "patch" &&
        e.object.find("ws-0-secrets-inventory") != std::string::npos) {
      secrets_inventory_patch = i;
    }
  }
  ASSERT_TRUE(workspace_first_apply.has_value());
  ASSERT_TRUE(secrets_inventory_patch.has_value());
  EXPECT_LT(*workspace_first_apply, *secrets_inventory_patch);
}

}  // namespace
}  // namespace wsim::gitlab::testing
