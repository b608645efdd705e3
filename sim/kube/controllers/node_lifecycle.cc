// See node_lifecycle.h.
#include "sim/kube/controllers/node_lifecycle.h"

#include <vector>

namespace wsim::kube {

namespace {
std::string result_name(const Status& status) {
  return status.ok() ? "ok" : code_name(status.code);
}
}  // namespace

NodeLifecycleController::NodeLifecycleController(Sim& sim, ApiServer& api,
                                                 NodeLifecycleOptions options)
    : sim_(sim), api_(api), options_(options), stream_(sim.stream("kube.node_lifecycle")) {
  probe_pod_lost_ =
      sim.probes().declare("kube.node.pod_lost", "a pod was failed with NodeLost (node deleted)");
  probe_node_not_ready_ = sim.probes().declare(
      "kube.node.not_ready", "a node was marked not ready (its kubelet stopped posting status)");
}

void NodeLifecycleController::start() {
  WSIM_ASSERT_NE(probe_pod_lost_, probe_node_not_ready_);  // Declared by the constructor.
  api_.subscribe("Node", [this](const WatchEvent& event) { on_node(event); });
  api_.subscribe("Pod", [this](const WatchEvent& event) { on_pod(event); });
}

void NodeLifecycleController::heartbeat(const std::string& node, bool posting) {
  WSIM_ASSERT(!node.empty());
  if (posting) {
    silent_.erase(node);
    return;
  }
  if (silent_.count(node) > 0) return;  // Already silent: the first silence counts.
  const std::uint64_t token = ++next_token_;
  silent_[node] = token;
  // The grace period, then the first monitor period that notices it.
  const DurationMs delay_ms =
      options_.monitor_grace_ms + draw_delay(stream_, DelayRange{1, options_.monitor_period_ms});
  sim_.loop().schedule(delay_ms, [this, node, token] { check_heartbeat(node, token); });
  WSIM_ASSERT_EQ(silent_.at(node), token);
}

void NodeLifecycleController::check_heartbeat(const std::string& name, std::uint64_t token) {
  WSIM_ASSERT(!name.empty());
  WSIM_ASSERT_GT(token, 0u);  // heartbeat() hands out tokens from 1.
  auto it = silent_.find(name);
  if (it == silent_.end() || it->second != token) return;  // Posting again (or a newer outage).
  const Object* node = api_.peek(ObjectRefView{"Node", "", name});
  if (node == nullptr || node->status_or("ready", "false") != "true") return;
  MergePatch patch;
  patch.status["ready"] = "false";
  patch.status["readyReason"] = "NodeStatusUnknown";
  const Result<Object> written =
      api_.server_patch(ObjectRef{"Node", "", name}, patch, Subresource::kStatus, kActor);
  ++counters_.nodes_marked_not_ready;
  sim_.probes().hit(probe_node_not_ready_);
  sim_.record(kActor, "mark-not-ready", "Node/" + name, result_name(written.status),
              "Kubelet stopped posting node status.");
}

void NodeLifecycleController::on_node(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Node");
  const std::string& name = event.object.meta.name;
  if (event.type == WatchEventType::kDeleted) {
    for (const Object* pod : api_.peek_list("Pod", "")) {
      if (pod->spec_or("nodeName", "") == name) enqueue_pod(ObjectRef::of(*pod));
    }
    return;
  }
  if (event.object.status_or("ready", "false") != "true") enqueue_node(name);
}

void NodeLifecycleController::on_pod(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Pod");
  if (event.type == WatchEventType::kDeleted) return;
  const Object& pod = event.object;
  const std::string node = pod.spec_or("nodeName", "");
  if (node.empty()) {
    if (is_deleting(pod) && pod.meta.finalizers.empty()) enqueue_pod(ObjectRef::of(pod));
    return;
  }
  if (api_.peek(ObjectRefView{"Node", "", node}) == nullptr) enqueue_pod(ObjectRef::of(pod));
}

void NodeLifecycleController::enqueue_pod(const ObjectRef& ref) {
  WSIM_ASSERT_EQ(ref.kind, "Pod");
  if (!queued_pods_.insert(ref).second) return;
  sim_.loop().schedule(draw_delay(stream_, options_.step), [this, ref] { gc_pod(ref); });
}

void NodeLifecycleController::enqueue_node(const std::string& node) {
  WSIM_ASSERT(!node.empty());
  if (!queued_nodes_.insert(node).second) return;
  sim_.loop().schedule(draw_delay(stream_, options_.step), [this, node] { sync_node(node); });
}

void NodeLifecycleController::gc_pod(const ObjectRef& ref) {
  WSIM_ASSERT_EQ(ref.kind, "Pod");
  queued_pods_.erase(ref);
  const Object* live = api_.peek(ref);
  if (live == nullptr) return;
  const std::string node = live->spec_or("nodeName", "");
  if (!node.empty() && api_.peek(ObjectRefView{"Node", "", node}) != nullptr) return;  // Kubelet's.
  const std::string uid = live->meta.uid;

  if (!node.empty()) {
    if (!pod_is_terminal(*live)) {
      MergePatch patch;
      patch.status = {{"phase", "Failed"},
                      {"reason", "NodeLost"},
                      {"message", "node deleted"},
                      {"ready", "false"}};
      std::vector<Condition> conditions = live->conditions;
      set_condition(conditions,
                    Condition{"DisruptionTarget", "True", "DeletionByPodGC",
                              "PodGC: node no longer exists", 0},
                    sim_.now_ms());
      set_condition(conditions, Condition{"Ready", "False", "NodeLost", "", 0}, sim_.now_ms());
      patch.conditions = conditions;
      const Result<Object> written = api_.server_patch(ref, patch, Subresource::kStatus, kActor);
      ++counters_.pods_lost;
      sim_.probes().hit(probe_pod_lost_);
      sim_.record(kActor, "mark-failed", ref.to_string(), result_name(written.status),
                  "NodeLost: node " + node + " deleted");
    }
    live = api_.peek(ref);
    if (live == nullptr || live->meta.uid != uid) return;
    if (!is_deleting(*live)) {
      DeleteOptions options;
      options.grace_period_ms = 0;
      options.precondition_uid = uid;
      const Status status = api_.server_delete(ref, options, kActor);
      sim_.record(kActor, "delete", ref.to_string(), result_name(status), "orphaned pod (force)");
    }
  }
  live = api_.peek(ref);
  if (live == nullptr || live->meta.uid != uid) {
    ++counters_.pods_removed;
    return;
  }
  if (!is_deleting(*live) || !live->meta.finalizers.empty()) return;  // Waits for the finalizers.
  api_.server_finalize(ref, kActor);
  live = api_.peek(ref);
  if (live == nullptr || live->meta.uid != uid) {
    ++counters_.pods_removed;
    sim_.record(kActor, "remove", ref.to_string(), "ok",
                node.empty() ? "never scheduled" : "node gone");
  }
}

void NodeLifecycleController::sync_node(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  queued_nodes_.erase(name);
  const Object* node = api_.peek(ObjectRefView{"Node", "", name});
  if (node == nullptr || node->status_or("ready", "false") == "true") return;
  std::vector<ObjectRef> pods;
  for (const Object* pod : api_.peek_list("Pod", "")) {
    if (pod->spec_or("nodeName", "") == name && pod_is_ready(*pod))
      pods.push_back(ObjectRef::of(*pod));
  }
  for (const ObjectRef& ref : pods) {
    const Object* pod = api_.peek(ref);
    if (pod == nullptr) continue;
    MergePatch patch;
    patch.status["ready"] = "false";
    std::vector<Condition> conditions = pod->conditions;
    set_condition(conditions, Condition{"Ready", "False", "NodeNotReady", "", 0}, sim_.now_ms());
    patch.conditions = conditions;
    const Result<Object> written = api_.server_patch(ref, patch, Subresource::kStatus, kActor);
    ++counters_.pods_marked_unready;
    sim_.record(kActor, "mark-unready", ref.to_string(), result_name(written.status),
                "node " + name + " not ready");
  }
}

}  // namespace wsim::kube
