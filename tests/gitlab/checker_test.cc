// Every invariant of the checker, seen failing on a hand-built violating state (and, where cheap,
// not reported on the passing twin).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include <gtest/gtest.h>

#include "model/gitlab/invariants/catalog.h"
#include "model/gitlab/invariants/checker.h"
#include "model/gitlab/names.h"
#include "sim/kube/api_server.h"

namespace wsim::gitlab {
namespace {

class CheckerTest : public ::testing::Test {
 protected:
  void build(AgentVersion agent, RailsVersion rails, NamespaceMode mode = NamespaceMode::kUnique) {
    versions_.agent = agent;
    versions_.rails = rails;
    versions_.mode = mode;
    table_ = std::make_unique<WorkspacesTable>(rails);
    checker_ = std::make_unique<Checker>(
        sim_, api_, *table_, CheckerOptions{versions_, kHourMs, 10 * kSecondMs}, nullptr);
    table_->set_observer([this](const std::optional<WorkspaceRow>& b, const WorkspaceRow& a) {
      checker_->on_row_written(b, a);
    });
    checker_->set_agent_view(
        AgentView{[this]() { return state_.get(); },
                  []() { return std::vector<std::shared_ptr<const kube::Object>>{}; }});
  }
  std::string first() {
    auto v = checker_->take_safety_violation();
    return v ? v->invariant_id : "";
  }
  WorkspaceRow row(const std::string& name) { return *table_->find_by_name(name); }
  void create(const std::string& name) { table_->insert(name, unique_namespace_for(name), 0); }
  void set(const std::string& name, State desired, State actual, TimeMs now_ms = 1000) {
    WorkspaceRow r = row(name);
    r.desired_state = desired;
    r.actual_state = actual;
    ASSERT_TRUE(table_->save(r, now_ms));
  }
  RailsRequest request_with(const std::string& name, TerminationProgress tp, std::uint64_t id) {
    RailsRequest request;
    request.request_id = id;
    WorkspaceAgentInfo info;
    info.name = name;
    info.termination_progress = tp;
    request.workspace_agent_infos.push_back(info);
    return request;
  }
  kube::Object object(const std::string& kind, const std::string& ns, const std::string& name,
                      const std::string& ws) {
    kube::Object o;
    o.kind = kind;
    o.meta.namespace_ = ns;
    o.meta.name = name;
    o.meta.labels[std::string(kWorkspaceIdLabel)] = ws;
    o.meta.annotations[std::string(kOwningInventoryAnnotation)] = workspace_inventory_name(ws);
    return o;
  }
  void namespace_(const std::string& name) {
    kube::Object ns;
    ns.kind = "Namespace";
    ns.meta.name = name;
    ASSERT_TRUE(api_.server_create(ns, "test").ok());
  }

