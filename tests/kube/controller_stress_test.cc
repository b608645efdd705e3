// Randomised runs of the whole Cluster: a kubectl-like workload (scale, template changes,
// namespace deletion and re-creation, cordon, node readiness flaps, node deletion, pod rejection,
// container exits) under the cluster's fault points, then heal and settle; the cluster must
// converge (heal-then-converge, docs/architecture.md §5) and never trip a harness assertion.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/cluster.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::kube {
namespace {

constexpr int kNamespaces = 4;

Object deployment(const std::string& ns) {
  Object d;
  d.kind = "Deployment";
  d.meta.namespace_ = ns;
  d.meta.name = "ws";
  d.spec["replicas"] = "1";
  d.spec["template.labels.app"] = "ws";
  d.spec["template.spec.cpuMilli"] = "500";
  d.spec["template.spec.memoryMiB"] = "512";
  d.spec["template.spec.terminationGracePeriodMs"] = "30000";
  return d;
}

Object namespace_object(const std::string& name) {
  Object ns;
  ns.kind = "Namespace";
  ns.meta.name = name;
  return ns;
}

struct Outcome {
  std::uint64_t fingerprint = 0;
  std::vector<std::string> problems;
};

Outcome run_seed(std::uint64_t seed) {
  Outcome out;
  Sim sim(ChoiceSource::from_seed(seed));
  ClusterOptions options;
  options.nodes = 3;
  Cluster cluster(sim, options);
  FaultId reject;
  FaultId slow;
  EXPECT_TRUE(sim.faults().find("kube.kubelet.reject", reject));
  EXPECT_TRUE(sim.faults().find("kube.namespace.slow_termination", slow));
  sim.faults().force(reject, true, Ratio{1, 4});
  sim.faults().force(slow, true, Ratio{1, 2});
  sim.faults().draw_swarm(sim.stream("test.swarm"));
  cluster.start();
  ApiServer& api = cluster.api();

  std::vector<std::string> names;
  for (int i = 0; i < kNamespaces; ++i) {
    names.push_back("ns-" + std::to_string(i));
    EXPECT_TRUE(cluster.create(namespace_object(names.back())).ok());
    EXPECT_TRUE(cluster.create(deployment(names.back())).ok());
  }

  ChoiceStream workload = sim.stream("test.workload");
  bool node3_deleted = false;
  for (int step = 0; step < 60; ++step) {
    sim.loop().run_until(sim.now_ms() + workload.range(0, 20 * kSecondMs));
    const std::string& ns = names[workload.below(names.size())];
    const ObjectRef dref{"Deployment", ns, "ws"};
    const Object* ns_object = api.peek(ObjectRef{"Namespace", "", ns});
    switch (workload.below(10)) {
      case 0:
      case 1:
        cluster.scale(dref, static_cast<std::int64_t>(workload.below(2)));
        break;
      case 2: {
        MergePatch patch;
        patch.spec["template.labels.rev"] = std::to_string(step);
        api.server_patch(dref, patch, Subresource::kMain, "test");
        break;
      }
      case 3:
        if (ns_object == nullptr) {
          cluster.create(namespace_object(ns));
          cluster.create(deployment(ns));
        } else {
          cluster.remove(ObjectRef{"Namespace", "", ns});
        }
        break;
      case 4:
        if (workload.below(2) == 0) {
          cluster.cordon("node-2");
        } else {
          cluster.uncordon("node-2");
        }
        break;
      case 5:
        cluster.set_node_ready("node-2", workload.below(2) == 0);
        break;
      case 6:
        if (!node3_deleted) {
          node3_deleted = true;
          EXPECT_TRUE(cluster.delete_node("node-3").ok());
        }
        break;
      case 7:
      case 8:
      case 9: {
        std::vector<ObjectRef> running;
        for (const Object* pod : api.peek_list("Pod", ns)) {
          if (pod_phase(*pod) == "Running" && !is_deleting(*pod))
            running.push_back(ObjectRef::of(*pod));
        }
        if (running.empty()) break;
        const ObjectRef pod = running[workload.below(running.size())];
        const std::uint64_t what = workload.below(3);
        if (what == 0) {
          cluster.reject_running(pod, "OutOfcpu");
        } else if (what == 1) {
          cluster.exit_container(pod, 1);
        } else {
          cluster.remove(pod);
        }
        break;
      }
    }
  }

  // Heal, then settle.
  sim.faults().heal();
  cluster.uncordon("node-2");
  cluster.set_node_ready("node-2", true);
  sim.loop().run_until(sim.now_ms() + 30 * kMinuteMs);

  auto problem = [&](std::string what) { out.problems.push_back(std::move(what)); };
  for (const Object* ns : api.peek_list("Namespace", "")) {
    if (is_deleting(*ns)) problem("namespace still terminating: " + ns->meta.name);
  }
  for (const Object* d : api.peek_list("Deployment", "")) {
    const std::string where = ObjectRef::of(*d).to_string();
    const std::string replicas = d->spec_or("replicas", "1");
    if (d->status_or("observedGeneration", "") != std::to_string(d->meta.generation)) {
      problem(where + ": observedGeneration behind");
    }
    if (d->status_or("availableReplicas", "") != replicas) problem(where + ": not available");
    if (d->status_or("unavailableReplicas", "") != "0") problem(where + ": unavailable replicas");
    const Condition* p = d->condition("Progressing");
    const Condition* a = d->condition("Available");
    if (p == nullptr || p->reason != "NewReplicaSetAvailable")
      problem(where + ": rollout incomplete");
    if (a == nullptr || a->reason != "MinimumReplicasAvailable")
      problem(where + ": not MinimumReplicasAvailable");
    std::int64_t active = 0;
    for (const Object* pod : api.peek_list("Pod", d->meta.namespace_)) {
      if (pod_is_active(*pod)) ++active;
    }
    if (std::to_string(active) != replicas)
      problem(where + ": " + std::to_string(active) + " active pods");
  }
  for (const Object* pod : api.peek_list("Pod", "")) {
    const std::string where = ObjectRef::of(*pod).to_string();
    if (is_deleting(*pod)) problem(where + ": still deleting");
    const std::string node = pod->spec_or("nodeName", "");
    if (node.empty()) {
      problem(where + ": unscheduled");
    } else if (api.peek(ObjectRef{"Node", "", node}) == nullptr) {
      problem(where + ": bound to missing " + node);
    }
    if (pod_phase(*pod) == "Running" && !pod_is_ready(*pod))
      problem(where + ": running, not ready");
  }
  out.fingerprint = sim.fingerprint();
  return out;
}

TEST(ControllerStress, RandomWorkloadsConvergeAfterHeal) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Outcome outcome = run_seed(seed);
    for (const std::string& p : outcome.problems) ADD_FAILURE() << "seed " << seed << ": " << p;
  }
}

TEST(ControllerStress, RandomWorkloadIsDeterministic) {
  const Outcome a = run_seed(7);
  const Outcome b = run_seed(7);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_NE(a.fingerprint, run_seed(8).fingerprint);
}

}  // namespace
}  // namespace wsim::kube
