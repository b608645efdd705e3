// Cluster: the fake Kubernetes as one piece — an ApiServer, the built-in controllers (namespace
// lifecycle, garbage collector, deployments, scheduler, node lifecycle), one kubelet per node,
// and the kubectl-like actions a harness or model needs (delete a node, cordon, scale, reject a
// pod, make a container exit).
//
//   Sim sim(ChoiceSource::from_seed(7));
//   Cluster cluster(sim, ClusterOptions{.nodes = 2});
//   cluster.start();                       // nodes node-1, node-2; namespace "default"
//   Client agent = cluster.client("agentk");
//   ... sim.loop().run_until(10 * kSecondMs);
//
// Controllers react to server-side subscriptions and act in steps scheduled on the event loop,
// with delays from named choice streams (choice 0 = shortest delay, no fault). Fault points
// declared at construction: kube.namespace.slow_termination, kube.kubelet.reject, and
// kube.node.not_ready (on the second swarm stream, sim/core/fault.h), which a system's fault actor
// evaluates through node_not_ready_fault().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/conformance.h"
#include "sim/kube/controllers/deployment_controller.h"
#include "sim/kube/controllers/garbage_collector.h"
#include "sim/kube/controllers/kubelet.h"
#include "sim/kube/controllers/namespace_controller.h"
#include "sim/kube/controllers/node_lifecycle.h"
#include "sim/kube/controllers/scheduler.h"

namespace wsim::kube {

struct ClusterOptions {
  int nodes = 1;  // node-1 .. node-N
  std::int64_t node_cpu_milli = 4000;
  std::int64_t node_memory_mib = 16384;
  std::map<std::string, std::string> node_labels;  // On every node created by start().
  std::vector<std::string> namespaces = {"default"};
  ApiServerOptions api;
  NamespaceControllerOptions namespace_controller;
  GarbageCollectorOptions garbage_collector;
  DeploymentControllerOptions deployment_controller;
  SchedulerOptions scheduler;
  KubeletOptions kubelet;
  NodeLifecycleOptions node_lifecycle;
  // Fault point kube.node.not_ready: per-run enable, per-evaluation fire, and the silence drawn.
  Ratio not_ready_enable{1, 6};
  Ratio not_ready_fire{1, 20};
  DelayRange not_ready_window{10 * kSecondMs, 5 * kMinuteMs};
};

// Every controller's counters, for invariants and tests.
struct ClusterCounters {
  NamespaceController::Counters namespaces;
  GarbageCollector::Counters garbage_collector;
  DeploymentController::Counters deployments;
  Scheduler::Counters scheduler;
  KubeletShared::Counters kubelets;
  NodeLifecycleController::Counters node_lifecycle;
  std::uint64_t nodes_deleted = 0;
  std::uint64_t heartbeat_outages = 0;  // stop_node_heartbeats() that took effect.
};

class Cluster {
 public:
  static constexpr const char* kKubectl = "kubectl";

  // Builds the server and the controllers and declares their fault points (before the run draws
  // its swarm). Nothing is written before start().
  Cluster(Sim& sim, ClusterOptions options = {});
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Subscribes the controllers, registers the nodes and creates the namespaces. Once.
  void start();

  Sim& sim() { return sim_; }
  ApiServer& api() { return *api_; }
  const ClusterOptions& options() const { return options_; }
  Client client(std::string identity) { return api_->client(std::move(identity)); }