  Sim sim_{ChoiceSource::from_seed(1)};
  kube::ApiServer api_{sim_};
  Versions versions_;
  std::unique_ptr<WorkspacesTable> table_;
  std::unique_ptr<Checker> checker_;
  std::unique_ptr<ReconcilerState> state_;
};

TEST_F(CheckerTest, S1FlagsAnActualOnlyDesiredState) {
  build(AgentVersion::kA1, RailsVersion::kR1);
  create("ws");
  EXPECT_EQ(first(), "");
  set("ws", State::kStarting, State::kRunning);
  EXPECT_EQ(first(), kS1);
}

TEST_F(CheckerTest, S2FlagsUnterminating) {
  build(AgentVersion::kA1, RailsVersion::kR1);  // R1 lacks the validation, so the write happens.
  create("ws");
  set("ws", State::kTerminated, State::kRunning);
  EXPECT_EQ(first(), "");
  set("ws", State::kRunning, State::kRunning);
  EXPECT_EQ(first(), kS2);
}

TEST_F(CheckerTest, S3FlagsTerminatedWithoutProgressOrWithCachedDeployment) {
  build(AgentVersion::kA1, RailsVersion::kR1);
  create("ws");
  create("ok");
  BuiltRequest built;
  built.request = request_with("ws", TerminationProgress::kTerminated, 7);
  built.present = {"ws"};  // The Deployment was in the cache when the info was built.
  checker_->on_request_built(1, built);
  checker_->on_rails_request_begin(built.request);
  set("ws", State::kTerminated, State::kTerminated);
  EXPECT_EQ(first(), kS3);
  checker_->on_rails_request_end();
  set("ok", State::kTerminated, State::kTerminated);  // Outside any request.
  EXPECT_EQ(first(), kS3);
}

TEST_F(CheckerTest, S4FlagsApplyAfterDesiredTerminated) {
  build(AgentVersion::kA1, RailsVersion::kR1);
  checker_->on_apply("ws", {object("Deployment", "ns", "ws", "ws")}, false);
  EXPECT_EQ(first(), "");
  WorkspaceRailsInfo info;
  info.name = "ws";
  info.desired_state = State::kTerminated;
  checker_->on_rails_info(1, info);
  checker_->on_namespace_create("ws", "ns");
  EXPECT_EQ(first(), kS4);
}

TEST_F(CheckerTest, S5FlagsNamespaceWritesAndForeignDeletesInSharedMode) {
  build(AgentVersion::kA3, RailsVersion::kR3, NamespaceMode::kShared);
  namespace_("shared");
  ASSERT_TRUE(api_.server_create(object("Service", "shared", "other", "other"), "test").ok());
  checker_->on_object_delete(
      "ws", kube::ObjectRef{"ConfigMap", "shared", workspace_inventory_name("ws")});
  EXPECT_EQ(first(), "");
  checker_->on_object_delete("ws", kube::ObjectRef{"Service", "shared", "other"});
  EXPECT_EQ(first(), kS5);
  checker_->on_namespace_delete("ws2", "shared");  // Violations are reported once per object.
  EXPECT_EQ(first(), kS5);
}

TEST_F(CheckerTest, S6FlagsDeleteNamespaceOfALiveWorkspace) {
  build(AgentVersion::kA1, RailsVersion::kR1);
  create("ws");
  checker_->on_namespace_delete("ws", unique_namespace_for("ws"));
  EXPECT_EQ(first(), kS6);
  set("ws", State::kTerminated, State::kRunning);
  checker_->on_namespace_delete("ws", unique_namespace_for("ws"));
  EXPECT_EQ(first(), "");
}

TEST_F(CheckerTest, S7FlagsForgettingBeforeTheAck) {
  build(AgentVersion::kA1, RailsVersion::kR1);
  checker_->on_tracker_erase(WorkspaceKey{"ws", "ns"}, State::kTerminated);
  EXPECT_EQ(first(), "");
  checker_->on_tracker_erase(WorkspaceKey{"ws", "ns"}, State::kTerminating);
  EXPECT_EQ(first(), kS7);
}

TEST_F(CheckerTest, S8FlagsAStaleErrorReport) {
  build(AgentVersion::kA1, RailsVersion::kR1);
  const WorkspaceKey key{"ws", "ns"};
  checker_->on_operation_done(1, key, 5, true);
  BuiltRequest built;
  built.error_versions[key] = 6;
  checker_->on_request_built(1, built);
  EXPECT_EQ(first(), "");
  built.error_versions[key] = 4;
  checker_->on_request_built(1, built);
  EXPECT_EQ(first(), kS8);
}

TEST_F(CheckerTest, S9FlagsTimestampRegressions) {
  build(AgentVersion::kA1, RailsVersion::kR1);
  create("ws");
  table_->touch_returned({1}, 5000);
  EXPECT_EQ(first(), "");
  table_->touch_returned({1}, 4000);
  EXPECT_EQ(first(), kS9);
}

TEST_F(CheckerTest, S10FlagsNonInventoryConfigForTerminatedOnR3) {
  build(AgentVersion::kA3, RailsVersion::kR3);
  RailsResponse response;
  WorkspaceRailsInfo info;
  info.name = "ws";
  info.desired_state = State::kTerminated;
  info.config_to_apply.push_back(object("Deployment", "ns", "ws", "ws"));
  response.workspace_rails_infos.push_back(info);
  checker_->on_rails_response(RailsRequest{}, response);
  EXPECT_EQ(first(), kS10);
}

TEST_F(CheckerTest, S11FlagsObjectsLeftBehindAtTerminated) {
  build(AgentVersion::kA3, RailsVersion::kR3, NamespaceMode::kShared);
  namespace_("shared");
  table_->insert("ws", "shared", 0);
  ASSERT_TRUE(api_.server_create(object("Service", "shared", "ws", "ws"), "test").ok());
  RailsRequest request = request_with("ws", TerminationProgress::kTerminated, 3);
  checker_->on_rails_request_begin(request);
  set("ws", State::kTerminated, State::kTerminated);
  EXPECT_EQ(first(), kS11);
}

// S18: the latest operation's error stays in every request until a newer rails info supersedes
// it; an older operation's success must not erase it (the mutant gl_error_deleted_by_any_version).
TEST_F(CheckerTest, S18FlagsAnErrorDroppedBeforeItWasSuperseded) {
  build(AgentVersion::kA3, RailsVersion::kR3);
  // Each case uses its own workspace: the checker reports a (invariant, object) pair once.
  const WorkspaceKey dropped{"dropped", "ns"};
  const WorkspaceKey superseded{"superseded", "ns"};
  const WorkspaceKey stale{"stale", "ns"};
  const WorkspaceKey reset{"reset", "ns"};
  for (const WorkspaceKey& key : {dropped, superseded, stale, reset}) {
    checker_->on_operation_started(1, key, 1);
    checker_->on_operation_started(1, key, 2);
    checker_->on_operation_done(1, key, 2, false);
    checker_->on_operation_done(1, key, 1, true);  // The older apply ends later: no effect.
  }
  BuiltRequest built;
  built.request.request_id = 3;
  for (const WorkspaceKey& key : {dropped, superseded, stale, reset}) built.error_versions[key] = 2;
  checker_->on_request_built(1, built);
  checker_->on_request_built(1, built);  // Re-sent until superseded: fine.
  EXPECT_EQ(first(), "");
  // Superseded by a newer rails info: no longer owed. A stale operation's error is never owed.
  checker_->on_operation_started(1, superseded, 3);
  checker_->on_operation_started(1, stale, 3);
  checker_->on_operation_done(1, stale, 2, false);
  built.error_versions = {{reset, 2}};
  checker_->on_request_built(1, built);
  auto violation = checker_->take_safety_violation();
  ASSERT_TRUE(violation.has_value());
  EXPECT_EQ(violation->invariant_id, kS18);
  EXPECT_EQ(violation->object, "dropped");
  EXPECT_EQ(first(), "");  // Neither superseded nor stale.
  // A new reconciler starts with an empty tracker: "reset" is no longer owed; a new error is.
  checker_->on_reconciler_reset(2, false);
  const WorkspaceKey fresh{"fresh", "ns"};
  checker_->on_operation_started(2, fresh, 1);
  checker_->on_operation_done(2, fresh, 1, false);
  built.error_versions.clear();
  checker_->on_request_built(2, built);
  violation = checker_->take_safety_violation();
  ASSERT_TRUE(violation.has_value());
  EXPECT_EQ(violation->object, "fresh");
  EXPECT_EQ(first(), "");
}

// S17: the synced flag is an acknowledgement: it may only be set for a progress Rails received.
TEST_F(CheckerTest, S17FlagsASyncedProgressRailsNeverReceived) {
  build(AgentVersion::kA3, RailsVersion::kR3);
  state_ = std::make_unique<ReconcilerState>(1, SyncedFlagRule::kAfterExchange);
  const WorkspaceKey lost{"lost", ""};
  state_->termination.update_or_set(lost, TerminationProgress::kTerminating);
  state_->termination.mark_synced(lost, TerminationProgress::kTerminating);
  BuiltRequest built;
  built.request.request_id = 7;
  checker_->on_request_built(1, built);
  EXPECT_EQ(first(), kS17);
  // Delivered: Rails received the progress in step 1 of a request (its answer may be lost).
  checker_->on_rails_request_begin(request_with("ok", TerminationProgress::kTerminating, 8));
  checker_->on_rails_request_end();
  state_->termination.erase(lost);
  const WorkspaceKey ok{"ok", ""};
  state_->termination.update_or_set(ok, TerminationProgress::kTerminating);
  state_->termination.mark_synced(ok, TerminationProgress::kTerminating);
  built.request.request_id = 9;
  checker_->on_request_built(1, built);
  EXPECT_EQ(first(), "");
  // A0/A1 never read the flag: no S17 there (seed 215 of A1+R1).
  build(AgentVersion::kA1, RailsVersion::kR1);
  state_->termination.update_or_set(lost, TerminationProgress::kTerminating);
  state_->termination.mark_synced(lost, TerminationProgress::kTerminating);
  built.request.request_id = 10;
  checker_->on_request_built(1, built);
  EXPECT_EQ(first(), "");
}

TEST_F(CheckerTest, L1L2L4OnTheLimboRowAndL3OnAStoppedTarget) {
  build(AgentVersion::kA0a, RailsVersion::kR1);
  create("ws");
  create("idle");
  set("ws", State::kTerminated, State::kRunning, 1000);
  set("idle", State::kStopped, State::kRunning, 1000);
  table_->touch_returned({1, 2}, 2000);
  state_ = std::make_unique<ReconcilerState>(1, SyncedFlagRule::kAfterExchange);
  state_->termination.add(WorkspaceKey{"gone", "ns"}, TerminationProgress::kTerminating);
  checker_->on_heal(0);
  EXPECT_TRUE(checker_->in_limbo(row("ws")));
  checker_->on_cycle_done(1, true, true);
  checker_->on_cycle_done(1, true, true);
  std::set<std::string> ids;
  for (const run::Violation& v : checker_->check_liveness()) ids.insert(v.invariant_id);
  EXPECT_EQ(ids, (std::set<std::string>{std::string(kL1), std::string(kL2), std::string(kL3),
                                        std::string(kL4)}));
}

TEST_F(CheckerTest, L5FlagsChattyPartialsOnA2AndL6SlowConvergence) {
  build(AgentVersion::kA2, RailsVersion::kR2);
  checker_->on_heal(0);
  RailsRequest request = request_with("ws", TerminationProgress::kTerminating, 1);
  checker_->on_exchange(1, request, true, RailsResponse{});
  ASSERT_EQ(checker_->check_liveness().size(), 1u);
  EXPECT_EQ(checker_->check_liveness()[0].invariant_id, kL5);

  build(AgentVersion::kA1, RailsVersion::kR1);
  create("ws");
  set("ws", State::kRunning, State::kStarting);
  checker_->on_heal(0);
  checker_->on_cycle_done(1, false, true);
  sim_.loop().run_until(2 * kHourMs);
  set("ws", State::kRunning, State::kRunning);
  checker_->on_cycle_done(1, false, true);
  ASSERT_EQ(checker_->check_liveness().size(), 1u);
  EXPECT_EQ(checker_->check_liveness()[0].invariant_id, kL6);
}

// Hunt finding (A3+R3 unique, seed 1770): a FULL re-applies every config, the apply bumps the
// Deployment's resourceVersion, and the second partial after the FULL reports it. That echo is
// not chatter; a partial still non-empty well after the FULL is.
TEST_F(CheckerTest, L5IgnoresTheEchoOfAFullButNotLaterChatter) {
  build(AgentVersion::kA3, RailsVersion::kR3);
  checker_->on_heal(0);
  RailsRequest full;
  full.request_id = 1;
  full.update_type = UpdateType::kFull;
  checker_->on_exchange(1, full, true, RailsResponse{});
  RailsRequest empty;
  empty.request_id = 2;
  checker_->on_exchange(1, empty, true, RailsResponse{});
  RailsRequest echo = request_with("ws", TerminationProgress::kNone, 3);
  checker_->on_exchange(1, echo, true, RailsResponse{});
  EXPECT_TRUE(checker_->check_liveness().empty());

  for (std::uint64_t id = 4; id <= 5; ++id) {
    checker_->on_exchange(1, request_with("ws", TerminationProgress::kNone, id), true,
                          RailsResponse{});
  }
  ASSERT_EQ(checker_->check_liveness().size(), 1u);
  EXPECT_EQ(checker_->check_liveness()[0].invariant_id, kL5);
}

// Hunt finding (A3+R3 unique, seed 26406): the first FULL after heal repairs a RestartRequested
// workspace; Rails flips it to Running (§4.2) in the same Rails-clock tick as the FULL's touch,
// so R3's strict `>` does not send the config (§9.3) and the next FULL, one interval later,
// delivers it. L6 counts from that desired_state change, not from heal.
TEST_F(CheckerTest, L6CountsFromTheLastDesiredChangeAfterHeal) {
  build(AgentVersion::kA3, RailsVersion::kR3);
  create("ws");
  set("ws", State::kRestartRequested, State::kUnknown);
  checker_->on_heal(0);
  checker_->on_cycle_done(1, true, true);
  sim_.loop().run_until(2 * kMinuteMs);
  set("ws", State::kRunning, State::kStopped, 2 * kMinuteMs);  // Rails' own flip.
  checker_->on_cycle_done(1, false, true);
  sim_.loop().run_until(2 * kMinuteMs + kHourMs + 30 * kSecondMs);
  set("ws", State::kRunning, State::kRunning, 2 * kMinuteMs + kHourMs + 30 * kSecondMs);
  checker_->on_cycle_done(1, false, true);
  EXPECT_TRUE(checker_->check_liveness().empty());

  // Still a bound: one full interval plus slack from the change.
  build(AgentVersion::kA3, RailsVersion::kR3);
  create("ws");
  set("ws", State::kRestartRequested, State::kUnknown);
  checker_->on_heal(sim_.now_ms());
  const TimeMs flip_ms = sim_.now_ms() + 2 * kMinuteMs;
  sim_.loop().run_until(flip_ms);
  set("ws", State::kRunning, State::kStopped, flip_ms);
  checker_->on_cycle_done(1, false, true);
  sim_.loop().run_until(flip_ms + kHourMs + 2 * kMinuteMs);
  set("ws", State::kRunning, State::kRunning, flip_ms + kHourMs + 2 * kMinuteMs);
  checker_->on_cycle_done(1, false, true);
  ASSERT_EQ(checker_->check_liveness().size(), 1u);
  EXPECT_EQ(checker_->check_liveness()[0].invariant_id, kL6);
}

// Hunt finding (A3+R3 unique, seed 30151): kubectl deleted a Running workspace's namespace just
// before heal and slow termination removed it only after the first FULL after heal; partials
// never report it (§9.4), so the next FULL repairs it. L6 counts from when a cycle first saw
// the namespace gone.
TEST_F(CheckerTest, L6CountsFromANamespaceVanishingAfterHeal) {
  build(AgentVersion::kA3, RailsVersion::kR3);
  create("ws");
  set("ws", State::kRunning, State::kRunning);
  namespace_(unique_namespace_for("ws"));
  checker_->on_heal(0);
  checker_->on_cycle_done(1, true, true);
  sim_.loop().run_until(2 * kMinuteMs);
  const kube::ObjectRef ns{"Namespace", "", unique_namespace_for("ws")};
  ASSERT_TRUE(api_.server_delete(ns, kube::DeleteOptions{}, "test").ok());
  kube::MergePatch empty;  // What the namespace controller does once the content is gone.
  empty.spec["finalizers"] = std::nullopt;
  ASSERT_TRUE(api_.server_patch(ns, empty, kube::Subresource::kMain, "test").ok());
  ASSERT_EQ(api_.peek(ns), nullptr);
  set("ws", State::kRunning, State::kUnknown, 2 * kMinuteMs);
  checker_->on_cycle_done(1, false, true);
  sim_.loop().run_until(2 * kMinuteMs + kHourMs + 30 * kSecondMs);
  namespace_(unique_namespace_for("ws"));
  set("ws", State::kRunning, State::kRunning, 2 * kMinuteMs + kHourMs + 30 * kSecondMs);
  checker_->on_cycle_done(1, false, true);
  EXPECT_TRUE(checker_->check_liveness().empty());
}

// The agent may re-create a vanished namespace inside the very cycle that would have seen it gone
// (the partial's ensure-namespace step): the re-creation after heal is the disturbance then.
TEST_F(CheckerTest, L6CountsFromANamespaceRecreatedAfterHeal) {
  for (const bool recreated : {false, true}) {
    build(AgentVersion::kA3, RailsVersion::kR3);
    create("ws");
    set("ws", State::kRunning, State::kRunning);
    checker_->on_heal(sim_.loop().now_ms());
    const TimeMs start_ms = sim_.loop().now_ms();
    checker_->on_cycle_done(1, true, true);
    sim_.loop().run_until(start_ms + 2 * kMinuteMs);
    set("ws", State::kRunning, State::kUnknown, start_ms + 2 * kMinuteMs);
    checker_->on_cycle_done(1, false, true);
    if (recreated) checker_->on_namespace_create("ws", unique_namespace_for("ws"));
    sim_.loop().run_until(start_ms + 2 * kMinuteMs + kHourMs + 30 * kSecondMs);
    set("ws", State::kRunning, State::kRunning,
        start_ms + 2 * kMinuteMs + kHourMs + 30 * kSecondMs);
    checker_->on_cycle_done(1, false, true);
    EXPECT_EQ(checker_->check_liveness().empty(), recreated) << recreated;
  }
}

}  // namespace
}  // namespace wsim::gitlab
