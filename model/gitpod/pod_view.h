// Not a port: an adapter from the fake kubelet's pod status keys to what the Gitpod ports read
// ([invented] key names; the rules that read them cite their upstream functions).
//
// How the Gitpod components read a workspace pod written by the fake kubelet
// (sim/kube/controllers/kubelet.h): pod status "phase", "reason", "message", "ready",
// "everReady" and the single container's "container.state" (waiting | running | terminated),
// "container.reason", "container.exitCode", "container.message". The model's pods have one
// container, the "workspace" container of docs/systems/gitpod.md §2.4.
//
// Pure functions on values.
#pragma once

#include <cstdint>
#include <string>

#include "sim/kube/object.h"

namespace wsim::gitpod {

enum class ContainerState { kNone, kWaiting, kRunning, kTerminated };

struct ContainerView {
  ContainerState state = ContainerState::kNone;
  std::string reason;  // Waiting: ContainerCreating / ErrImagePull; terminated: Completed...
  std::int64_t exit_code = 0;
  std::string message;
  bool ready = false;
};

ContainerView workspace_container(const kube::Object& pod);
// workspace_container(pod).state alone (one lookup, no strings copied).
ContainerState workspace_container_state(const kube::Object& pod);
std::string pod_status_phase(const kube::Object& pod);  // "Pending" when unset.
std::string pod_node(const kube::Object& pod);          // spec nodeName, "" when unbound.
bool pod_deleting(const kube::Object& pod);
// The controller owner's name (the Workspace CR), "" if none.
std::string pod_owner(const kube::Object& pod);
// The workspace container runs (WorkspaceContainerRunning, §3.4 step 9).
bool container_running(const kube::Object& pod);

}  // namespace wsim::gitpod
