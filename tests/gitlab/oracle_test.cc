// The independent oracles of docs/gitlab-oracles.md: the state oracle (what an actual or desired
// state means in the cluster) and the reference model of the agent ⇄ Rails protocol. Each check
// is seen failing on a hand-built contradiction and passing on its consistent twin.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/gitlab/invariants/protocol_model.h"
#include "model/gitlab/invariants/state_oracle.h"

namespace wsim::gitlab {
namespace {

kube::Object deployment(const std::string& replicas, const std::string& available,
                        const std::string& unavailable, const std::string& progressing) {
  kube::Object d;
  d.kind = "Deployment";
  d.meta.name = "ws";
  d.spec["replicas"] = replicas;
  d.status["availableReplicas"] = available;
  d.status["unavailableReplicas"] = unavailable;
  d.conditions.push_back(kube::Condition{"Progressing", "True", progressing, ""});
  d.conditions.push_back(kube::Condition{"Available", "True", "MinimumReplicasAvailable", ""});
  return d;
}

WorkspaceAgentInfo report(std::optional<kube::Object> d,
                          TerminationProgress progress = TerminationProgress::kNone) {
  WorkspaceAgentInfo info;
  info.name = "ws";
  info.latest_k8s_deployment_info = std::move(d);
  info.termination_progress = progress;
  return info;
}

TEST(StateOracleTest, RunningNeedsEveryReplicaAvailableAfterTheRollout) {
  const auto ok = report(deployment("1", "1", "0", "NewReplicaSetAvailable"));
  EXPECT_FALSE(actual_state_contradiction(RailsVersion::kR3, State::kRunning, ok));
  const auto starting = report(deployment("1", "0", "1", "NewReplicaSetAvailable"));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kRunning, starting));
  const auto nothing_unavailable_yet = report(deployment("1", "0", "0", "NewReplicaSetAvailable"));
  EXPECT_TRUE(
      actual_state_contradiction(RailsVersion::kR3, State::kRunning, nothing_unavailable_yet));
  const auto rolling = report(deployment("1", "1", "0", "ReplicaSetUpdated"));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kRunning, rolling));
  EXPECT_FALSE(actual_state_contradiction(RailsVersion::kR3, State::kStarting, rolling));
}

TEST(StateOracleTest, StoppedNeedsNothingWantedNorAvailable) {
  const auto stopped = report(deployment("0", "0", "0", "NewReplicaSetAvailable"));
  EXPECT_FALSE(actual_state_contradiction(RailsVersion::kR3, State::kStopped, stopped));
  const auto draining = report(deployment("0", "1", "0", "ReplicaSetUpdated"));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kStopped, draining));
  EXPECT_FALSE(actual_state_contradiction(RailsVersion::kR3, State::kStopping, draining));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kStopping,
                                         report(deployment("1", "1", "0", "ReplicaSetUpdated"))));
}

TEST(StateOracleTest, TerminationAndErrorStatesAreWhatTheAgentSaid) {
  const auto plain = report(deployment("1", "1", "0", "NewReplicaSetAvailable"));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kTerminated, plain));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kTerminating, plain));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kError, plain));
  const auto gone = report(std::nullopt, TerminationProgress::kTerminated);
  EXPECT_FALSE(actual_state_contradiction(RailsVersion::kR3, State::kTerminated, gone));
  // A terminating workspace is not reported Running.
  const auto terminating = report(deployment("1", "1", "0", "NewReplicaSetAvailable"),
                                  TerminationProgress::kTerminating);
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kRunning, terminating));
  WorkspaceAgentInfo failing = plain;
  failing.error_details = ErrorDetails{"applier", "boom"};
  EXPECT_FALSE(actual_state_contradiction(RailsVersion::kR3, State::kError, failing));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kRunning, failing));
  EXPECT_FALSE(actual_state_contradiction(RailsVersion::kR0, State::kRunning, failing));
  EXPECT_FALSE(
      actual_state_contradiction(RailsVersion::kR3, State::kUnknown, report(std::nullopt)));
  EXPECT_TRUE(
      actual_state_contradiction(RailsVersion::kR3, State::kStarting, report(std::nullopt)));
}

TEST(StateOracleTest, FailedIsTheProgressDeadline) {
  EXPECT_FALSE(
      actual_state_contradiction(RailsVersion::kR3, State::kFailed,
                                 report(deployment("1", "0", "1", "ProgressDeadlineExceeded"))));
  EXPECT_TRUE(actual_state_contradiction(RailsVersion::kR3, State::kFailed,
                                         report(deployment("1", "0", "1", "ReplicaSetUpdated"))));
}

TEST(StateOracleTest, ConfigReplicasFollowTheDesiredState) {
  EXPECT_FALSE(replicas_contradiction(State::kRunning, deployment("1", "0", "0", "")));
  EXPECT_TRUE(replicas_contradiction(State::kRunning, deployment("0", "0", "0", "")));
  EXPECT_FALSE(replicas_contradiction(State::kStopped, deployment("0", "0", "0", "")));
  EXPECT_TRUE(replicas_contradiction(State::kRestartRequested, deployment("1", "0", "0", "")));
  EXPECT_TRUE(replicas_contradiction(State::kStopped, deployment("", "0", "0", "")));
}

class ProtocolModelTest : public ::testing::Test {
 protected:
  ProtocolModel model_{[this](const std::string& workspace, std::string message) {
    reports_.push_back(workspace + ": " + message);
  }};
  std::vector<std::string> reports_;
  std::uint64_t next_id_ = 1;

