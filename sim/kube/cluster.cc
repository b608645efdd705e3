// Cluster (cluster.h): builds the fake API server and its controllers, registers nodes and runs
// the kubectl-like node, object and pod actions.
#include "sim/kube/cluster.h"

#include <algorithm>
#include <utility>

namespace wsim::kube {

Cluster::Cluster(Sim& sim, ClusterOptions options)
    : sim_(sim),
      options_(std::move(options)),
      api_(std::make_unique<ApiServer>(sim, options_.api)),
      conformance_(std::make_unique<ConformanceMonitor>(sim, *api_)),
      kubelet_shared_(std::make_unique<KubeletShared>(sim, options_.kubelet)),
      namespace_controller_(
          std::make_unique<NamespaceController>(sim, *api_, options_.namespace_controller)),
      garbage_collector_(
          std::make_unique<GarbageCollector>(sim, *api_, options_.garbage_collector)),
      deployment_controller_(
          std::make_unique<DeploymentController>(sim, *api_, options_.deployment_controller)),
      scheduler_(std::make_unique<Scheduler>(sim, *api_, options_.scheduler)),
      node_lifecycle_(
          std::make_unique<NodeLifecycleController>(sim, *api_, options_.node_lifecycle)),
      not_ready_stream_(sim.stream("kube.fault.node_not_ready")) {
  not_ready_fault_ = sim.faults().declare(
      "kube.node.not_ready", "a node's kubelet stops posting status for a while (NotReady)",
      options_.not_ready_enable, options_.not_ready_fire, SwarmStream::kSecond);
  // The cluster is built before anything is stored (the conformance monitor sees every change).
  WSIM_ASSERT_EQ(api_->object_count(), 0u);
}

Cluster::~Cluster() = default;

void Cluster::start() {
  WSIM_ASSERT_MSG(!started_, "Cluster::start called twice");
  started_ = true;
  // Kubelets first: a node's kubelet sees its pods before the other controllers act on them.
  api_->subscribe("Pod", [this](const WatchEvent& event) { dispatch_pod(event); });
  api_->subscribe("Node", [this](const WatchEvent& event) { dispatch_node(event); });
  namespace_controller_->start();
  garbage_collector_->start();
  deployment_controller_->start();
  scheduler_->start();
  node_lifecycle_->start();

  for (int i = 1; i <= options_.nodes; ++i) {
    const Status status = add_node("node-" + std::to_string(i), options_.node_cpu_milli,
                                   options_.node_memory_mib, options_.node_labels);
    WSIM_ASSERT_MSG(status.ok(), "registering node-" << i << ": " << status.message);
  }
  for (const std::string& name : options_.namespaces) {
    Object ns;
    ns.kind = "Namespace";
    ns.meta.name = name;
    const Result<Object> created = api_->server_create(ns, "cluster");
    WSIM_ASSERT_MSG(created.ok(), "creating namespace " << name << ": " << created.status.message);
  }
}

Status Cluster::add_node(const std::string& name, std::int64_t cpu_milli, std::int64_t memory_mib,
                         std::map<std::string, std::string> labels) {
  WSIM_ASSERT(!name.empty());
  if (auto it = kubelets_.find(name); it != kubelets_.end()) {
    if (!it->second->stopped())
      return Status::Error(Code::kAlreadyExists, "node " + name + " exists");
    retired_kubelets_.push_back(std::move(it->second));
    kubelets_.erase(it);
  }
  auto kubelet = std::make_unique<Kubelet>(sim_, *api_, *kubelet_shared_, name);
  Kubelet* raw = kubelet.get();
  kubelets_.emplace(name, std::move(kubelet));
  Object node;
  node.kind = "Node";
  node.meta.name = name;
  node.meta.labels = std::move(labels);
  node.meta.labels["kubernetes.io/hostname"] = name;
  node.status["cpuMilli"] = std::to_string(cpu_milli);
  node.status["memoryMiB"] = std::to_string(memory_mib);
  node.status["ready"] = "true";
  const Result<Object> created = api_->server_create(node, raw->actor());
  sim_.record(raw->actor(), "register", "Node/" + name,
              created.ok() ? "ok" : code_name(created.status.code),
              "cpuMilli=" + std::to_string(cpu_milli) + " memoryMiB=" + std::to_string(memory_mib));
  if (!created.ok()) {
    kubelets_.erase(name);
    return created.status;
  }
  // server_create may drop status on create (like the real API server): set it explicitly.
  if (created.value.status != node.status) {
    MergePatch patch;
    for (const auto& [key, value] : node.status) patch.status[key] = value;
    const Result<Object> written =
        api_->server_patch(ObjectRef{"Node", "", name}, patch, Subresource::kStatus, raw->actor());
    if (!written.ok()) return written.status;
  }
  return Status::Ok();
}

Status Cluster::delete_node(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  const Status status = api_->server_delete(ObjectRef{"Node", "", name}, DeleteOptions{}, kKubectl);
  if (status.ok()) ++nodes_deleted_;
  sim_.record(kKubectl, "delete-node", "Node/" + name, status.ok() ? "ok" : code_name(status.code));
  return status;
}

Status Cluster::patch_node(const std::string& name, MergePatch patch, Subresource subresource,
                           const char* verb, const std::string& detail) {
  WSIM_ASSERT(!name.empty());
  WSIM_ASSERT(verb != nullptr);
  const Status status =
      api_->server_patch(ObjectRef{"Node", "", name}, patch, subresource, kKubectl).status;
  sim_.record(kKubectl, verb, "Node/" + name, status.ok() ? "ok" : code_name(status.code), detail);
  return status;
}

Status Cluster::cordon(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  MergePatch patch;
  patch.spec["unschedulable"] = "true";
  return patch_node(name, std::move(patch), Subresource::kMain, "cordon", "");
}

Status Cluster::uncordon(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  MergePatch patch;
  patch.spec["unschedulable"] = std::nullopt;
  return patch_node(name, std::move(patch), Subresource::kMain, "uncordon", "");
}

Status Cluster::set_node_ready(const std::string& name, bool ready) {
  WSIM_ASSERT(!name.empty());
  MergePatch patch;
  patch.status["ready"] = ready ? "true" : "false";
  return patch_node(name, std::move(patch), Subresource::kStatus, "set-ready",
                    ready ? "ready" : "not ready");
}

Status Cluster::stop_node_heartbeats(const std::string& name, DurationMs window_ms) {
  WSIM_ASSERT(!name.empty());
  WSIM_ASSERT_GE(window_ms, 0);
  Kubelet* k = kubelet(name);
  if (k == nullptr) return Status::Error(Code::kNotFound, "node " + name + " has no kubelet");
  if (!k->posting()) return Status::Ok();  // Already silent: its own window ends it.
  ++heartbeat_outages_;
  sim_.record(k->actor(), "stop-posting", "Node/" + name, "ok",
              "silent for " + std::to_string(window_ms / kSecondMs) + " s");
  k->set_posting(false);
  node_lifecycle_->heartbeat(name, false);
  sim_.loop().schedule(window_ms, [this, name] {
    Kubelet* again = kubelet(name);  // nullptr if the node was deleted meanwhile.
    node_lifecycle_->heartbeat(name, true);
    if (again == nullptr) return;
    sim_.record(again->actor(), "resume-posting", "Node/" + name, "ok");
    again->set_posting(true);
  });
  return Status::Ok();
}

bool Cluster::node_not_ready_fault(const std::string& node) {
  if (!sim_.faults().fires(not_ready_fault_, not_ready_stream_)) return false;
  std::string target = node;
  if (target.empty()) {
    const std::vector<std::string> names = node_names();
    if (names.empty()) return true;
    target = names[not_ready_stream_.below(names.size())];
  }
  WSIM_ASSERT(!target.empty());
  (void)stop_node_heartbeats(target, draw_delay(not_ready_stream_, options_.not_ready_window));
  return true;
}

Status Cluster::label_node(const std::string& name, const std::string& key,
                           std::optional<std::string> value) {
  WSIM_ASSERT(!key.empty());
  MergePatch patch;
  const std::string detail = value ? key + "=" + *value : "-" + key;
  patch.labels[key] = std::move(value);
  return patch_node(name, std::move(patch), Subresource::kMain, "label", detail);
}

std::vector<std::string> Cluster::node_names() const {
  std::vector<std::string> names;
  for (const Object* node : api_->peek_list("Node", "")) names.push_back(node->meta.name);
  WSIM_ASSERT(std::is_sorted(names.begin(), names.end()));  // Nodes are cluster-scoped: by name.
  return names;
}

Kubelet* Cluster::kubelet(const std::string& node) {
  auto it = kubelets_.find(node);
  if (it == kubelets_.end() || it->second->stopped()) return nullptr;
  WSIM_ASSERT_EQ(it->second->node(), node);  // The kubelet found runs the asked node.
  return it->second.get();
}

void Cluster::dispatch_pod(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Pod");
  const std::string node = event.object.spec_or("nodeName", "");
  if (node.empty()) return;
  if (Kubelet* k = kubelet(node)) k->on_pod(event);
}

void Cluster::dispatch_node(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Node");
  auto it = kubelets_.find(event.object.meta.name);
  if (it == kubelets_.end()) return;
  if (event.type == WatchEventType::kDeleted) {
    it->second->stop();
  } else {
    it->second->on_node(event.object);
  }
}

Result<Object> Cluster::create(Object object) {
  Result<Object> created = api_->server_create(std::move(object), kKubectl);
  if (created.ok()) WSIM_ASSERT_EQ(created.value.meta.generation, 1);  // A new object.
  return created;
}

Status Cluster::remove(const ObjectRef& ref, DeleteOptions options) {
  WSIM_ASSERT(!ref.kind.empty());
  const Status status = api_->server_delete(ref, options, kKubectl);
  sim_.record(kKubectl, "delete", ref.to_string(), status.ok() ? "ok" : code_name(status.code));
  return status;
}

Result<Object> Cluster::scale(const ObjectRef& deployment, std::int64_t replicas) {
  WSIM_ASSERT_EQ(deployment.kind, "Deployment");
  MergePatch patch;
  patch.spec["replicas"] = std::to_string(replicas);
  Result<Object> result = api_->server_patch(deployment, patch, Subresource::kMain, kKubectl);
  sim_.record(kKubectl, "scale", deployment.to_string(),
              result.ok() ? "ok" : code_name(result.status.code),
              "replicas=" + std::to_string(replicas));
  return result;
}

Kubelet* Cluster::kubelet_of(const ObjectRef& pod) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  const Object* live = api_->peek(pod);
  if (live == nullptr) return nullptr;
  return kubelet(live->spec_or("nodeName", ""));
}

