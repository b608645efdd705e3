// The naive shared-mode A3 variants of docs/systems/gitlab.md §8 items 1 and 3 (a3_termination
// "namespace_delete" and "inventory_first"), next to the reconstructed default.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include <gtest/gtest.h>

#include "model/gitlab/invariants/catalog.h"
#include "model/gitlab/versions.h"
#include "tests/gitlab/run_helper.h"

namespace wsim::gitlab::testing {
namespace {

proto::Scenario shared_terminate(const std::string& termination,
                                 const std::string& missing_inventory = "terminated") {
  proto::Scenario scenario = scripted("A3", "R3", "shared");
  scenario.mutable_gitlab()->set_a3_termination(termination);
  scenario.mutable_gitlab()->set_a3_missing_inventory(missing_inventory);
  add_event(scenario, kSecondMs, "user", "create", "ws-0");
  add_event(scenario, kSecondMs, "user", "create", "ws-1");
  add_event(scenario, 2 * kMinuteMs, "user", "terminate", "ws-0");
  return scenario;
}

TEST(GitlabSharedVariants, NewValuesParseAndAreListedAsAnAxis) {
  EXPECT_EQ(parse_a3_termination("plan"), A3Termination::kPlan);
  EXPECT_EQ(parse_a3_termination("namespace_delete"), A3Termination::kNamespaceDelete);
  EXPECT_EQ(parse_a3_termination("inventory_first"), A3Termination::kInventoryFirst);
  EXPECT_FALSE(parse_a3_termination("bogus").has_value());
  bool listed = false;
  for (const run::VersionAxis& axis : GitlabSystem().axes()) {
    if (axis.field != "a3_termination") continue;
    listed = true;
    EXPECT_EQ(axis.latest, "plan");
    EXPECT_EQ(axis.values, a3_termination_names());
  }
  EXPECT_TRUE(listed);
  proto::Scenario scenario = shared_terminate("bogus");
  std::string error;
  EXPECT_FALSE(GitlabSystem().normalize(scenario, error));
  EXPECT_NE(error.find("a3_termination"), std::string::npos) << error;
}

// The seed-001 plan checks the namespace first in unique mode: kubectl deleting both inventories
// and the user terminating is no limbo, whatever the missing-inventory rule. The §5.8
// reconstruction (inventory_delete) with "terminating_forever" reports Terminating forever
// although the namespace is gone (issue #10 item 5).
TEST(GitlabSharedVariants, PlanChecksTheNamespaceFirstInUniqueMode) {
  for (const char* termination : {"plan", "inventory_delete"}) {
    proto::Scenario scenario = scripted("A3", "R3", "unique");
    scenario.mutable_gitlab()->set_a3_termination(termination);
    scenario.mutable_gitlab()->set_a3_missing_inventory("terminating_forever");
    add_event(scenario, kSecondMs, "user", "create", "ws-0");
    add_event(scenario, 2 * kMinuteMs, "kubectl", "delete_inventories", "ws-0");
    add_event(scenario, 2 * kMinuteMs + kSecondMs, "user", "terminate", "ws-0");
    TestRun run(scenario);
    const Outcome outcome = run.run();
    if (std::string(termination) == "plan") {
      EXPECT_TRUE(outcome.passed()) << outcome.summary();
    } else {
      EXPECT_TRUE(outcome.has_liveness(std::string(kL1))) << outcome.summary();
    }
  }
}

TEST(GitlabSharedVariants, DefaultTerminationPassesInSharedMode) {
  for (const char* missing : {"terminated", "terminating_forever"}) {
    TestRun run(shared_terminate("plan", missing));
    const Outcome outcome = run.run();
    EXPECT_TRUE(outcome.passed()) << missing << ": " << outcome.summary();
    TestRun reconstruction(shared_terminate("inventory_delete", missing));
    const Outcome reconstructed = reconstruction.run();
    EXPECT_TRUE(reconstructed.passed()) << missing << ": " << reconstructed.summary();
  }
}

TEST(GitlabSharedVariants, NamespaceDeleteIsS5AndForbiddenByRbac) {
  TestRun run(shared_terminate("namespace_delete"));
  const Outcome outcome = run.run();
  ASSERT_TRUE(outcome.safety) << outcome.summary();
  EXPECT_EQ(outcome.safety->invariant_id, std::string(kS5));
  // The run stops at the violation; let the DELETE finish and the next cycles run: RBAC denies
  // it, so the shared namespace and the other workspace survive, and ws-0 never terminates.
  run.sim().loop().run_until(run.sim().now_ms() + 10 * kMinuteMs);
  const WorkspaceRow* ws0 = run.system().rails().table().find_by_name("ws-0");
  const WorkspaceRow* ws1 = run.system().rails().table().find_by_name("ws-1");
  ASSERT_NE(ws0, nullptr);
  ASSERT_NE(ws1, nullptr);
  kube::ApiServer& api = run.system().cluster().api();
  const kube::Object* ns = api.peek(kube::ObjectRef{"Namespace", "", ws0->namespace_});
  ASSERT_NE(ns, nullptr);
  EXPECT_FALSE(ns->meta.deletion_ms.has_value());
  EXPECT_NE(api.peek(kube::ObjectRef{"Deployment", ws1->namespace_, "ws-1"}), nullptr);
  EXPECT_EQ(ws1->actual_state, State::kRunning) << run.system().describe_state();
  EXPECT_NE(ws0->actual_state, State::kTerminated) << run.system().describe_state();
}

TEST(GitlabSharedVariants, InventoryFirstLeaksOrNeverTerminates) {
  {
    TestRun run(shared_terminate("inventory_first", "terminated"));
    const Outcome outcome = run.run();
    ASSERT_TRUE(outcome.safety) << outcome.summary();
    EXPECT_EQ(outcome.safety->invariant_id, std::string(kS11));
  }
  {
    TestRun run(shared_terminate("inventory_first", "terminating_forever"));
    const Outcome outcome = run.run();
    EXPECT_FALSE(outcome.safety) << outcome.summary();
    EXPECT_TRUE(outcome.has_liveness(std::string(kL1))) << outcome.summary();
  }
}

TEST(GitlabSharedVariants, InventoryFirstIsSavedByTheNamespaceInUniqueMode) {
  proto::Scenario scenario = shared_terminate("inventory_first");
  scenario.mutable_gitlab()->set_namespace_mode("unique");
  TestRun run(scenario);
  const Outcome outcome = run.run();
  EXPECT_TRUE(outcome.passed()) << outcome.summary();
}

}  // namespace
}  // namespace wsim::gitlab::testing
