// Not a port: the state oracle (docs/gitlab-oracles.md) [invented]: what an actual or desired
// state means in the cluster, independent of the ports that compute it.
#include "model/gitlab/invariants/state_oracle.h"

#include <charconv>

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

// A decimal field, or nullopt when missing or malformed.
std::optional<long> number(const kube::Fields& fields, const std::string& key) {
  auto it = fields.find(key);
  if (it == fields.end() || it->second.empty()) return std::nullopt;
  long value = 0;
  const char* end = it->second.data() + it->second.size();
  auto [ptr, error] = std::from_chars(it->second.data(), end, value);
  if (error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::string progressing_reason(const kube::Object& deployment) {
  const kube::Condition* progressing = deployment.condition("Progressing");
  return progressing == nullptr ? "" : progressing->reason;
}

// Kubernetes: a rollout is complete when the controller says NewReplicaSetAvailable
// (deployment_util.go DeploymentComplete); before that the workspace is not settled.
bool rollout_complete(const kube::Object& deployment) {
  return progressing_reason(deployment) == "NewReplicaSetAvailable";
}

std::optional<std::string> deployment_contradiction(State actual, const kube::Object& deployment) {
  // The progress- and error-driven states were judged by actual_state_contradiction.
  WSIM_ASSERT(actual != State::kTerminated);
  WSIM_ASSERT(actual != State::kTerminating);
  const std::optional<long> replicas = number(deployment.spec, "replicas");
  const long available = number(deployment.status, "availableReplicas").value_or(0);
  const long unavailable = number(deployment.status, "unavailableReplicas").value_or(0);
  const std::string facts = "spec.replicas " + (replicas ? std::to_string(*replicas) : "nil") +
                            ", availableReplicas " + std::to_string(available) +
                            ", unavailableReplicas " + std::to_string(unavailable) +
                            ", Progressing " + progressing_reason(deployment);
  switch (actual) {
    case State::kRunning:
      if (replicas && *replicas >= 1 && available >= *replicas && unavailable == 0 &&
          rollout_complete(deployment))
        return std::nullopt;
      return "Running needs every desired replica available after a finished rollout: " + facts;
    case State::kStopped:
      if (replicas && *replicas == 0 && available == 0 && rollout_complete(deployment))
        return std::nullopt;
      return "Stopped needs zero replicas desired, none available, rollout finished: " + facts;
    case State::kStarting:
      if (replicas && *replicas >= 1) return std::nullopt;
      return "Starting needs a replica desired: " + facts;
    case State::kStopping:
      if (replicas && *replicas == 0) return std::nullopt;
      return "Stopping needs zero replicas desired: " + facts;
    case State::kFailed:
      if (progressing_reason(deployment) == "ProgressDeadlineExceeded") return std::nullopt;
      return "Failed needs Progressing reason ProgressDeadlineExceeded: " + facts;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> actual_state_contradiction(RailsVersion rails, State actual,
                                                      const WorkspaceAgentInfo& info) {
  WSIM_ASSERT(!info.name.empty());
  const TerminationProgress progress = info.termination_progress;
  switch (actual) {
    case State::kTerminated:
      if (progress == TerminationProgress::kTerminated) return std::nullopt;
      return "Terminated without termination_progress Terminated";
    case State::kTerminating:
      if (progress == TerminationProgress::kTerminating) return std::nullopt;
      return "Terminating without termination_progress Terminating";
    case State::kError:
      if (rails != RailsVersion::kR0 && info.error_details) return std::nullopt;
      return "Error without error_details";
    default:
      break;
  }
  // A workspace the agent reports as terminating or failing is not also running or stopped.
  if (progress != TerminationProgress::kNone) {
    return std::string(state_name(actual)) + " although termination_progress was sent";
  }
  if (rails != RailsVersion::kR0 && info.error_details) {
    return std::string(state_name(actual)) + " although error_details were sent";
  }
  if (!info.latest_k8s_deployment_info) {
    if (actual == State::kUnknown) return std::nullopt;
    return std::string(state_name(actual)) + " without a Deployment in the report";
  }
  WSIM_ASSERT_EQ(info.latest_k8s_deployment_info->kind, std::string("Deployment"));
  return deployment_contradiction(actual, *info.latest_k8s_deployment_info);
}

std::optional<std::string> replicas_contradiction(State desired, const kube::Object& deployment) {
  WSIM_ASSERT(is_valid_desired(desired));
  const std::optional<long> replicas = number(deployment.spec, "replicas");
  // R3: one pod iff Running (a restart scales to zero first). R0–R2 also give one to
  // CreationRequested, which is never a desired state here.
  const long wanted = desired == State::kRunning ? 1 : 0;
  if (replicas && *replicas == wanted) return std::nullopt;
  return "desired " + std::string(state_name(desired)) + " wants " + std::to_string(wanted) +
         " replica(s), the config says " + (replicas ? std::to_string(*replicas) : "nil");
}

}  // namespace wsim::gitlab