  RailsRequest request(UpdateType type) {
    RailsRequest r;
    r.request_id = next_id_++;
    r.update_type = type;
    return r;
  }
  static WorkspaceRailsInfo info(const std::string& name, State desired, bool with_config) {
    WorkspaceRailsInfo i;
    i.name = name;
    i.desired_state = desired;
    if (with_config) i.config_to_apply.push_back(deployment("1", "0", "0", ""));
    return i;
  }
  // One exchange: Rails selects, then the agent gets `infos` (ok) or nothing.
  void exchange(UpdateType type, std::vector<WorkspaceRailsInfo> infos, bool ok = true) {
    const RailsRequest r = request(type);
    model_.on_select(r.request_id);
    RailsResponse response;
    response.workspace_rails_infos = std::move(infos);
    model_.on_exchange(r, ok, response);
  }
};

TEST_F(ProtocolModelTest, APartialMustDeliverAChangeMadeBeforeItsFinderRan) {
  model_.on_desired_changed("ws", State::kStopped, 1000);
  exchange(UpdateType::kPartial, {});
  ASSERT_EQ(reports_.size(), 1u);
  EXPECT_NE(reports_[0].find("ws: desired Stopped set at 1000 ms"), std::string::npos);
  exchange(UpdateType::kPartial, {});
  EXPECT_EQ(reports_.size(), 1u) << "reported once";
}

TEST_F(ProtocolModelTest, DeliveryNeedsTheDeploymentUnlessTerminating) {
  model_.on_desired_changed("a", State::kStopped, 1000);
  model_.on_desired_changed("b", State::kTerminated, 1000);
  exchange(UpdateType::kPartial, {info("a", State::kStopped, /*with_config=*/false),
                                  info("b", State::kTerminated, false)});
  ASSERT_EQ(reports_.size(), 1u);
  EXPECT_EQ(reports_[0].rfind("a: ", 0), 0u);
  model_.on_desired_changed("c", State::kRunning, 2000);
  exchange(UpdateType::kPartial, {info("c", State::kRunning, true)});
  EXPECT_EQ(reports_.size(), 1u);
  EXPECT_EQ(model_.pending(), 1u) << "a is still pending (excused after its report)";
}

TEST_F(ProtocolModelTest, AChangeAfterTheFinderRanWaitsForTheNextPartial) {
  const RailsRequest r = request(UpdateType::kPartial);
  model_.on_select(r.request_id);
  model_.on_desired_changed("ws", State::kStopped, 1000);  // Between SELECT and the answer.
  model_.on_exchange(r, true, RailsResponse{});
  EXPECT_TRUE(reports_.empty());
  exchange(UpdateType::kPartial, {info("ws", State::kStopped, true)});
  EXPECT_TRUE(reports_.empty());
  EXPECT_EQ(model_.pending(), 0u);
}

TEST_F(ProtocolModelTest, ALostExchangeOrARestartExcusesUntilDelivered) {
  model_.on_desired_changed("ws", State::kStopped, 1000);
  exchange(UpdateType::kPartial, {}, /*ok=*/false);
  exchange(UpdateType::kPartial, {});
  EXPECT_TRUE(reports_.empty()) << "a lost response: the next FULL repairs it (L6)";
  exchange(UpdateType::kFull, {info("ws", State::kStopped, true)});
  model_.on_desired_changed("ws", State::kRunning, 2000);
  model_.on_agent_restart();
  exchange(UpdateType::kPartial, {});
  EXPECT_TRUE(reports_.empty());
  model_.on_desired_changed("ws", State::kStopped, 3000);  // A new change is judged again.
  exchange(UpdateType::kPartial, {});
  EXPECT_EQ(reports_.size(), 1u);
}

TEST_F(ProtocolModelTest, AStaleDesiredStateInTheResponseIsNotADelivery) {
  model_.on_desired_changed("ws", State::kStopped, 1000);
  exchange(UpdateType::kPartial, {info("ws", State::kRunning, true)});
  EXPECT_EQ(reports_.size(), 1u);
}

// The message names how the row's Rails timestamps compared when the judged finder ran: the one
// fact that tells R3's strict-`>` tie from a change made between a finder and its touch.
TEST(ProtocolModelStamps, TheMessageSaysWhetherTheChangeTiedTheLastTouch) {
  std::vector<std::string> reports;
  ProtocolModel::Stamps stamps = ProtocolModel::Stamps::kChangeAtTouch;
  ProtocolModel model([&](const std::string&, std::string message) { reports.push_back(message); },
                      [&](const std::string&) { return stamps; });
  RailsRequest r;
  r.update_type = UpdateType::kPartial;
  r.request_id = 1;
  model.on_desired_changed("tie", State::kStopped, 1000);
  model.on_select(r.request_id);
  model.on_exchange(r, true, RailsResponse{});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("desired_state_updated_at equal to responded_to_agent_at"),
            std::string::npos)
      << reports[0];
  stamps = ProtocolModel::Stamps::kChangeBeforeTouch;
  r.request_id = 2;
  model.on_desired_changed("older", State::kStopped, 2000);
  model.on_select(r.request_id);
  stamps = ProtocolModel::Stamps::kChangeAtTouch;  // Read at the finder, not at the answer.
  model.on_exchange(r, true, RailsResponse{});
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_NE(reports[1].find("desired_state_updated_at before responded_to_agent_at"),
            std::string::npos)
      << reports[1];
}

}  // namespace
}  // namespace wsim::gitlab
