// End-to-end lifecycles of the mk2 model with scripted events: the happy path, and the
// building blocks the corpus cases rely on.
#include <gtest/gtest.h>

#include "tests/gitpod/scenario_runner.h"

namespace wsim::gitpod::testing {
namespace {

TEST(GitpodLifecycle, Mk2StartWriteStopBacksUpAndCleansUp) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 1
    scripted_only: true
    fault_phase_ms: 600000
    settle_ms: 3600000
    gitpod { manager: "mk2" }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 61000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
  )"));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  EXPECT_NE(o.state.find("latest=v2 backup=v2"), std::string::npos) << o.describe();
}

// The operator of gitpod.operator.delete_workspace (docs/fidelity.md W1): in a random run, a
// Workspace CR stuck in Stopping (B12's setup: rejected, its node's ws-daemon down) is deleted
// with kubectl, which ends in B12's L2; with the point off nobody deletes it.
TEST(GitpodWorkload, OperatorDeletesAWorkspaceStuckInStopping) {
  const std::string base = R"(
    seed: 3
    fault_phase_ms: 1800000
    settle_ms: 3600000
    gitpod { manager: "mk2" nodes: 1 workspaces: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 0 actor: "kubelet" action: "reject" target: "alice" }
    events { at_ms: 1000 actor: "ws-daemon" action: "down" target: "node-1" }
  )";
  auto deleted_by_kubectl = [](const Outcome& o) {
    for (const TraceEvent& event : o.trace) {
      if (event.actor == "kubectl" && event.verb == "delete" &&
          event.object == "Workspace/gitpod/alice-1") {
        return true;
      }
    }
    return false;
  };
  const std::string always = R"(
    faults { name: "gitpod.operator.delete_workspace" enabled: true fire_num: 1 fire_den: 1 }
  )";
  const Outcome on = run_gitpod(parse_scenario_text(base + always));
  EXPECT_TRUE(deleted_by_kubectl(on)) << on.describe();
  EXPECT_TRUE(on.has("gitpod.L2")) << on.describe();
  EXPECT_NE(on.state.find("Timeout=True (deleting)"), std::string::npos) << on.describe();
  const Outcome off = run_gitpod(parse_scenario_text(
      base + R"(faults { name: "gitpod.operator.delete_workspace" enabled: false })"));
  EXPECT_FALSE(deleted_by_kubectl(off)) << off.describe();
}

}  // namespace
}  // namespace wsim::gitpod::testing