void Cluster::reject_at_admission(const ObjectRef& pod, std::string reason) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  kubelet_shared_->reject_at_admission[pod] = std::move(reason);
}

Status Cluster::reject_running(const ObjectRef& pod, const std::string& reason) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  Kubelet* k = kubelet_of(pod);
  if (k == nullptr) return Status::Error(Code::kNotFound, pod.to_string() + " runs on no kubelet");
  return k->reject_running(pod, reason);
}

Status Cluster::exit_container(const ObjectRef& pod, int exit_code, const std::string& message) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  Kubelet* k = kubelet_of(pod);
  if (k == nullptr) return Status::Error(Code::kNotFound, pod.to_string() + " runs on no kubelet");
  return k->exit_container(pod, exit_code, message);
}

Status Cluster::set_pod_ready(const ObjectRef& pod, bool ready) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  Kubelet* k = kubelet_of(pod);
  if (k == nullptr) return Status::Error(Code::kNotFound, pod.to_string() + " runs on no kubelet");
  return k->set_ready(pod, ready);
}

ClusterCounters Cluster::counters() const {
  ClusterCounters c;
  c.namespaces = namespace_controller_->counters();
  c.garbage_collector = garbage_collector_->counters();
  c.deployments = deployment_controller_->counters();
  c.scheduler = scheduler_->counters();
  c.kubelets = kubelet_shared_->counters;
  c.node_lifecycle = node_lifecycle_->counters();
  c.nodes_deleted = nodes_deleted_;
  c.heartbeat_outages = heartbeat_outages_;
  return c;
}

}  // namespace wsim::kube
