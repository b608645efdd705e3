// Not a port: see world.h [invented].
#include "model/gitpod/world/world.h"

#include <algorithm>

#include "model/gitpod/daemon/ws_daemon.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "sim/core/assert.h"

namespace wsim::gitpod {
namespace {

kube::ClusterOptions cluster_options(const Settings& settings) {
  WSIM_ASSERT_GE(settings.nodes, 1);  // Divides below.
  kube::ClusterOptions options;
  options.nodes = settings.nodes;
  if (settings.live_workspaces > 0) {
    // A load shape: nodes sized so the live workspaces fit with half again as headroom (a
    // workspace pod asks 500 mCPU and 1 GiB); the default size below that.
    const std::int64_t per_node = (settings.live_workspaces * 3 / 2) / settings.nodes + 1;
    options.node_cpu_milli = std::max<std::int64_t>(options.node_cpu_milli, per_node * 500);
    options.node_memory_mib = std::max<std::int64_t>(options.node_memory_mib, per_node * 1024);
  }
  options.namespaces = {"default", kNamespace};
  // ws-daemon is up on every node at start: node-labeler has labelled them.
  options.node_labels[kDaemonReadyLabel] = "true";
  // The default interceptor rules inject Conflict on every write verb; Kubernetes answers
  // Conflict only to a write that carries a stale resourceVersion (Update here;
  // docs/systems/gitpod.md §1.3: a merge patch without precondition never conflicts). GitpodWorld
  // installs its own rules.
  options.api.default_fault_rules = false;
  return options;
}

}  // namespace

GitpodWorld::GitpodWorld(Sim& sim, const Versions& versions, const Settings& settings)
    : sim_(sim),
      versions_(versions),
      settings_(settings),
      cluster_(std::make_unique<kube::Cluster>(sim, cluster_options(settings))),
      stream_(sim.stream("gitpod.world")) {
  WSIM_ASSERT_GE(settings.nodes, 1);
  install_fault_rules();
  for (int i = 1; i <= settings.nodes; ++i) {
    const std::string node = "node-" + std::to_string(i);
    content_.add_node(node);
    daemons_[node] = std::make_unique<WsDaemon>(*this, node);
  }
  WSIM_ASSERT_EQ(daemons_.size(), static_cast<std::size_t>(settings.nodes));  // One per node.
}

GitpodWorld::~GitpodWorld() = default;

void GitpodWorld::install_fault_rules() {
  struct Rule {
    const char* fault;
    kube::FaultAction action;
    std::optional<kube::Verb> verb;
  };
  const Rule rules[] = {
      {kube::kFaultConflict, kube::FaultAction::kConflict, kube::Verb::kUpdate},
      {kube::kFaultError5xx, kube::FaultAction::kError5xx, std::nullopt},
      {kube::kFaultThrottle, kube::FaultAction::kThrottle, std::nullopt},
      {kube::kFaultLostRequest, kube::FaultAction::kLoseRequest, std::nullopt},
      {kube::kFaultLostResponse, kube::FaultAction::kLoseResponse, std::nullopt},
  };
  for (const Rule& r : rules) {
    kube::InterceptorRule rule;
    rule.match.verb = r.verb;
    rule.action = r.action;
    rule.fault = r.fault;
    cluster_->api().add_interceptor(rule);
  }
}

void GitpodWorld::start() {
  WSIM_ASSERT(!daemons_.empty());
  cluster_->start();
  cluster_->api().subscribe("Pod", [this](const kube::WatchEvent& event) { on_pod(event); });
  for (auto& [node, daemon] : daemons_) daemon->start();
}

WsDaemon* GitpodWorld::daemon(const std::string& node) {
  auto it = daemons_.find(node);
  if (it == daemons_.end()) return nullptr;
  WSIM_ASSERT_EQ(it->second->node(), node);  // Each daemon is registered under its own node.
  return it->second.get();
}

std::vector<std::string> GitpodWorld::nodes() const { return cluster_->node_names(); }

void GitpodWorld::label_later(const std::string& node, bool ready) {
  WSIM_ASSERT(!node.empty());
  // node-labeler reacts to the ws-daemon pod's readiness after a short delay.
  const DurationMs delay_ms = stream_.range(100, 3000);
  sim_.loop().schedule(delay_ms, [this, node, ready] {
    WsDaemon* d = daemon(node);
    if (d == nullptr || d->up() != ready) return;  // Superseded.
    const kube::Status s = cluster_->label_node(
        node, kDaemonReadyLabel, ready ? std::optional<std::string>("true") : std::nullopt);
    sim_.record("node-labeler", ready ? "label" : "unlabel", "Node/" + node,
                s.ok() ? "ok" : kube::code_name(s.code));
  });
}

void GitpodWorld::daemon_down(const std::string& node) {
  WsDaemon* d = daemon(node);
  if (d == nullptr || !d->up()) return;
  d->stop();
  WSIM_ASSERT(!d->up());
  label_later(node, false);
}

void GitpodWorld::daemon_up(const std::string& node) {
  WsDaemon* d = daemon(node);
  if (d == nullptr || d->up()) return;
  d->start();
  WSIM_ASSERT(d->up());
  label_later(node, true);
}

void GitpodWorld::delete_node(const std::string& node) {
  auto it = daemons_.find(node);
  if (it == daemons_.end()) return;
  it->second->stop();
  retired_daemons_.push_back(std::move(it->second));
  daemons_.erase(it);
  WSIM_ASSERT(daemon(node) == nullptr);  // A deleted node's daemon is never found again.
  content_.delete_node(node);
  const kube::Status s = cluster_->delete_node(node);
  WSIM_ASSERT_MSG(s.ok() || s.is(kube::Code::kNotFound),
                  "delete node " << node << ": " << s.message);
}

kube::Object GitpodWorld::workspace_pod_template(const std::string& instance,
                                                 const std::string& workspace_id) const {
  WSIM_ASSERT(!instance.empty());
  WSIM_ASSERT(!workspace_id.empty());
  kube::Object pod;
  pod.kind = "Pod";
  pod.meta.name = pod_name(instance);
  pod.meta.namespace_ = kNamespace;
  pod.meta.labels[kLabelComponent] = "workspace";
  pod.meta.labels[kLabelApp] = "gitpod";
  pod.meta.labels[kLabelInstanceId] = instance;
  pod.meta.labels[kLabelWorkspaceId] = workspace_id;
  pod.spec["nodeSelector"] = std::string(kDaemonReadyLabel) + "=true";
  pod.spec["readiness"] = "manual";
  pod.spec["terminationGracePeriodMs"] = std::to_string(30 * kMinuteMs);
  pod.spec["restartPolicy"] = "Never";
  pod.spec["cpuMilli"] = "500";
  pod.spec["memoryMiB"] = "1024";
  return pod;
}

void GitpodWorld::content_initialized(const std::string& node, const std::string& instance) {
  WSIM_ASSERT(!node.empty());
  WSIM_ASSERT(content_.session(node, instance) != nullptr);  // Called after the init succeeded.
  const kube::Object* pod =
      cluster_->api().peek(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)});
  if (pod != nullptr && pod_node(*pod) == node) maybe_ready(*pod);
}