  // --- Nodes (kubectl / cloud provider). ---
  // Registers a node (as kubelet/<name>), ready, with the given capacity and labels.
  Status add_node(const std::string& name, std::int64_t cpu_milli, std::int64_t memory_mib,
                  std::map<std::string, std::string> labels = {});
  // kubectl delete node: the node object goes, its kubelet stops, its pods are failed (NodeLost)
  // and removed by the node lifecycle controller.
  Status delete_node(const std::string& name);
  Status cordon(const std::string& name);  // spec unschedulable=true
  Status uncordon(const std::string& name);
  Status set_node_ready(const std::string& name, bool ready);
  // The node's kubelet stops posting status for `window_ms` (hung, or cut off from the API
  // server), then posts again (docs/fidelity.md K13): its pending steps park at once; after the
  // node monitor grace period the node lifecycle controller marks the node and its pods not
  // ready; at the end the kubelet writes the node ready and resumes. NotFound for a node without
  // a running kubelet; a node already silent stays silent until its first window ends.
  Status stop_node_heartbeats(const std::string& name, DurationMs window_ms);
  // Evaluates the fault point kube.node.not_ready once (a system's fault actor calls it per
  // step); if it fires, stop_node_heartbeats(node, a window drawn from not_ready_window) on
  // `node`, or on a live node drawn if `node` is empty. Returns true if it fired.
  bool node_not_ready_fault(const std::string& node = "");
  // Sets (value) or removes (nullopt) a node label, e.g. Gitpod's ws-daemon readiness label.
  Status label_node(const std::string& name, const std::string& key,
                    std::optional<std::string> value);
  std::vector<std::string> node_names() const;  // Sorted; live nodes only.
  Kubelet* kubelet(const std::string& node);    // nullptr if the node has no running kubelet.

  // --- kubectl-like object actions (synchronous, actor "kubectl"). ---
  Result<Object> create(Object object);
  Status remove(const ObjectRef& ref, DeleteOptions options = {});
  Result<Object> scale(const ObjectRef& deployment, std::int64_t replicas);

  // --- Pod-level actions for models and tests. ---
  // The kubelet rejects pod `pod` (by namespace/name, now or later created) at its next
  // admission; reason "" = drawn from NodeAffinity/OutOfcpu/OutOfmemory.
  void reject_at_admission(const ObjectRef& pod, std::string reason = "");
  // Rejects a pod whose container runs (the #20372 case: after EverReady).
  Status reject_running(const ObjectRef& pod, const std::string& reason);
  // The pod's container exits with `exit_code`.
  Status exit_container(const ObjectRef& pod, int exit_code, const std::string& message = "");
  // Readiness of a running container (for pods with spec readiness=manual).
  Status set_pod_ready(const ObjectRef& pod, bool ready);

  // --- Controllers and counters. ---
  NamespaceController& namespace_controller() { return *namespace_controller_; }
  GarbageCollector& garbage_collector() { return *garbage_collector_; }
  DeploymentController& deployment_controller() { return *deployment_controller_; }
  Scheduler& scheduler() { return *scheduler_; }
  NodeLifecycleController& node_lifecycle() { return *node_lifecycle_; }
  ClusterCounters counters() const;
  // The world's own runtime oracles (kube.S*/kube.L*), observing every write since construction.
  ConformanceMonitor& conformance() { return *conformance_; }

 private:
  void dispatch_pod(const WatchEvent& event);
  void dispatch_node(const WatchEvent& event);
  Kubelet* kubelet_of(const ObjectRef& pod);
  Status patch_node(const std::string& name, MergePatch patch, Subresource subresource,
                    const char* verb, const std::string& detail);

  Sim& sim_;
  ClusterOptions options_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<ConformanceMonitor> conformance_;
  std::unique_ptr<KubeletShared> kubelet_shared_;
  std::unique_ptr<NamespaceController> namespace_controller_;
  std::unique_ptr<GarbageCollector> garbage_collector_;
  std::unique_ptr<DeploymentController> deployment_controller_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<NodeLifecycleController> node_lifecycle_;
  std::map<std::string, std::unique_ptr<Kubelet>> kubelets_;  // By node name.
  std::vector<std::unique_ptr<Kubelet>> retired_kubelets_;    // Of deleted nodes.
  std::uint64_t nodes_deleted_ = 0;
  std::uint64_t heartbeat_outages_ = 0;
  ChoiceStream not_ready_stream_;  // "kube.fault.node_not_ready": the fault, its node and window.
  FaultId not_ready_fault_ = 0;
  bool started_ = false;
};

}  // namespace wsim::kube
