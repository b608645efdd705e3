// Pure agent parts: trackers (§5.3) and request building (§5.4).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include <gtest/gtest.h>

#include "model/gitlab/agent/agent.h"
#include "model/gitlab/agent/error_tracker.h"
#include "model/gitlab/agent/request_builder.h"
#include "model/gitlab/agent/termination_tracker.h"

namespace wsim::gitlab {
namespace {

kube::Object cached(const std::string& name, std::uint64_t rv) {
  kube::Object d;
  d.kind = "Deployment";
  d.meta.name = name;
  d.meta.namespace_ = "ns-" + name;
  d.meta.resource_version = rv;
  return d;
}

Versions agent(AgentVersion version) {
  Versions v;
  v.agent = version;
  v.rails = RailsVersion::kR1;
  return v;
}

// Upstream worker.go selects over the full and the partial timer channels; when both are ready
// Go's select takes either (uniformly at random), so a partial Run may go before an overdue full.
TEST(WorkerSelect, BothTimersDueIsAChoicePoint) {
  ChoiceSource source = ChoiceSource::from_tape({0, 1, 1});
  ChoiceStream choices = source.stream("select");
  EXPECT_EQ(select_cycle(true, true, true, choices), Cycle::kFull);
  EXPECT_EQ(select_cycle(true, true, true, choices), Cycle::kPartial);
  EXPECT_EQ(select_cycle(true, true, /*has_reconciler=*/false, choices), Cycle::kFull);
  EXPECT_EQ(select_cycle(true, false, true, choices), Cycle::kFull);
  EXPECT_EQ(select_cycle(false, true, true, choices), Cycle::kPartial);
  EXPECT_EQ(select_cycle(true, true, true, choices), Cycle::kPartial) << "the third draw, 1";
}

TEST(ErrorTracker, VersionsGuardSaveAndDelete) {
  ErrorTracker tracker;
  const WorkspaceKey key{"ws", "ns"};
  const auto v1 = tracker.next_version();
  tracker.mark_entry_with_version(key, v1);
  const auto v2 = tracker.next_version();
  tracker.mark_entry_with_version(key, v2);
  EXPECT_FALSE(tracker.save_error_if_version(key, v1, "late"));  // Older op: dropped.
  EXPECT_TRUE(tracker.save_error_if_version(key, v2, "boom"));
  tracker.mark_entry_with_version(key, v1);  // Lower version never overwrites.
  EXPECT_TRUE(tracker.has_error(key));
  tracker.delete_error_if_version(key, v2);
  EXPECT_FALSE(tracker.find(key).has_value());
}

TEST(TerminationTracker, SyncedFlagRules) {
  const WorkspaceKey key{"ws", "ns"};
  TerminationTracker after(SyncedFlagRule::kAfterExchange);
  after.update_or_set(key, TerminationProgress::kTerminating);
  after.mark_synced(key, TerminationProgress::kTerminating);
  EXPECT_TRUE(after.find(key)->synced);
  after.update_or_set(key, TerminationProgress::kTerminated);
  EXPECT_FALSE(after.find(key)->synced);
  TerminationTracker repeated(SyncedFlagRule::kOnRepeatedSet);
  repeated.update_or_set(key, TerminationProgress::kTerminating);
  EXPECT_FALSE(repeated.find(key)->synced);
  repeated.update_or_set(key, TerminationProgress::kTerminating);
  EXPECT_TRUE(repeated.find(key)->synced);
}

TEST(RequestBuilder, A0aDuplicatesTrackerInfosA1MergesThem) {
  PersistedStateTracker persisted;
  TerminationTracker termination;
  termination.add(WorkspaceKey{"ws", "ns-ws"}, TerminationProgress::kTerminating);
  const std::vector<kube::Object> deployments = {cached("ws", 7)};
  BuiltRequest a0a =
      build_request(agent(AgentVersion::kA0a), deployments, persisted, termination, {}, false);
  EXPECT_EQ(a0a.request.update_type, UpdateType::kFull);
  ASSERT_EQ(a0a.request.workspace_agent_infos.size(), 2u);
  EXPECT_TRUE(a0a.request.workspace_agent_infos[0].latest_k8s_deployment_info.has_value());
  EXPECT_EQ(a0a.request.workspace_agent_infos[1].termination_progress,
            TerminationProgress::kTerminating);
  BuiltRequest a1 =
      build_request(agent(AgentVersion::kA1), deployments, persisted, termination, {}, true);
  EXPECT_EQ(a1.request.update_type, UpdateType::kPartial);
  ASSERT_EQ(a1.request.workspace_agent_infos.size(), 1u);
  EXPECT_TRUE(a1.request.workspace_agent_infos[0].latest_k8s_deployment_info.has_value());
  EXPECT_EQ(a1.request.workspace_agent_infos[0].termination_progress,
            TerminationProgress::kTerminating);
}

TEST(RequestBuilder, PersistedVersionsAreSkippedAndAbsenceMeansTerminated) {
  PersistedStateTracker persisted;
  persisted.record_version("ws", "7");
  TerminationTracker termination;
  termination.add(WorkspaceKey{"gone", "ns-gone"}, TerminationProgress::kTerminating);
  BuiltRequest built =
      build_request(agent(AgentVersion::kA1), {cached("ws", 7)}, persisted, termination, {}, true);
  ASSERT_EQ(built.request.workspace_agent_infos.size(), 1u);
  EXPECT_EQ(built.request.workspace_agent_infos[0].name, "gone");
  EXPECT_EQ(built.request.workspace_agent_infos[0].termination_progress,
            TerminationProgress::kTerminated);
}

TEST(RequestBuilder, ErrorsFromSnapshotFromA0bAndA2SkipsSyncedEntries) {
  PersistedStateTracker persisted;
  ErrorTracker errors;
  const WorkspaceKey key{"ws", "ns-ws"};
  const auto v = errors.next_version();
  errors.mark_entry_with_version(key, v);
  errors.save_error_if_version(key, v, "Conflict");
  TerminationTracker termination;
  BuiltRequest a0b =
      build_request(agent(AgentVersion::kA0b), {}, persisted, termination, errors.snapshot(), true);
  ASSERT_EQ(a0b.request.workspace_agent_infos.size(), 1u);
  EXPECT_EQ(a0b.request.workspace_agent_infos[0].error_details->error_message, "Conflict");
  EXPECT_EQ(a0b.error_versions.at(key), v);
  BuiltRequest a0a =
      build_request(agent(AgentVersion::kA0a), {}, persisted, termination, errors.snapshot(), true);
  EXPECT_TRUE(a0a.request.workspace_agent_infos.empty());

  TerminationTracker synced;
  synced.update_or_set(key, TerminationProgress::kTerminating);
  synced.mark_synced(key, TerminationProgress::kTerminating);
  BuiltRequest a2 =
      build_request(agent(AgentVersion::kA2), {cached("ws", 9)}, persisted, synced, {}, true);
  ASSERT_EQ(a2.request.workspace_agent_infos.size(), 1u);  // Only the Deployment info.
  EXPECT_EQ(a2.request.workspace_agent_infos[0].termination_progress, TerminationProgress::kNone);
  // The Deployment disappears: progress changes, the flag clears, the entry is sent again.
  BuiltRequest later = build_request(agent(AgentVersion::kA2), {}, persisted, synced, {}, true);
  ASSERT_EQ(later.request.workspace_agent_infos.size(), 1u);
  EXPECT_EQ(later.request.workspace_agent_infos[0].termination_progress,
            TerminationProgress::kTerminated);
}

}  // namespace
}  // namespace wsim::gitlab
