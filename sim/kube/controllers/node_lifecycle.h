// Upstream: kubernetes/kubernetes pkg/controller/nodelifecycle, pkg/controller/podgc —
// [reconstructed] (NodeLost, orphaned pods); no taint-based eviction. docs/fidelity.md K10.
//
// Node lifecycle: what the node lifecycle controller and the pod garbage collector
// (pkg/controller/nodelifecycle, pkg/controller/podgc) do for pods whose node is gone or down.
//
//  - Node deleted (kubectl delete node): every pod bound to it is marked phase Failed, reason
//    NodeLost, message "node deleted" (condition DisruptionTarget True DeletionByPodGC), then
//    force-deleted (grace 0) and removed once it has no finalizers. A pod with finalizers stays
//    (Get(node) is NotFound meanwhile — docs/systems/gitpod.md §1.7) and is removed here as soon as
//    its owner drops the last finalizer.
//  - Pods bound to a node that does not exist are treated the same way.
//  - Unscheduled pods that are deleted are removed at once (no kubelet ran them).
//  - Node not ready: its pods are marked ready "false" (condition Ready False NodeNotReady); the
//    node's kubelet is paused until the node is ready again.
//  - Heartbeats (docs/fidelity.md K13): a kubelet that stops posting its node status (told by
//    heartbeat()) is noticed by monitorNodeHealth, which runs every monitor_period_ms: once
//    monitor_grace_ms passed since the last status, the node's status "ready" is written "false"
//    (upstream node_lifecycle_controller.go tryUpdateNodeHealth: condition Ready Unknown,
//    reason NodeStatusUnknown, "Kubelet stopped posting node status."), which marks its pods not
//    ready as above (controller_utils.go MarkPodsNotReady). The kubelet itself writes "true"
//    again when it posts once more. [reconstructed]; no taint-based eviction (the
//    node.kubernetes.io/unreachable NoExecute taint evicts only after 300 s of tolerance, and
//    only pods without a longer toleration).
// Steps after delays from the "kube.node_lifecycle" stream, as "node-lifecycle".
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::kube {

struct NodeLifecycleOptions {
  DelayRange step{0, 1000};
  // kube-controller-manager --node-monitor-grace-period (40 s before 1.32, 50 s since) and
  // --node-monitor-period (5 s).
  DurationMs monitor_grace_ms = 40 * kSecondMs;
  DurationMs monitor_period_ms = 5 * kSecondMs;
};

class NodeLifecycleController {
 public:
  static constexpr const char* kActor = "node-lifecycle";

  NodeLifecycleController(Sim& sim, ApiServer& api, NodeLifecycleOptions options = {});
  NodeLifecycleController(const NodeLifecycleController&) = delete;
  NodeLifecycleController& operator=(const NodeLifecycleController&) = delete;

  void start();

  // The kubelet of `node` stopped (posting = false) or resumed posting its node status. A node
  // silent for monitor_grace_ms (noticed at the next monitor period) is written not ready.
  void heartbeat(const std::string& node, bool posting);
  bool silent(const std::string& node) const { return silent_.count(node) > 0; }

  struct Counters {
    std::uint64_t pods_lost = 0;     // Marked Failed/NodeLost.
    std::uint64_t pods_removed = 0;  // Removed by the pod GC (node gone or never scheduled).
    std::uint64_t pods_marked_unready = 0;
    std::uint64_t nodes_marked_not_ready = 0;  // Heartbeats lost for monitor_grace_ms.
  };
  const Counters& counters() const { return counters_; }

 private:
  void on_node(const WatchEvent& event);
  void on_pod(const WatchEvent& event);
  void enqueue_pod(const ObjectRef& ref);
  void enqueue_node(const std::string& node);
  void gc_pod(const ObjectRef& ref);
  void sync_node(const std::string& node);
  // monitorNodeHealth for one silent node: marks it not ready if outage `token` is still on.
  void check_heartbeat(const std::string& node, std::uint64_t token);

  Sim& sim_;
  ApiServer& api_;
  NodeLifecycleOptions options_;
  ChoiceStream stream_;
  ProbeId probe_pod_lost_ = 0;
  ProbeId probe_node_not_ready_ = 0;
  std::map<std::string, std::uint64_t> silent_;  // Node → token of its heartbeat outage.
  std::uint64_t next_token_ = 0;
  std::set<ObjectRef> queued_pods_;
  std::set<std::string> queued_nodes_;
  Counters counters_;
};

}  // namespace wsim::kube
