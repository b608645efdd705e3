// Not a port: see pod_view.h.
#include "model/gitpod/pod_view.h"

#include <string_view>

#include "sim/core/assert.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::gitpod {

namespace {

ContainerState container_state(const kube::Object& pod) {
  const std::string_view state = pod.status_view("container.state");
  if (state == "waiting") return ContainerState::kWaiting;
  if (state == "running") return ContainerState::kRunning;
  if (state == "terminated") return ContainerState::kTerminated;
  return ContainerState::kNone;
}

}  // namespace

ContainerView workspace_container(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string_view("Pod"));
  ContainerView view;
  view.state = container_state(pod);
  view.reason = pod.status_or("container.reason", "");
  view.exit_code = kube::int_field(pod.status, "container.exitCode", 0);
  view.message = pod.status_or("container.message", "");
  view.ready = pod.status_view("ready") == "true";
  return view;
}

ContainerState workspace_container_state(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string_view("Pod"));
  return container_state(pod);
}

std::string pod_status_phase(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string_view("Pod"));
  return kube::pod_phase(pod);
}

std::string pod_node(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string_view("Pod"));
  return pod.spec_or("nodeName", "");
}

bool pod_deleting(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string_view("Pod"));
  return pod.meta.deletion_ms.has_value();
}

std::string pod_owner(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string_view("Pod"));
  const kube::OwnerReference* owner = kube::controller_of(pod);
  return owner == nullptr ? std::string() : owner->name;
}

bool container_running(const kube::Object& pod) {
  // workspace_container(pod).state without the view's other fields (a hot read in mk2's status).
  WSIM_ASSERT_EQ(pod.kind, std::string_view("Pod"));
  return container_state(pod) == ContainerState::kRunning;
}

}  // namespace wsim::gitpod
