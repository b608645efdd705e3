// Upstream: gitpod-io/gitpod components/ws-manager/pkg/manager/annotations.go @ 724ed7a92a^
// (podLifecycleIndependentState, the gitpod/plis annotation) and @ c8c4c3bda92c (disposalStatus).
// The "key=value" encoding is [invented] (upstream: JSON); lastPodStatus is reduced to the fields
// the ports branch on (docs/fidelity.md M3).
//
// mk1 state carriers (docs/systems/gitpod.md §7.2, §7.3, §8.1): the PLIS (pod lifecycle independent
// state, stored as one annotation of the plis-<id> ConfigMap) and the finalizer era's
// disposalStatus pod annotation. The real code stores JSON; here a "key=value" line per field
// (values never contain newlines), which is all the model needs: both are read-modify-written
// whole.
//
// Pure functions on values.
#pragma once

#include <optional>
#include <string>

#include "sim/core/time.h"
#include "sim/kube/object.h"

namespace wsim::gitpod::mk1 {

// common-go/kubernetes TraceIDAnnotation (@ 08774bd177^ and 724ed7a92a^): set on the pod at
// creation (create.go), removed by the monitor once the workspace runs.
inline constexpr const char* kAnnTraceId = "gitpod/traceid";

// §7.3.
struct Plis {
  bool final_backup_complete = false;
  std::string final_backup_failure;
  std::optional<TimeMs> stopping_since_ms;
  std::string last_pod_phase;  // The phase of lastPodStatus; "" = no lastPodStatus (errNoPLIS).
  bool last_pod_ever_ready = false;
  // lastPodStatus.conditions.deployed (false on the pod's Deleted event).
  bool last_pod_deployed = false;
  std::string host_ip;  // The node (the model's hostIP is the node name).
  friend bool operator==(const Plis&, const Plis&) = default;
};

std::string encode_plis(const Plis& plis);
// nullopt if the ConfigMap has no gitpod/plis annotation or it is malformed.
std::optional<Plis> read_plis(const kube::Object& config_map);

// §8.1 disposalStatus: status "" | started | retrying | finished.
struct DisposalStatus {
  std::string status;
  std::string backup_failure;
  friend bool operator==(const DisposalStatus&, const DisposalStatus&) = default;
};

std::string encode_disposal(const DisposalStatus& disposal);
DisposalStatus read_disposal(const kube::Object& pod);  // Empty when absent.

}  // namespace wsim::gitpod::mk1
