// Upstream: kubernetes/kubernetes pkg/scheduler — [reconstructed] fit rules (nodeSelector,
// cpu/memory, cordon) and the Unschedulable message; candidate choice [invented] (choice stream).
// docs/fidelity.md K10.
//
// Scheduler: binds Pending pods without spec "nodeName" to a node.
//
// A node is a candidate if it is ready (status "ready" == "true"), not cordoned (spec
// "unschedulable" != "true"), matches the pod's spec "nodeSelector" ("k=v,k2=v2" against the
// node's labels) and has room: the pod's requests (spec "cpuMilli", "memoryMiB", default 0) plus
// those of every non-terminal pod bound to it (terminating ones included: they still hold their
// resources) fit the node's status "cpuMilli" / "memoryMiB". The choice among candidates comes
// from the "kube.scheduler" stream; choice 0 is the first candidate in name order. A pod with no
// candidate stays Pending with condition PodScheduled False, reason Unschedulable, and is retried
// when a node or a pod changes. Binding writes spec "nodeName" and PodScheduled True, as
// "scheduler".
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::kube {

struct SchedulerOptions {
  DelayRange step{1, 200};
};

// Resources held on one node.
struct NodeUsage {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
};

// "k=v,k2=v2" (empty = everything) against labels.
bool node_selector_matches(const std::string& selector, const Fields& labels);
// Why `pod` cannot run on `node` given `used`, or "" if it fits. Reasons are the scheduler's
// ("node(s) were unschedulable", "Insufficient cpu", ...).
std::string node_misfit(const Object& node, const NodeUsage& used, const Object& pod);
// Resources held by non-terminal pods bound to each node.
std::map<std::string, NodeUsage> node_usage(const std::vector<const Object*>& pods);
// What one pod adds to its node's usage (node "" when it holds nothing: unbound or terminal).
struct PodUsage {
  std::string node;
  NodeUsage used;
};
PodUsage pod_usage(const Object& pod);

class Scheduler {
 public:
  static constexpr const char* kActor = "scheduler";

  Scheduler(Sim& sim, ApiServer& api, SchedulerOptions options = {});
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void start();

  struct Counters {
    std::uint64_t bound = 0;
    std::uint64_t unschedulable = 0;  // Attempts that found no node.
  };
  const Counters& counters() const { return counters_; }
  // Resources held on each node by the stored pods, as node_usage(every stored pod) gives them
  // (plus zero entries for nodes whose pods all left).
  const std::map<std::string, NodeUsage>& usage() const { return usage_; }

 private:
  void on_pod(const WatchEvent& event);
  void on_node(const WatchEvent& event);
  void enqueue(const ObjectRef& ref);
  void retry_unschedulable();
  void schedule_one(const ObjectRef& ref);
  // Keeps usage_ equal to node_usage() over the stored pods (a kInsideWrite listener).
  void on_stored_pod(const Object* before, const Object* after);

  Sim& sim_;
  ApiServer& api_;
  SchedulerOptions options_;
  ChoiceStream stream_;
  ProbeId probe_unschedulable_ = 0;
  std::set<ObjectRef> queued_;
  std::set<ObjectRef> unschedulable_;
  // node_usage() of every stored pod, kept up to date write by write instead of summed over
  // every pod of the cluster for each pod scheduled (issue 13: quadratic at 1,000 workspaces).
  // A node whose pods all left keeps a zero entry (the same as no entry for node_misfit).
  std::map<std::string, NodeUsage> usage_;
  Counters counters_;
};

}  // namespace wsim::kube
