// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/rails/actual_state_calculator.h"

#include <string>

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

// Ruby `to_i` semantics are not needed: the fake API only writes decimal integers. A missing or
// malformed number is nil (§4.3: "spec.replicas nil → Unknown").
std::optional<long> parse_int(const kube::Fields& fields, const std::string& key) {
  auto it = fields.find(key);
  if (it == fields.end() || it->second.empty()) return std::nullopt;
  // Replica counts: 18 decimal digits fit a long, so `value` below cannot overflow.
  WSIM_ASSERT_LE(it->second.size(), 18u);
  long value = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// §4.3, the branch taken only when Progressing reason == NewReplicaSetAvailable.
State state_when_new_replica_set_available(const std::string& available_reason, long replicas,
                                           long available, long unavailable) {
  // parse_int's results (or 0 for a missing status field): never negative.
  WSIM_ASSERT_GE(replicas, 0);
  WSIM_ASSERT_GE(available, 0);
  WSIM_ASSERT_GE(unavailable, 0);
  const bool minimum_available = available_reason == "MinimumReplicasAvailable";
  if (minimum_available && replicas == 0 && available == 0) return State::kStopped;
  if (minimum_available && replicas == available && unavailable == 0) return State::kRunning;
  if (minimum_available && replicas == 0 && available == 1) return State::kStopping;
  const bool minimum_either = minimum_available || available_reason == "MinimumReplicasUnavailable";
  if (minimum_either && replicas == 1 && available == 0) return State::kStarting;
  return State::kUnknown;
}

}  // namespace

State actual_state_from_deployment(const std::optional<kube::Object>& deployment) {
  if (!deployment) return State::kUnknown;
  WSIM_ASSERT_EQ(deployment->kind, std::string("Deployment"));
  // §4.3: d.spec / d.status / d.status.conditions missing → Unknown.
  if (deployment->spec.empty() || deployment->status.empty()) return State::kUnknown;
  if (deployment->conditions.empty()) return State::kUnknown;
  const kube::Condition* progressing = deployment->condition("Progressing");
  if (progressing == nullptr || progressing->reason.empty()) return State::kUnknown;
  const std::optional<long> replicas = parse_int(deployment->spec, "replicas");
  if (!replicas) return State::kUnknown;
  const std::string& progressing_reason = progressing->reason;
  if (progressing_reason == "ProgressDeadlineExceeded") return State::kFailed;
  if (progressing_reason == "NewReplicaSetCreated" || progressing_reason == "FoundNewReplicaSet" ||
      progressing_reason == "ReplicaSetUpdated") {
    if (*replicas == 0) return State::kStopping;
    if (*replicas == 1) return State::kStarting;
    // Otherwise fall through (§4.3).
  }
  WSIM_ASSERT_GE(*replicas, 0);  // parse_int reads digits only.
  const long available = parse_int(deployment->status, "availableReplicas").value_or(0);
  const long unavailable = parse_int(deployment->status, "unavailableReplicas").value_or(0);
  const kube::Condition* available_condition = deployment->condition("Available");
  if (available_condition == nullptr || available_condition->reason.empty()) {
    return State::kUnknown;
  }
  if (progressing_reason != "NewReplicaSetAvailable") return State::kUnknown;
  const State state = state_when_new_replica_set_available(available_condition->reason, *replicas,
                                                           available, unavailable);
  WSIM_ASSERT(is_valid_actual(state));
  return state;
}

State calculate_actual_state(RailsVersion version, const WorkspaceAgentInfo& info) {
  WSIM_ASSERT(!info.name.empty());
  const TerminationProgress progress = info.termination_progress;
  if (version == RailsVersion::kR0) {
    // R0 order: Terminating first, then Terminated, no error handling.
    if (progress == TerminationProgress::kTerminating) return State::kTerminating;
    if (progress == TerminationProgress::kTerminated) return State::kTerminated;
    return actual_state_from_deployment(info.latest_k8s_deployment_info);
  }
  if (progress == TerminationProgress::kTerminated) return State::kTerminated;
  if (info.error_details.has_value()) return State::kError;
  if (progress == TerminationProgress::kTerminating) return State::kTerminating;
  const State state = actual_state_from_deployment(info.latest_k8s_deployment_info);
  WSIM_ASSERT(is_valid_actual(state));
  return state;
}

}  // namespace wsim::gitlab
