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
// Steps after delays from the "kube.node_lifecycle" stream, as "node-lifecycle".
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::kube {

struct NodeLifecycleOptions {
  DelayRange step{0, 1000};
};

class NodeLifecycleController {
 public:
  static constexpr const char* kActor = "node-lifecycle";

  NodeLifecycleController(Sim& sim, ApiServer& api, NodeLifecycleOptions options = {});
  NodeLifecycleController(const NodeLifecycleController&) = delete;
  NodeLifecycleController& operator=(const NodeLifecycleController&) = delete;

  void start();

  struct Counters {
    std::uint64_t pods_lost = 0;     // Marked Failed/NodeLost.
    std::uint64_t pods_removed = 0;  // Removed by the pod GC (node gone or never scheduled).
    std::uint64_t pods_marked_unready = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  void on_node(const WatchEvent& event);
  void on_pod(const WatchEvent& event);
  void enqueue_pod(const ObjectRef& ref);
  void enqueue_node(const std::string& node);
  void gc_pod(const ObjectRef& ref);
  void sync_node(const std::string& node);

  Sim& sim_;
  ApiServer& api_;
  NodeLifecycleOptions options_;
  ChoiceStream stream_;
  ProbeId probe_pod_lost_ = 0;
  std::set<ObjectRef> queued_pods_;
  std::set<std::string> queued_nodes_;
  Counters counters_;
};

}  // namespace wsim::kube
