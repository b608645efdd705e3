// Not a port: see pod_view.h.
#include "model/gitpod/pod_view.h"

#include "sim/core/assert.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::gitpod {

ContainerView workspace_container(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  ContainerView view;
  const std::string state = pod.status_or("container.state", "");
  if (state == "waiting") view.state = ContainerState::kWaiting;
  if (state == "running") view.state = ContainerState::kRunning;
  if (state == "terminated") view.state = ContainerState::kTerminated;
  view.reason = pod.status_or("container.reason", "");
  view.exit_code = kube::int_field(pod.status, "container.exitCode", 0);
  view.message = pod.status_or("container.message", "");
  view.ready = pod.status_or("ready", "") == "true";
  return view;
}

std::string pod_status_phase(const kube::Object& pod) { return kube::pod_phase(pod); }

std::string pod_node(const kube::Object& pod) { return pod.spec_or("nodeName", ""); }

bool pod_deleting(const kube::Object& pod) { return pod.meta.deletion_ms.has_value(); }

std::string pod_owner(const kube::Object& pod) {
  const kube::OwnerReference* owner = kube::controller_of(pod);
  return owner == nullptr ? std::string() : owner->name;
}

bool container_running(const kube::Object& pod) {
  return workspace_container(pod).state == ContainerState::kRunning;
}

}  // namespace wsim::gitpod