void GitpodWorld::maybe_ready(const kube::Object& pod) {
  // The supervisor inside the workspace container reports ready once content init is done.
  const std::string instance = pod.meta.labels.count(kLabelInstanceId) > 0
                                   ? pod.meta.labels.at(kLabelInstanceId)
                                   : std::string();
  if (instance.empty() || pod_deleting(pod) || !container_running(pod)) return;
  if (pod.status_or("ready", "") == "true") return;
  const Session* session = content_.session(pod_node(pod), instance);
  if (session == nullptr || !session->initialized) return;
  const kube::ObjectRef ref = kube::ObjectRef::of(pod);
  const std::string uid = pod.meta.uid;
  WSIM_ASSERT(!uid.empty());
  sim_.loop().schedule(stream_.range(10, 1000), [this, ref, uid] {
    const kube::Object* live = cluster_->api().peek(ref);
    if (live == nullptr || live->meta.uid != uid) return;
    if (!container_running(*live) || live->status_or("ready", "") == "true") return;
    (void)cluster_->set_pod_ready(ref, true);
  });
}

void GitpodWorld::on_pod(const kube::WatchEvent& event) {
  const kube::Object& pod = event.object;
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));  // Subscribed to Pod events only.
  if (pod.meta.namespace_ != kNamespace) return;
  auto component = pod.meta.labels.find(kLabelComponent);
  if (component == pod.meta.labels.end() || component->second != "workspace") return;
  if (event.type == kube::WatchEventType::kAdded && breaker_ &&
      broken_.insert(pod.meta.name).second) {
    cluster_->reject_at_admission(kube::ObjectRef::of(pod), "NodeAffinity");
    sim_.record("breaker", "reject-once", "Pod/" + pod.meta.name, "armed");
  }
  if (event.type != kube::WatchEventType::kDeleted) maybe_ready(pod);
}

}  // namespace wsim::gitpod
