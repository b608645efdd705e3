// Upstream: gitpod-io/gitpod @ 4f45d02eac95 workspace_types.go (phases, conditions, finalizer), mk2
// controllers/create.go (pod name prefix); mk1 pkg/manager/annotations.go @ 724ed7a92a^ and
// c8c4c3bda92c (annotation keys). Status keys of the fake CR are [invented] spellings.
//
// Names shared by every Gitpod component of the model: Workspace CR status keys and condition
// types (docs/systems/gitpod.md §2), pod annotations of mk1 (§7.2, §8.1), labels, finalizer, phases, object
// naming (§1.1). Constants only.
#pragma once

#include <string>
#include <string_view>

namespace wsim::gitpod {

// Namespace every Gitpod object lives in (the model runs one installation).
inline constexpr const char* kNamespace = "gitpod";
inline constexpr const char* kWorkspaceKind = "Workspace";
// GitpodFinalizerName, on the CR and on the pod (mk2) / on the pod (mk1-finalizer).
inline constexpr const char* kFinalizer = "gitpod.io/finalizer";

// Labels.
inline constexpr const char* kLabelWorkspaceId = "gitpod.io/workspaceID";
inline constexpr const char* kLabelInstanceId = "gitpod.io/instanceID";
inline constexpr const char* kLabelComponent = "component";  // "workspace"
inline constexpr const char* kLabelApp = "app";              // "gitpod" (upgrade deletes by it)

// --- mk2 Workspace CR (docs/systems/gitpod.md §2). Spec keys. ---
inline constexpr const char* kSpecWorkspaceId = "ownership.workspaceID";
inline constexpr const char* kSpecOwner = "ownership.owner";
inline constexpr const char* kSpecType = "type";  // Regular | Prebuild | ImageBuild
inline constexpr const char* kSpecTimeoutMs = "timeout.timeMs";

// Status keys (flat map).
inline constexpr const char* kStatusPhase = "phase";
inline constexpr const char* kStatusPodStarts = "podStarts";
inline constexpr const char* kStatusPodRecreated = "podRecreated";
inline constexpr const char* kStatusPodDeletionMs = "podDeletionTimeMs";
inline constexpr const char* kStatusPodStoppingMs = "podStoppingTimeMs";
inline constexpr const char* kStatusUrl = "url";
inline constexpr const char* kStatusOwnerToken = "ownerToken";
inline constexpr const char* kStatusNodeName = "runtime.nodeName";
inline constexpr const char* kStatusPodName = "runtime.podName";
inline constexpr const char* kStatusHostIp = "runtime.hostIP";
inline constexpr const char* kStatusPodIp = "runtime.podIP";
inline constexpr const char* kStatusLastActivityMs = "lastActivityMs";
inline constexpr const char* kStatusGitStatus = "gitStatus";

// Phases (§2.3).
inline constexpr const char* kPhaseUnknown = "Unknown";
inline constexpr const char* kPhasePending = "Pending";
inline constexpr const char* kPhaseCreating = "Creating";
inline constexpr const char* kPhaseInitializing = "Initializing";
inline constexpr const char* kPhaseRunning = "Running";
inline constexpr const char* kPhaseStopping = "Stopping";
inline constexpr const char* kPhaseStopped = "Stopped";

// Condition types (§2.4).
inline constexpr const char* kCondDeployed = "Deployed";
inline constexpr const char* kCondFailed = "Failed";
inline constexpr const char* kCondTimeout = "Timeout";
inline constexpr const char* kCondFirstUserActivity = "FirstUserActivity";
inline constexpr const char* kCondClosed = "Closed";
inline constexpr const char* kCondStoppedByRequest = "StoppedByRequest";
inline constexpr const char* kCondAborted = "Aborted";
inline constexpr const char* kCondContentReady = "ContentReady";
inline constexpr const char* kCondEverReady = "EverReady";
inline constexpr const char* kCondBackupComplete = "BackupComplete";
inline constexpr const char* kCondBackupFailure = "BackupFailure";
inline constexpr const char* kCondRefresh = "Refresh";
inline constexpr const char* kCondNodeDisappeared = "NodeDisappeared";
inline constexpr const char* kCondContainerRunning = "WorkspaceContainerRunning";
inline constexpr const char* kCondPodRejected = "PodRejected";
inline constexpr const char* kCondStateWiped = "StateWiped";
inline constexpr const char* kCondForceKilledTask = "ForceKilledTask";

inline constexpr const char* kReasonInitSuccess = "InitializationSuccess";
inline constexpr const char* kReasonInitFailure = "InitializationFailure";
inline constexpr const char* kReasonTimedOut = "TimedOut";

// Pod status keys written by the kubelet for the "workspace" container (see world/pod_view.h).
inline constexpr const char* kContainerName = "workspace";

// Rejection reasons isPodRejected accepts (§3.4 step 6).
inline constexpr const char* kRejectPrefix = "Pod was rejected";

// --- mk1 annotations (§7.2, §8.1). ---
inline constexpr const char* kAnnId = "gitpod/id";
inline constexpr const char* kAnnNeverReady = "gitpod/never-ready";
inline constexpr const char* kAnnTimedOut = "gitpod/timedout";
inline constexpr const char* kAnnExplicitFail = "gitpod/explicitFail";
inline constexpr const char* kAnnFailedBeforeStopping = "gitpod/failedBeforeStopping";
inline constexpr const char* kAnnPlis = "gitpod/plis";
inline constexpr const char* kAnnDisposalStatus = "gitpod.io/disposalStatus";
inline constexpr const char* kAnnStoppedByRequest = "gitpod.io/stoppedByRequest";
inline constexpr const char* kAnnAbortRequest = "gitpod.io/abortRequest";
inline constexpr const char* kAnnNodeName = "gitpod.io/nodeName";
inline constexpr const char* kAnnAlreadyInitializing = "gitpod.io/alreadyInitializing";
inline constexpr const char* kAnnLastActivityMs = "gitpod/lastActivityMs";

// Object names (§1.1 "ws-<name>"; §7.1 "plis-<id>").
inline std::string pod_name(std::string_view instance) { return "ws-" + std::string(instance); }
inline std::string plis_name(std::string_view instance) { return "plis-" + std::string(instance); }
inline std::string env_secret_name(std::string_view instance) {
  return std::string(instance) + "-env";
}
inline std::string tokens_secret_name(std::string_view instance) {
  return std::string(instance) + "-tokens";
}

}  // namespace wsim::gitpod
