// Pure Rails ports: ActualStateCalculator (§4.3), updater (§4.2), finder (§4.4), config (§4.5).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include <gtest/gtest.h>

#include "model/gitlab/names.h"
#include "model/gitlab/rails/actual_state_calculator.h"
#include "model/gitlab/rails/agent_infos_updater.h"
#include "model/gitlab/rails/config_builder.h"
#include "model/gitlab/rails/rails_service.h"
#include "model/gitlab/rails/workspaces_finder.h"
#include "model/gitlab/rails/workspaces_table.h"

namespace wsim::gitlab {
namespace {

kube::Object deployment(int replicas, const std::string& progressing, const std::string& available,
                        int avail, int unavail) {
  kube::Object d;
  d.kind = "Deployment";
  d.meta.name = "ws-0";
  d.meta.namespace_ = "ns";
  d.meta.resource_version = 42;
  d.spec["replicas"] = std::to_string(replicas);
  d.status["availableReplicas"] = std::to_string(avail);
  d.status["unavailableReplicas"] = std::to_string(unavail);
  d.conditions.push_back(kube::Condition{"Progressing", "True", progressing, "", 0});
  d.conditions.push_back(kube::Condition{"Available", "True", available, "", 0});
  return d;
}

WorkspaceAgentInfo info_with(std::optional<kube::Object> d,
                             TerminationProgress tp = TerminationProgress::kNone,
                             bool error = false) {
  WorkspaceAgentInfo info;
  info.name = "ws-0";
  info.namespace_ = "ns";
  info.latest_k8s_deployment_info = std::move(d);
  info.termination_progress = tp;
  if (error) info.error_details = ErrorDetails{"applier", "boom"};
  return info;
}

TEST(ActualStateCalculator, DeploymentRulesOfSection43) {
  EXPECT_EQ(actual_state_from_deployment(std::nullopt), State::kUnknown);
  EXPECT_EQ(actual_state_from_deployment(
                deployment(1, "ProgressDeadlineExceeded", "MinimumReplicasUnavailable", 0, 1)),
            State::kFailed);
  EXPECT_EQ(actual_state_from_deployment(
                deployment(1, "ReplicaSetUpdated", "MinimumReplicasAvailable", 0, 1)),
            State::kStarting);
  EXPECT_EQ(actual_state_from_deployment(
                deployment(0, "NewReplicaSetCreated", "MinimumReplicasAvailable", 1, 0)),
            State::kStopping);
  EXPECT_EQ(actual_state_from_deployment(
                deployment(0, "NewReplicaSetAvailable", "MinimumReplicasAvailable", 0, 0)),
            State::kStopped);
  EXPECT_EQ(actual_state_from_deployment(
                deployment(1, "NewReplicaSetAvailable", "MinimumReplicasAvailable", 1, 0)),
            State::kRunning);
  EXPECT_EQ(actual_state_from_deployment(
                deployment(0, "NewReplicaSetAvailable", "MinimumReplicasAvailable", 1, 0)),
            State::kStopping);
  EXPECT_EQ(actual_state_from_deployment(
                deployment(1, "NewReplicaSetAvailable", "MinimumReplicasUnavailable", 0, 1)),
            State::kStarting);
  EXPECT_EQ(actual_state_from_deployment(
                deployment(2, "NewReplicaSetAvailable", "MinimumReplicasAvailable", 1, 1)),
            State::kUnknown);
  kube::Object no_conditions = deployment(1, "x", "y", 0, 0);
  no_conditions.conditions.clear();
  EXPECT_EQ(actual_state_from_deployment(no_conditions), State::kUnknown);
}

TEST(ActualStateCalculator, TerminatedWinsOverErrorFromR1AndR0IgnoresErrors) {
  const auto running = deployment(1, "NewReplicaSetAvailable", "MinimumReplicasAvailable", 1, 0);
  EXPECT_EQ(calculate_actual_state(RailsVersion::kR1,
                                   info_with(running, TerminationProgress::kTerminated, true)),
            State::kTerminated);
  EXPECT_EQ(calculate_actual_state(RailsVersion::kR1,
                                   info_with(running, TerminationProgress::kTerminating, true)),
            State::kError);
  EXPECT_EQ(calculate_actual_state(RailsVersion::kR1,
                                   info_with(running, TerminationProgress::kTerminating)),
            State::kTerminating);
  EXPECT_EQ(calculate_actual_state(RailsVersion::kR0,
                                   info_with(running, TerminationProgress::kNone, true)),
            State::kRunning);
  EXPECT_EQ(calculate_actual_state(RailsVersion::kR0,
                                   info_with(std::nullopt, TerminationProgress::kNone, true)),
            State::kUnknown);
}

TEST(AgentInfosUpdater, LaterInfoWithTheSameNameWinsAndRestartFlips) {
  WorkspacesTable table(RailsVersion::kR1);
  table.insert("ws-0", "ns", 0);
  WorkspaceRow row = *table.find_by_name("ws-0");
  row.desired_state = State::kRestartRequested;
  ASSERT_TRUE(table.save(row, 1000));
  const auto stopped = deployment(0, "NewReplicaSetAvailable", "MinimumReplicasAvailable", 0, 0);
  // A0a duplicates: informer info first, tracker info second; the second one wins (§2.2).
  std::vector<WorkspaceAgentInfo> infos = {info_with(stopped), info_with(stopped)};
  const auto updated = update_workspaces_from_agent_infos(table, infos, 2000);
  ASSERT_EQ(updated.size(), 1u);
  const WorkspaceRow* after = table.find_by_name("ws-0");
  EXPECT_EQ(after->actual_state, State::kStopped);
  EXPECT_EQ(after->desired_state, State::kRunning);
  EXPECT_EQ(after->desired_state_updated_at, 2000);
  EXPECT_EQ(after->deployment_resource_version, "42");
  infos = {info_with(stopped), info_with(std::nullopt, TerminationProgress::kTerminated)};
  update_workspaces_from_agent_infos(table, infos, 3000);
  EXPECT_EQ(table.find_by_name("ws-0")->actual_state, State::kTerminated);
  EXPECT_EQ(table.find_by_name("ws-0")->deployment_resource_version, "42");  // nil: unchanged
}

TEST(WorkspacesTable, PermanentTerminationFromR2Only) {
  for (RailsVersion version : {RailsVersion::kR1, RailsVersion::kR2}) {
    WorkspacesTable table(version);
    table.insert("ws-0", "ns", 0);
    WorkspaceRow row = *table.find_by_name("ws-0");
    row.desired_state = State::kTerminated;
    ASSERT_TRUE(table.save(row, 1000));
    row.desired_state = State::kRunning;
    EXPECT_EQ(table.save(row, 2000), version < RailsVersion::kR2);
  }
}

// An admin agent-config update at the R2 and R3 pins stores a new agent-config version and writes
// no workspace row: nothing is force-included, so a quiet partial returns nothing
// (agent_config_operations/updater.rb@0582d2cdb488 :10-32 and @420121856e80 :10-33;
// docs/fidelity.md). Before R2 the model has no config update.
TEST(RailsService, AgentConfigUpdateForcesNothingAtThePins) {
  for (RailsVersion version : {RailsVersion::kR1, RailsVersion::kR2, RailsVersion::kR3}) {
    Sim sim(ChoiceSource::from_seed(1));
    RailsOptions options;
    options.versions.rails = version;
    RailsService rails(sim, options, nullptr);
    ASSERT_EQ(rails.create_workspace("ws-0"), UserActionResult::kOk);
    ASSERT_EQ(rails.create_workspace("ws-1"), UserActionResult::kOk);
    rails.table().touch_returned({1, 2}, 1000);
    const UserActionResult result = rails.update_agent_config();
    if (version < RailsVersion::kR2) {
      EXPECT_EQ(result, UserActionResult::kInvalid);
      continue;
    }
    EXPECT_EQ(result, UserActionResult::kOk);
    for (const WorkspaceRow& row : rails.table().rows())
      EXPECT_FALSE(row.force_include_all_resources)
          << row.name << " on R" << static_cast<int>(version);
    EXPECT_TRUE(find_workspaces_to_return(rails.table(), UpdateType::kPartial, {}).empty());
  }
}

WorkspaceRow returned_row(TimeMs dsu, std::optional<TimeMs> rta) {
  WorkspaceRow row;
  row.id = 1;
  row.name = "ws-0";
  row.desired_state_updated_at = dsu;
  row.actual_state_updated_at = 0;
  row.responded_to_agent_at = rta;
  return row;
}

TEST(WorkspacesFinder, TiesAreResentBeforeR3Only) {
  EXPECT_TRUE(desired_updated_since_response(RailsVersion::kR2, returned_row(5000, 5000)));
  EXPECT_FALSE(desired_updated_since_response(RailsVersion::kR3, returned_row(5000, 5000)));
  EXPECT_TRUE(desired_updated_since_response(RailsVersion::kR3, returned_row(5000, std::nullopt)));
  EXPECT_FALSE(desired_updated_since_response(RailsVersion::kR0, returned_row(4000, 5000)));
}

// The counterfactual switch gitlab.rails_desired_finder_inclusive gives R3 the `>=` of R0–R2 in
// the partial finder and the config builder, and nothing else (docs/fidelity.md).
TEST(WorkspacesFinder, TheInclusiveCounterfactualResendsR3TiesOnly) {
  Versions versions;
  versions.rails = RailsVersion::kR3;
  EXPECT_EQ(versions.desired_compare_version(), RailsVersion::kR3);
  versions.desired_finder_inclusive = true;
  EXPECT_EQ(versions.desired_compare_version(), RailsVersion::kR2);
  EXPECT_FALSE(versions.rails_strict_greater());
  EXPECT_TRUE(versions.rails_tracks_actual_updated_at());
  versions.rails = RailsVersion::kR1;
  EXPECT_EQ(versions.desired_compare_version(), RailsVersion::kR1);

  for (bool inclusive : {false, true}) {
    WorkspacesTable table(RailsVersion::kR3, inclusive ? RailsVersion::kR2 : RailsVersion::kR3);
    table.insert("tied", "ns1", 0);
    table.touch_returned({1}, 1000);
    WorkspaceRow tied = *table.find_by_name("tied");
    tied.desired_state = State::kStopped;
    ASSERT_TRUE(table.save(tied, 1000));  // desired_state_updated_at == responded_to_agent_at.
    const auto partial = find_workspaces_to_return(table, UpdateType::kPartial, {});
    EXPECT_EQ(partial.size(), inclusive ? 1u : 0u) << "inclusive " << inclusive;
    const WorkspaceRow& row = *table.find_by_name("tied");
    EXPECT_EQ(
        decide_config(RailsVersion::kR3, UpdateType::kPartial, row, table.desired_compare_version())
            .include,
        inclusive);
  }
}

TEST(WorkspacesFinder, FullExcludesTerminatedPairsFromR1AndPartialUnion) {
  for (RailsVersion version : {RailsVersion::kR0, RailsVersion::kR1, RailsVersion::kR3}) {
    WorkspacesTable table(version);
    table.insert("done", "ns1", 0);
    table.insert("limbo", "ns2", 0);
    table.insert("quiet", "ns3", 0);
    table.touch_returned({1, 2, 3}, 1000);
    WorkspaceRow done = *table.find_by_name("done");
    done.desired_state = State::kTerminated;
    done.actual_state = State::kTerminated;
    ASSERT_TRUE(table.save(done, 500));
    WorkspaceRow limbo = *table.find_by_name("limbo");
    limbo.desired_state = State::kTerminated;
    limbo.actual_state = State::kRunning;
    ASSERT_TRUE(table.save(limbo, 500));
    table.touch_returned({1, 2, 3}, 2000);
    const auto full = find_workspaces_to_return(table, UpdateType::kFull, {});
    EXPECT_EQ(full.size(), version == RailsVersion::kR0 ? 3u : 2u);
    const auto partial = find_workspaces_to_return(table, UpdateType::kPartial, {3});
    // (b) quiet is named by an info; (e) R3 re-sends the limbo row every partial cycle.
    const std::vector<std::int64_t> expected = version == RailsVersion::kR3
                                                   ? std::vector<std::int64_t>{2, 3}
                                                   : std::vector<std::int64_t>{3};
    EXPECT_EQ(partial, expected);
  }
}

TEST(ConfigBuilder, ReplicasAndOwningInventories) {
  Versions versions;
  versions.rails = RailsVersion::kR1;
  WorkspaceRow row = returned_row(0, std::nullopt);
  row.namespace_ = "ns";
  row.desired_state = State::kRunning;
  const ConfigDecision decision = decide_config(RailsVersion::kR1, UpdateType::kPartial, row);
  ASSERT_TRUE(decision.include);
  const auto config = build_config_to_apply(versions, row, decision);
  ASSERT_EQ(config.front().kind, "ConfigMap");
  EXPECT_EQ(config.front().meta.name, workspace_inventory_name("ws-0"));
  for (std::size_t i = 1; i < config.size(); ++i) {
    EXPECT_EQ(config[i].meta.annotations.at(std::string(kOwningInventoryAnnotation)),
              workspace_inventory_name("ws-0"));
    if (config[i].kind == "Deployment") EXPECT_EQ(config[i].spec.at("replicas"), "1");
  }
  row.desired_state = State::kTerminated;
  for (const auto& object : build_config_to_apply(versions, row, decision)) {
    if (object.kind == "Deployment") EXPECT_EQ(object.spec.at("replicas"), "0");
  }
}

TEST(ConfigBuilder, R3TerminatedSendsOnlyTheTwoInventories) {
  Versions versions;
  versions.rails = RailsVersion::kR3;
  WorkspaceRow row = returned_row(0, 5000);
  row.namespace_ = "ns";
  row.desired_state = State::kTerminated;
  row.actual_state = State::kRunning;
  const ConfigDecision decision = decide_config(RailsVersion::kR3, UpdateType::kPartial, row);
  ASSERT_TRUE(decision.include);  // desired Terminated ∧ actual ≠ Terminated: every cycle.
  const auto config = build_config_to_apply(versions, row, decision);
  ASSERT_EQ(config.size(), 2u);
  EXPECT_EQ(config[0].meta.name, workspace_inventory_name("ws-0"));
  EXPECT_EQ(config[1].meta.name, secrets_inventory_name("ws-0"));
  row.desired_state = State::kRunning;
  EXPECT_FALSE(decide_config(RailsVersion::kR3, UpdateType::kPartial, row).include);
}

// The memo answers what build_config_to_apply builds, call after call, whatever the version,
// the desired state (changed back and forth, Terminated in between) and all_resources.
TEST(ConfigBuilder, MemoEqualsTheBuilderAcrossVersionsStatesAndDecisions) {
  const State states[] = {State::kRunning, State::kStopped, State::kTerminated,
                          State::kRestartRequested, State::kRunning};
  for (RailsVersion rails :
       {RailsVersion::kR0, RailsVersion::kR1, RailsVersion::kR2, RailsVersion::kR3}) {
    Versions versions;
    versions.rails = rails;
    ConfigMemo memo(versions);
    for (int round = 0; round < 2; ++round) {
      for (std::int64_t id : {2, 1}) {
        for (State desired : states) {
          for (bool all_resources : {false, true, false}) {
            WorkspaceRow row = returned_row(0, std::nullopt);
            row.id = id;
            row.name = "ws-" + std::to_string(id);
            row.namespace_ = unique_namespace_for(row.name);
            row.desired_state = desired;
            const ConfigDecision decision{true, all_resources};
            const auto expected = build_config_to_apply(versions, row, decision);
            EXPECT_EQ(memo.build(row, decision), expected)
                << rails_name(rails) << " " << state_name(desired) << " " << all_resources;
            const std::size_t group = rails >= RailsVersion::kR2 && all_resources ? 7u : 5u;
            if (!(rails >= RailsVersion::kR3 && desired == State::kTerminated)) {
              EXPECT_EQ(expected.size(), group);
            }
          }
        }
      }
    }
  }
}

// A copy handed out by the memo is the caller's: writing it changes no later answer.
TEST(ConfigBuilder, MemoCopiesAreIndependent) {
  Versions versions;
  versions.rails = RailsVersion::kR3;
  ConfigMemo memo(versions);
  WorkspaceRow row = returned_row(0, std::nullopt);
  row.namespace_ = "ns";
  const ConfigDecision decision{true, true};
  auto first = memo.build(row, decision);
  first[1].spec["replicas"] = "7";
  first[1].meta.labels["extra"] = "x";
  EXPECT_EQ(memo.build(row, decision), build_config_to_apply(versions, row, decision));
  row.name = "ws-other";  // The same id under another name or namespace is not served stale.
  EXPECT_EQ(memo.build(row, decision), build_config_to_apply(versions, row, decision));
  row.namespace_ = "ns-other";
  EXPECT_EQ(memo.build(row, decision), build_config_to_apply(versions, row, decision));
}

}  // namespace
}  // namespace wsim::gitlab
