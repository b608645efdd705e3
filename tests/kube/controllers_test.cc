// Tests of the built-in controllers (sim/kube/controllers) and the Cluster that wires them: one or
// more per row of the "Controllers" section of sim/kube/README.md. Pure status / placement logic
// is tested as functions; behaviour through a Cluster driven on the event loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/cluster.h"
#include "sim/kube/controllers/controller_util.h"
#include "sim/kube/controllers/deployment_controller.h"
#include "sim/kube/controllers/kubelet.h"
#include "sim/kube/controllers/scheduler.h"

namespace wsim::kube {
namespace {

// --- Builders ---

Object make_object(const std::string& kind, const std::string& ns, const std::string& name) {
  Object o;
  o.kind = kind;
  o.meta.namespace_ = ns;
  o.meta.name = name;
  return o;
}

Object make_deployment(const std::string& ns, const std::string& name, int replicas) {
  Object d = make_object("Deployment", ns, name);
  d.spec["replicas"] = std::to_string(replicas);
  d.spec["template.labels.app"] = name;
  return d;
}

Object make_pod(const std::string& ns, const std::string& name) {
  Object p = make_object("Pod", ns, name);
  p.spec["cpuMilli"] = "100";
  p.spec["memoryMiB"] = "128";
  return p;
}

// The deployment rules of GitLab's ActualStateCalculator (docs/systems/gitlab.md §4.3), to
// check that the controller's writes drive it through the expected states.
std::string gitlab_state(const Object& d) {
  const Condition* progressing = d.condition("Progressing");
  if (progressing == nullptr || progressing->reason.empty() || d.spec.count("replicas") == 0) {
    return "Unknown";
  }
  const std::int64_t replicas = int_field(d.spec, "replicas", -1);
  const std::string& reason = progressing->reason;
  if (reason == "ProgressDeadlineExceeded") return "Failed";
  if (reason == "NewReplicaSetCreated" || reason == "FoundNewReplicaSet" ||
      reason == "ReplicaSetUpdated") {
    if (replicas == 0) return "Stopping";
    if (replicas == 1) return "Starting";
  }
  const std::int64_t avail = int_field(d.status, "availableReplicas", 0);
  const std::int64_t unavail = int_field(d.status, "unavailableReplicas", 0);
  const Condition* available = d.condition("Available");
  if (available == nullptr || available->reason.empty()) return "Unknown";
  if (reason == "NewReplicaSetAvailable") {
    const std::string& a = available->reason;
    if (a == "MinimumReplicasAvailable" && replicas == 0 && avail == 0) return "Stopped";
    if (a == "MinimumReplicasAvailable" && replicas == avail && unavail == 0) return "Running";
    if (a == "MinimumReplicasAvailable" && replicas == 0 && avail == 1) return "Stopping";
    if ((a == "MinimumReplicasAvailable" || a == "MinimumReplicasUnavailable") && replicas == 1 &&
        avail == 0) {
      return "Starting";
    }
  }
  return "Unknown";
}

// --- Fixture: a Sim and a started Cluster ---

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {}

  void boot(ClusterOptions options = {}, std::uint64_t seed = 1) {
    cluster_.reset();
    sim_.emplace(ChoiceSource::from_seed(seed));
    cluster_.emplace(*sim_, std::move(options));
    cluster_->start();
  }
  // Every choice 0: shortest delays, no faults, first candidate.
  void boot_zero(ClusterOptions options = {}) {
    cluster_.reset();
    sim_.emplace(ChoiceSource::from_tape({}));
    cluster_.emplace(*sim_, std::move(options));
    cluster_->start();
  }

  Sim& sim() { return *sim_; }
  Cluster& cluster() { return *cluster_; }
  ApiServer& api() { return cluster_->api(); }
  void advance(DurationMs ms) { sim_->loop().run_until(sim_->now_ms() + ms); }
  // Runs until `done` holds (checked after every event) or `limit_ms` passes; returns done().
  template <typename F>
  bool run_until(F done, DurationMs limit_ms = 10 * kMinuteMs) {
    const TimeMs until = sim_->now_ms() + limit_ms;
    while (!done()) {
      if (sim_->loop().pending_events() == 0) return done();
      if (!sim_->loop().step()) return done();
      if (sim_->now_ms() > until) return done();
    }
    return true;
  }
  const Object* get(const std::string& kind, const std::string& ns, const std::string& name) {
    return api().peek(ObjectRef{kind, ns, name});
  }
  Object must_create(Object o) {
    Result<Object> r = cluster_->create(std::move(o));
    EXPECT_TRUE(r.ok()) << r.status.message;
    return r.value;
  }
  std::vector<Object> pods_in(const std::string& ns) {
    std::vector<Object> out;
    for (const Object* p : api().peek_list("Pod", ns)) out.push_back(*p);
    return out;
  }
  std::optional<Object> only_pod(const std::string& ns) {
    auto pods = pods_in(ns);
    if (pods.size() != 1) return std::nullopt;
    return pods[0];
  }

  std::optional<Sim> sim_;
  std::optional<Cluster> cluster_;
};

// ============================ Pure logic ============================

TEST(ControllerUtil, SetConditionFollowsKubernetesSemantics) {
  std::vector<Condition> conditions;
  EXPECT_TRUE(set_condition(conditions, Condition{"Ready", "False", "A", "", 0}, 100));
  EXPECT_EQ(conditions.at(0).last_transition_ms, 100);
  // Same status and reason: untouched.
  EXPECT_FALSE(set_condition(conditions, Condition{"Ready", "False", "A", "other", 0}, 200));
  EXPECT_EQ(conditions.at(0).message, "");
  // Same status, new reason: replaced, transition time kept.
  EXPECT_TRUE(set_condition(conditions, Condition{"Ready", "False", "B", "", 0}, 300));
  EXPECT_EQ(conditions.at(0).reason, "B");
  EXPECT_EQ(conditions.at(0).last_transition_ms, 100);
  // Status flips: new transition time.
  EXPECT_TRUE(set_condition(conditions, Condition{"Ready", "True", "", "", 0}, 400));
  EXPECT_EQ(conditions.at(0).last_transition_ms, 400);
  EXPECT_EQ(conditions.size(), 1u);
  EXPECT_EQ(int_field({{"n", "-42"}}, "n", 7), -42);
  EXPECT_EQ(int_field({{"n", "4x"}}, "n", 7), 7);
  EXPECT_EQ(int_field({}, "n", 7), 7);
}

TEST(ControllerDeploymentStatus, FirstRolloutIsNewReplicaSetCreatedThenAvailable) {
  Object d = make_deployment("ns", "web", 1);
  d.meta.generation = 1;
  DeploymentObservation obs;
  obs.replicas = 1;
  obs.updated = 1;
  obs.replica_set = "web-abc";
  obs.change = RolloutChange::kNewReplicaSet;
  obs.now_ms = 1000;
  DeploymentStatusUpdate u = compute_deployment_status(d, obs);
  EXPECT_TRUE(u.changed);
  EXPECT_TRUE(u.progressed);
  EXPECT_FALSE(u.complete);
  EXPECT_EQ(u.status.at("replicas"), "1");
  EXPECT_EQ(u.status.at("availableReplicas"), "0");
  EXPECT_EQ(u.status.at("unavailableReplicas"), "1");
  EXPECT_EQ(u.status.at("readyReplicas"), "0");
  EXPECT_EQ(u.status.at("updatedReplicas"), "1");
  EXPECT_EQ(u.status.at("observedGeneration"), "1");
  ASSERT_EQ(u.conditions.size(), 2u);
  EXPECT_EQ(u.conditions[0].type, "Available");
  EXPECT_EQ(u.conditions[0].status, "False");
  EXPECT_EQ(u.conditions[0].reason, "MinimumReplicasUnavailable");
  EXPECT_EQ(u.conditions[1].type, "Progressing");
  EXPECT_EQ(u.conditions[1].status, "True");
  EXPECT_EQ(u.conditions[1].reason, "NewReplicaSetCreated");
  EXPECT_EQ(u.conditions[1].message, "Created new replica set \"web-abc\"");
  d.status = u.status;
  d.conditions = u.conditions;
  EXPECT_EQ(gitlab_state(d), "Starting");

  // The pod becomes ready: complete.
  obs.change = RolloutChange::kNone;
  obs.ready = obs.available = 1;
  obs.now_ms = 5000;
  u = compute_deployment_status(d, obs);
  EXPECT_TRUE(u.complete);
  EXPECT_EQ(u.status.at("availableReplicas"), "1");
  EXPECT_EQ(u.status.at("unavailableReplicas"), "0");
  EXPECT_EQ(find_condition(u.conditions, "Available")->reason, "MinimumReplicasAvailable");
  EXPECT_EQ(find_condition(u.conditions, "Available")->status, "True");
  EXPECT_EQ(find_condition(u.conditions, "Progressing")->reason, "NewReplicaSetAvailable");
  EXPECT_EQ(find_condition(u.conditions, "Progressing")->last_transition_ms, 1000);  // Still True.
  d.status = u.status;
  d.conditions = u.conditions;
  EXPECT_EQ(gitlab_state(d), "Running");

  // Same observation again: nothing to write, and the counts' map is the deployment's own (no
  // copy of it is made to compare it: deployment_controller.cc set_count).
  // Nor of the conditions: unchanged ones stay the deployment's own list (no Condition built,
  // the list not copied: deployment_controller.cc set_condition_lazily).
  const DeploymentStatusUpdate same = compute_deployment_status(d, obs);
  EXPECT_FALSE(same.changed);
  EXPECT_EQ(&same.status.map(), &d.status.map());
  EXPECT_EQ(&same.conditions.vector(), &d.conditions.vector());
  // One count differs: only that one is written, into a copy; the conditions stay shared.
  obs.ready = 0;
  const DeploymentStatusUpdate fewer = compute_deployment_status(d, obs);
  EXPECT_TRUE(fewer.changed);
  EXPECT_NE(&fewer.status.map(), &d.status.map());
  EXPECT_EQ(fewer.status.at("readyReplicas"), "0");
  EXPECT_EQ(d.status.at("readyReplicas"), "1");
  EXPECT_EQ(&fewer.conditions.vector(), &d.conditions.vector());
  // Availability lost: the Available condition changes in a copy of the list, not in d's.
  obs.available = 0;
  const DeploymentStatusUpdate unavailable = compute_deployment_status(d, obs);
  EXPECT_TRUE(unavailable.changed);
  EXPECT_NE(&unavailable.conditions.vector(), &d.conditions.vector());
  EXPECT_EQ(find_condition(unavailable.conditions, "Available")->reason,
            "MinimumReplicasUnavailable");
  EXPECT_EQ(find_condition(unavailable.conditions, "Available")->message,
            "Deployment does not have minimum availability.");
  EXPECT_EQ(find_condition(d.conditions, "Available")->reason, "MinimumReplicasAvailable");
}

// Kubernetes progress.go syncRolloutStatus (isCompleteDeployment): a pure replicas change of a
// completed Deployment estimates no progress; Progressing stays True NewReplicaSetAvailable.
TEST(ControllerDeploymentStatus, ScaleKeepsNewReplicaSetAvailable) {
  Object d = make_deployment("ns", "web", 0);
  d.meta.generation = 2;
  d.status = {
      {"replicas", "1"},          {"updatedReplicas", "1"},     {"readyReplicas", "1"},
      {"availableReplicas", "1"}, {"unavailableReplicas", "0"}, {"observedGeneration", "1"}};
  d.conditions = {Condition{"Available", "True", "MinimumReplicasAvailable", "", 10},
                  Condition{"Progressing", "True", "NewReplicaSetAvailable", "", 10}};
  DeploymentObservation obs;
  obs.replica_set = "web-abc";
  obs.change = RolloutChange::kScaled;
  obs.now_ms = 2000;
  DeploymentStatusUpdate u = compute_deployment_status(d, obs);
  EXPECT_EQ(find_condition(u.conditions, "Progressing")->reason, "NewReplicaSetAvailable");
  EXPECT_FALSE(u.progressed);
  EXPECT_EQ(u.status.at("observedGeneration"), "2");
  EXPECT_EQ(u.status.at("availableReplicas"), "0");
  Object seen = d;
  seen.status = u.status;
  seen.conditions = u.conditions;
  EXPECT_EQ(gitlab_state(seen), "Stopped");
}

// The same rule for a scale up whose pod never becomes ready: no deadline is ever exceeded, the
// Deployment stays Starting (the real system's behaviour; not Failed).
TEST(ControllerDeploymentStatus, ScaleUpOfACompletedDeploymentNeverTimesOut) {
  Object d = make_deployment("ns", "web", 1);
  d.meta.generation = 3;
  d.status = {
      {"replicas", "0"},          {"updatedReplicas", "0"},     {"readyReplicas", "0"},
      {"availableReplicas", "0"}, {"unavailableReplicas", "0"}, {"observedGeneration", "2"}};
  d.conditions = {Condition{"Available", "True", "MinimumReplicasAvailable", "", 10},
                  Condition{"Progressing", "True", "NewReplicaSetAvailable", "", 10}};
  DeploymentObservation obs;
  obs.replicas = obs.updated = 1;
  obs.replica_set = "web-abc";
  obs.change = RolloutChange::kScaled;
  obs.now_ms = 2000;
  obs.progress_deadline_ms = 60 * kSecondMs;
  DeploymentStatusUpdate u = compute_deployment_status(d, obs);
  d.status = u.status;
  d.conditions = u.conditions;
  EXPECT_EQ(gitlab_state(d), "Starting");
  obs.change = RolloutChange::kNone;
  obs.now_ms = 10 * 60 * kSecondMs;
  u = compute_deployment_status(d, obs);
  EXPECT_EQ(find_condition(u.conditions, "Progressing")->reason, "NewReplicaSetAvailable");
  EXPECT_FALSE(u.changed);
}

// sync.go getNewReplicaSet: an existing ReplicaSet (a template seen before) only writes
// FoundNewReplicaSet when the Deployment has no Progressing condition.
TEST(ControllerDeploymentStatus, FoundReplicaSetOnlyWithoutAProgressingCondition) {
  Object d = make_deployment("ns", "web", 1);
  d.meta.generation = 4;
  d.status = {{"replicas", "1"}, {"updatedReplicas", "0"}, {"observedGeneration", "3"}};
  DeploymentObservation obs;
  obs.replicas = 1;
  obs.replica_set = "web-old";
  obs.change = RolloutChange::kFoundReplicaSet;
  obs.now_ms = 2000;
  EXPECT_EQ(find_condition(compute_deployment_status(d, obs).conditions, "Progressing")->reason,
            "FoundNewReplicaSet");
  d.conditions = {Condition{"Progressing", "True", "ReplicaSetUpdated", "", 10}};
  obs.last_progress_ms = 1000;
  EXPECT_EQ(find_condition(compute_deployment_status(d, obs).conditions, "Progressing")->reason,
            "ReplicaSetUpdated");
}

TEST(ControllerDeploymentStatus, ProgressDeadlineExceededOnlyAfterTheDeadline) {
  Object d = make_deployment("ns", "web", 1);
  d.meta.generation = 1;
  d.status = {
      {"replicas", "1"},          {"updatedReplicas", "1"},     {"readyReplicas", "0"},
      {"availableReplicas", "0"}, {"unavailableReplicas", "1"}, {"observedGeneration", "1"}};
  d.conditions = {Condition{"Available", "False", "MinimumReplicasUnavailable", "", 0},
                  Condition{"Progressing", "True", "NewReplicaSetCreated", "", 0}};
  DeploymentObservation obs;
  obs.replicas = obs.updated = 1;
  obs.replica_set = "web-abc";
  obs.last_progress_ms = 1000;
  obs.progress_deadline_ms = 60 * kSecondMs;
  obs.now_ms = 1000 + 60 * kSecondMs;  // Exactly at the deadline: not yet.
  EXPECT_FALSE(compute_deployment_status(d, obs).changed);
  obs.now_ms += 1;
  DeploymentStatusUpdate u = compute_deployment_status(d, obs);
  const Condition* p = find_condition(u.conditions, "Progressing");
  EXPECT_EQ(p->status, "False");
  EXPECT_EQ(p->reason, "ProgressDeadlineExceeded");
  EXPECT_EQ(p->message, "ReplicaSet \"web-abc\" has timed out progressing.");
  d.conditions = u.conditions;
  EXPECT_EQ(gitlab_state(d), "Failed");
}

TEST(ControllerDeploymentStatus, CompletedRolloutStaysCompleteWhenAPodTurnsUnready) {
  Object d = make_deployment("ns", "web", 1);
  d.meta.generation = 1;
  d.status = {
      {"replicas", "1"},          {"updatedReplicas", "1"},     {"readyReplicas", "1"},
      {"availableReplicas", "1"}, {"unavailableReplicas", "0"}, {"observedGeneration", "1"}};
  d.conditions = {Condition{"Available", "True", "MinimumReplicasAvailable", "", 0},
                  Condition{"Progressing", "True", "NewReplicaSetAvailable", "", 0}};
  DeploymentObservation obs;
  obs.replicas = obs.updated = 1;  // Ready went to 0.
  obs.replica_set = "web-abc";
  obs.now_ms = kHourMs;  // Long past any deadline: a complete rollout never times out.
  DeploymentStatusUpdate u = compute_deployment_status(d, obs);
  EXPECT_EQ(find_condition(u.conditions, "Progressing")->reason, "NewReplicaSetAvailable");
  EXPECT_EQ(find_condition(u.conditions, "Available")->reason, "MinimumReplicasUnavailable");
  EXPECT_EQ(find_condition(u.conditions, "Available")->status, "False");
  EXPECT_EQ(u.status.at("unavailableReplicas"), "1");
  d.status = u.status;
  d.conditions = u.conditions;
  EXPECT_EQ(gitlab_state(d), "Starting");
}

TEST(ControllerDeploymentStatus, PodTemplateHashFollowsTheTemplateOnly) {
  Object a = make_deployment("ns", "web", 1);
  Object b = a;
  b.spec["replicas"] = "0";
  EXPECT_EQ(pod_template_hash(a), pod_template_hash(b));
  b.spec["template.labels.version"] = "2";
  EXPECT_NE(pod_template_hash(a), pod_template_hash(b));
  const std::string hash = pod_template_hash(a);
  EXPECT_GE(hash.size(), 6u);
  EXPECT_LE(hash.size(), 10u);
  for (char c : hash)
    EXPECT_NE(std::string("bcdfghjklmnpqrstvwxz2456789").find(c), std::string::npos);
}

TEST(ControllerSchedulerLogic, NodeMisfitReasons) {
  Object node = make_object("Node", "", "node-1");
  node.status = {{"cpuMilli", "1000"}, {"memoryMiB", "1024"}, {"ready", "true"}};
  node.meta.labels = {{"pool", "ws"}};
  Object pod = make_pod("ns", "p");
  pod.spec["cpuMilli"] = "600";
  EXPECT_EQ(node_misfit(node, NodeUsage{}, pod), "");
  EXPECT_EQ(node_misfit(node, NodeUsage{500, 0}, pod), "Insufficient cpu");
  EXPECT_EQ(node_misfit(node, NodeUsage{0, 1000}, pod), "Insufficient memory");
  pod.spec["nodeSelector"] = "pool=ws";
  EXPECT_EQ(node_misfit(node, NodeUsage{}, pod), "");
  pod.spec["nodeSelector"] = "pool=ws,gpu=yes";
  EXPECT_EQ(node_misfit(node, NodeUsage{}, pod),
            "node(s) didn't match Pod's node affinity/selector");
  pod.spec.erase("nodeSelector");
  node.spec["unschedulable"] = "true";
  EXPECT_EQ(node_misfit(node, NodeUsage{}, pod), "node(s) were unschedulable");
  node.spec.erase("unschedulable");
  node.status["ready"] = "false";
  EXPECT_EQ(node_misfit(node, NodeUsage{}, pod), "node(s) were not ready");
}

TEST(ControllerKubeletLogic, RejectionMessages) {
  EXPECT_EQ(rejection_message("OutOfcpu", 1000, 3500, 4000),
            "Pod was rejected: Node didn't have enough resource: cpu, requested: 1000, used: 3500, "
            "capacity: 4000");
  EXPECT_EQ(
      rejection_message("OutOfmemory", 512, 100, 256),
      "Pod was rejected: Node didn't have enough resource: memory, requested: 512, used: 100, "
      "capacity: 256");
  EXPECT_EQ(rejection_message("NodeAffinity", 0, 0, 0),
            "Pod was rejected: Predicate NodeAffinity failed");
}

// ============================ Cluster ============================

TEST_F(ControllerTest, StartRegistersNodesAndDefaultNamespace) {
  ClusterOptions options;
  options.nodes = 3;
  options.node_cpu_milli = 2000;
  options.node_labels = {{"pool", "workspaces"}};
  boot(options);
  EXPECT_EQ(cluster().node_names(), (std::vector<std::string>{"node-1", "node-2", "node-3"}));
  const Object* node = get("Node", "", "node-2");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->status_or("cpuMilli", ""), "2000");
  EXPECT_EQ(node->status_or("memoryMiB", ""), "16384");
  EXPECT_EQ(node->status_or("ready", ""), "true");
  EXPECT_EQ(node->meta.labels.at("pool"), "workspaces");
  const Object* ns = get("Namespace", "", "default");
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->status_or("phase", ""), "Active");
  EXPECT_NE(cluster().kubelet("node-3"), nullptr);
  EXPECT_EQ(cluster().kubelet("node-4"), nullptr);
  FaultId id;
  EXPECT_TRUE(sim().faults().find("kube.kubelet.reject", id));
  EXPECT_TRUE(sim().faults().find("kube.namespace.slow_termination", id));
}

TEST_F(ControllerTest, DeploymentRollsOutAReadyPodWithGitLabConditions) {
  boot();
  Object d = make_deployment("default", "web", 1);
  d.spec["template.labels.agent"] = "a1";
  d.spec["template.spec.cpuMilli"] = "500";
  must_create(d);
  std::vector<std::string> states;
  std::vector<std::uint64_t> versions;
  api().subscribe("Deployment", [&](const WatchEvent& e) {
    if (e.type == WatchEventType::kDeleted) return;
    versions.push_back(e.object.meta.resource_version);
    const std::string s = gitlab_state(e.object);
    if (states.empty() || states.back() != s) states.push_back(s);
  });
  ASSERT_TRUE(run_until([&] {
    const Object* live = get("Deployment", "default", "web");
    return live != nullptr && gitlab_state(*live) == "Running";
  }));
  const Object* live = get("Deployment", "default", "web");
  EXPECT_EQ(live->status_or("replicas", ""), "1");
  EXPECT_EQ(live->status_or("availableReplicas", ""), "1");
  EXPECT_EQ(live->status_or("readyReplicas", ""), "1");
  EXPECT_EQ(live->status_or("unavailableReplicas", ""), "0");
  EXPECT_EQ(live->status_or("observedGeneration", ""), std::to_string(live->meta.generation));
  EXPECT_EQ(live->condition("Progressing")->reason, "NewReplicaSetAvailable");
  EXPECT_EQ(live->condition("Available")->reason, "MinimumReplicasAvailable");
  EXPECT_EQ(live->condition("Available")->status, "True");
  EXPECT_EQ(states, (std::vector<std::string>{"Starting", "Running"}));
  EXPECT_TRUE(std::is_sorted(versions.begin(), versions.end()));
  EXPECT_GE(versions.size(), 2u);

  auto pod = only_pod("default");
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod->meta.name, "web-" + pod_template_hash(*live) + "-0");
  ASSERT_EQ(pod->meta.owner_references.size(), 1u);
  EXPECT_EQ(pod->meta.owner_references[0].kind, "Deployment");
  EXPECT_EQ(pod->meta.owner_references[0].uid, live->meta.uid);
  EXPECT_TRUE(pod->meta.owner_references[0].controller);
  EXPECT_EQ(pod->meta.labels.at("app"), "web");
  EXPECT_EQ(pod->meta.labels.at("agent"), "a1");
  EXPECT_EQ(pod->spec_or("cpuMilli", ""), "500");
  EXPECT_EQ(pod->spec_or("nodeName", ""), "node-1");
  EXPECT_EQ(pod_phase(*pod), "Running");
  EXPECT_EQ(pod->status_or("ready", ""), "true");
}

TEST_F(ControllerTest, DeploymentScaleToZeroGoesStoppingThenStopped) {
  boot();
  must_create(make_deployment("default", "web", 1));
  ASSERT_TRUE(run_until([&] {
    const Object* d = get("Deployment", "default", "web");
    return d != nullptr && gitlab_state(*d) == "Running";
  }));
  std::vector<std::string> states;
  api().subscribe("Deployment", [&](const WatchEvent& e) {
    if (e.type == WatchEventType::kDeleted) return;
    const std::string s = gitlab_state(e.object);
    if (states.empty() || states.back() != s) states.push_back(s);
  });
  const std::uint64_t rv_before = get("Deployment", "default", "web")->meta.resource_version;
  ASSERT_TRUE(cluster().scale(ObjectRef{"Deployment", "default", "web"}, 0).ok());
  ASSERT_TRUE(run_until([&] {
    return gitlab_state(*get("Deployment", "default", "web")) == "Stopped" &&
           pods_in("default").empty();
  }));
  const Object* d = get("Deployment", "default", "web");
  EXPECT_GT(d->meta.resource_version, rv_before);
  EXPECT_EQ(d->status_or("availableReplicas", ""), "0");
  EXPECT_EQ(d->status_or("replicas", ""), "0");
  EXPECT_EQ(states.front(), "Stopping");  // The spec change itself (replicas 0, old status).
  EXPECT_EQ(states.back(), "Stopped");
  EXPECT_GE(cluster().counters().deployments.pods_deleted, 1u);
}

TEST_F(ControllerTest, DeploymentProgressDeadlineExceededWhenThePodCannotRun) {
  boot();
  Object d = make_deployment("default", "big", 1);
  d.spec["template.spec.cpuMilli"] = "64000";  // Fits no node.
  d.spec["progressDeadlineMs"] = "60000";
  must_create(d);
  advance(59 * kSecondMs);
  EXPECT_EQ(gitlab_state(*get("Deployment", "default", "big")), "Starting");
  advance(5 * kSecondMs);
  const Object* live = get("Deployment", "default", "big");
  EXPECT_EQ(live->condition("Progressing")->reason, "ProgressDeadlineExceeded");
  EXPECT_EQ(live->condition("Progressing")->status, "False");
  EXPECT_EQ(gitlab_state(*live), "Failed");
  EXPECT_EQ(cluster().counters().deployments.deadline_exceeded, 1u);
  auto pod = only_pod("default");
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod_phase(*pod), "Pending");
  const Condition* scheduled = pod->condition("PodScheduled");
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, "False");
  EXPECT_EQ(scheduled->reason, "Unschedulable");
  EXPECT_EQ(scheduled->message, "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST_F(ControllerTest, DeploymentTemplateChangeRecreatesThePod) {
  boot();
  must_create(make_deployment("default", "web", 1));
  ASSERT_TRUE(
      run_until([&] { return gitlab_state(*get("Deployment", "default", "web")) == "Running"; }));
  const std::string old_pod = only_pod("default")->meta.name;
  MergePatch patch;
  patch.spec["template.labels.version"] = "2";
  ASSERT_TRUE(api()
                  .server_patch(ObjectRef{"Deployment", "default", "web"}, patch,
                                Subresource::kMain, "test")
                  .ok());
  ASSERT_TRUE(run_until([&] {
    const Object* d = get("Deployment", "default", "web");
    auto pod = only_pod("default");
    return gitlab_state(*d) == "Running" && pod && pod->meta.name != old_pod;
  }));
  const Object* d = get("Deployment", "default", "web");
  auto pod = only_pod("default");
  EXPECT_EQ(pod->meta.labels.at("version"), "2");
  EXPECT_EQ(pod->meta.labels.at("pod-template-hash"), pod_template_hash(*d));
  EXPECT_EQ(get("Pod", "default", old_pod), nullptr);
}

// Kubernetes sync.go sync (a scaling event) keeps the conditions: a scale writes the new
// observedGeneration with Progressing still NewReplicaSetAvailable, never ReplicaSetUpdated.
TEST_F(ControllerTest, DeploymentScaleKeepsNewReplicaSetAvailableWithTheNewGeneration) {
  boot();
  must_create(make_deployment("default", "web", 1));
  ASSERT_TRUE(
      run_until([&] { return gitlab_state(*get("Deployment", "default", "web")) == "Running"; }));
  std::vector<std::pair<std::string, std::string>> progressing;  // (reason, observedGeneration)
  api().subscribe("Deployment", [&](const WatchEvent& e) {
    const Condition* p = e.object.condition("Progressing");
    progressing.emplace_back(p ? p->reason : "", e.object.status_or("observedGeneration", ""));
  });
  const Result<Object> scaled = cluster().scale(ObjectRef{"Deployment", "default", "web"}, 0);
  ASSERT_TRUE(scaled.ok());
  const std::string generation = std::to_string(scaled.value.meta.generation);
  ASSERT_TRUE(
      run_until([&] { return gitlab_state(*get("Deployment", "default", "web")) == "Stopped"; }));
  for (const auto& [reason, observed] : progressing) EXPECT_EQ(reason, "NewReplicaSetAvailable");
  EXPECT_EQ(progressing.back(), std::make_pair(std::string("NewReplicaSetAvailable"), generation));
}

// A restart (scale 0 → 1) whose pod can never run stays Starting: no ProgressDeadlineExceeded.
TEST_F(ControllerTest, DeploymentScaleUpWhosePodCannotRunStaysStarting) {
  boot();
  Object d = make_deployment("default", "web", 0);
  d.spec["progressDeadlineMs"] = "60000";
  d.spec["template.spec.readiness"] = "manual";  // The pod runs but never becomes ready.
  must_create(d);
  ASSERT_TRUE(
      run_until([&] { return gitlab_state(*get("Deployment", "default", "web")) == "Stopped"; }));
  ASSERT_TRUE(cluster().scale(ObjectRef{"Deployment", "default", "web"}, 1).ok());
  advance(20 * 60 * kSecondMs);
  const Object* live = get("Deployment", "default", "web");
  EXPECT_EQ(live->condition("Progressing")->reason, "NewReplicaSetAvailable");
  EXPECT_EQ(gitlab_state(*live), "Starting");
  ASSERT_TRUE(only_pod("default").has_value());
  EXPECT_EQ(pod_phase(*only_pod("default")), "Running");
  EXPECT_EQ(cluster().counters().deployments.deadline_exceeded, 0u);
}

TEST_F(ControllerTest, DeploymentReplacesARejectedPod) {
  boot();
  Object d = make_deployment("default", "web", 1);
  const std::string first = "web-" + pod_template_hash(d) + "-0";
  cluster().reject_at_admission(ObjectRef{"Pod", "default", first}, "NodeAffinity");
  must_create(d);
  ASSERT_TRUE(
      run_until([&] { return gitlab_state(*get("Deployment", "default", "web")) == "Running"; }));
  const Object* rejected = get("Pod", "default", first);
  ASSERT_NE(rejected, nullptr);  // Failed pods stay (until the pod GC threshold, not modelled).
  EXPECT_EQ(pod_phase(*rejected), "Failed");
  EXPECT_EQ(rejected->status_or("reason", ""), "NodeAffinity");
  const Object* replacement = get("Pod", "default", "web-" + pod_template_hash(d) + "-1");
  ASSERT_NE(replacement, nullptr);
  EXPECT_TRUE(pod_is_ready(*replacement));
  EXPECT_EQ(get("Deployment", "default", "web")->status_or("replicas", ""), "1");
}

TEST_F(ControllerTest, SchedulerLeavesPodPendingUntilANodeFits) {
  ClusterOptions options;
  options.node_cpu_milli = 1000;
  boot(options);
  Object pod = make_pod("default", "p");
  pod.spec["cpuMilli"] = "3000";
  must_create(pod);
  advance(5 * kSecondMs);
  const Object* live = get("Pod", "default", "p");
  EXPECT_EQ(live->spec_or("nodeName", ""), "");
  EXPECT_EQ(pod_phase(*live), "Pending");
  EXPECT_EQ(live->condition("PodScheduled")->reason, "Unschedulable");
  EXPECT_GE(cluster().counters().scheduler.unschedulable, 1u);
  ASSERT_TRUE(cluster().add_node("node-big", 8000, 16384).ok());
  ASSERT_TRUE(run_until([&] { return pod_phase(*get("Pod", "default", "p")) == "Running"; }));
  live = get("Pod", "default", "p");
  EXPECT_EQ(live->spec_or("nodeName", ""), "node-big");
  EXPECT_EQ(live->condition("PodScheduled")->status, "True");
}

TEST_F(ControllerTest, SchedulerChoiceZeroIsFirstNodeAndCordonedNodesAreSkipped) {
  ClusterOptions options;
  options.nodes = 3;
  boot_zero(options);
  must_create(make_pod("default", "a"));
  advance(kSecondMs);
  EXPECT_EQ(get("Pod", "default", "a")->spec_or("nodeName", ""), "node-1");
  ASSERT_TRUE(cluster().cordon("node-1").ok());
  ASSERT_TRUE(cluster().set_node_ready("node-2", false).ok());
  must_create(make_pod("default", "b"));
  advance(kSecondMs);
  EXPECT_EQ(get("Pod", "default", "b")->spec_or("nodeName", ""), "node-3");
  EXPECT_EQ(get("Node", "", "node-1")->spec_or("unschedulable", ""), "true");
  ASSERT_TRUE(cluster().uncordon("node-1").ok());
  EXPECT_EQ(get("Node", "", "node-1")->spec_or("unschedulable", ""), "");
}

TEST_F(ControllerTest, SchedulerSpreadsOverCandidatesByChoice) {
  ClusterOptions options;
  options.nodes = 3;
  boot(options, 11);
  for (int i = 0; i < 12; ++i) must_create(make_pod("default", "p" + std::to_string(i)));
  advance(10 * kSecondMs);
  std::set<std::string> used;
  for (const Object& p : pods_in("default")) used.insert(p.spec_or("nodeName", ""));
  EXPECT_EQ(used.size(), 3u);
  EXPECT_EQ(cluster().counters().scheduler.bound, 12u);
}

// The scheduler's usage kept write by write equals the sum over every stored pod, after every
// event of a run where pods are bound, run, deleted (grace period), and end.
TEST_F(ControllerTest, SchedulerUsageFollowsTheStoreAfterEveryEvent) {
  ClusterOptions options;
  options.nodes = 3;
  boot(options, 5);
  auto nonzero = [](const std::map<std::string, NodeUsage>& usage) {
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> out;
    for (const auto& [node, u] : usage) {
      if (u.cpu_milli != 0 || u.memory_mib != 0) out[node] = {u.cpu_milli, u.memory_mib};
    }
    return out;
  };
  std::size_t checked = 0;
  auto check = [&] {
    ++checked;
    return nonzero(cluster().scheduler().usage()) ==
           nonzero(node_usage(api().peek_list("Pod", "")));
  };
  for (int i = 0; i < 8; ++i) must_create(make_pod("default", "p" + std::to_string(i)));
  while (sim().now_ms() < 20 * kSecondMs && sim().loop().step()) ASSERT_TRUE(check());
  EXPECT_FALSE(nonzero(cluster().scheduler().usage()).empty());
  for (int i = 0; i < 8; i += 2) {
    ASSERT_TRUE(
        api().server_delete(ObjectRef{"Pod", "default", "p" + std::to_string(i)}, {}, "t").ok());
    ASSERT_TRUE(check());
  }
  while (sim().now_ms() < 5 * kMinuteMs && sim().loop().step()) ASSERT_TRUE(check());
  EXPECT_GT(checked, 20u);
  EXPECT_EQ(api().peek_list("Pod", "default").size(), 4u);
}

TEST_F(ControllerTest, KubeletRunsAPodToReadyAndEverReady) {
  boot_zero();
  must_create(make_pod("default", "p"));
  std::vector<std::string> phases;
  std::vector<std::string> container_states;
  api().subscribe("Pod", [&](const WatchEvent& e) {
    const std::string phase = pod_phase(e.object);
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
    const std::string cs = e.object.status_or("container.state", "-");
    if (container_states.empty() || container_states.back() != cs) container_states.push_back(cs);
  });
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*get("Pod", "default", "p")); }));
  const Object* p = get("Pod", "default", "p");
  EXPECT_EQ(p->status_or("everReady", ""), "true");
  EXPECT_EQ(p->condition("Ready")->status, "True");
  EXPECT_EQ(phases, (std::vector<std::string>{"Pending", "Running"}));
  EXPECT_EQ(container_states, (std::vector<std::string>{"-", "waiting", "running"}));
  const KubeletOptions defaults;
  // Choice 0: the shortest delays.
  EXPECT_EQ(sim().now_ms(), SchedulerOptions{}.step.min_ms + defaults.admit.min_ms +
                                defaults.start.min_ms + defaults.ready.min_ms);
  const ClusterCounters c = cluster().counters();
  EXPECT_EQ(c.kubelets.admitted, 1u);
  EXPECT_EQ(c.kubelets.started, 1u);
  EXPECT_EQ(c.kubelets.ready, 1u);
  bool traced = false;
  for (const TraceEvent& e : sim().trace().events())
    traced |= e.actor == "kubelet/node-1" && e.verb == "ready";
  EXPECT_TRUE(traced);
}

TEST_F(ControllerTest, KubeletStopsAfterTheGracePeriodThenRemovesThePod) {
  ClusterOptions options;
  options.kubelet.hang_on_sigterm = Ratio::always();
  boot(options);
  must_create(make_pod("default", "p"));
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*get("Pod", "default", "p")); }));
  DeleteOptions del;
  del.grace_period_ms = 10 * kSecondMs;
  const TimeMs deleted_at = sim().now_ms();
  ASSERT_TRUE(cluster().remove(ObjectRef{"Pod", "default", "p"}, del).ok());
  advance(9 * kSecondMs);
  const Object* p = get("Pod", "default", "p");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->meta.deletion_ms.has_value());
  EXPECT_EQ(p->status_or("container.state", ""), "running");
  EXPECT_EQ(pod_phase(*p), "Running");
  std::optional<std::string> last_phase;
  std::optional<std::string> exit_code;
  api().subscribe("Pod", [&](const WatchEvent& e) {
    last_phase = pod_phase(e.object);
    exit_code = e.object.status_or("container.exitCode", "");
  });
  ASSERT_TRUE(run_until([&] { return get("Pod", "default", "p") == nullptr; }));
  EXPECT_GE(sim().now_ms(), deleted_at + 10 * kSecondMs);
  EXPECT_EQ(last_phase, "Failed");  // SIGKILL after the grace period.
  EXPECT_EQ(exit_code, "137");
  EXPECT_EQ(cluster().counters().kubelets.stopped, 1u);
  EXPECT_EQ(cluster().counters().kubelets.removed, 1u);
}

TEST_F(ControllerTest, KubeletPromptStopSucceedsAndPodFinalizerHoldsRemoval) {
  ClusterOptions options;
  options.kubelet.hang_on_sigterm = Ratio::never();
  boot(options);
  Object pod = make_pod("default", "ws-1");
  pod.meta.finalizers = {"gitpod.io/finalizer"};
  must_create(pod);
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*get("Pod", "default", "ws-1")); }));
  ASSERT_TRUE(cluster().remove(ObjectRef{"Pod", "default", "ws-1"}).ok());
  advance(kMinuteMs);
  const Object* p = get("Pod", "default", "ws-1");
  ASSERT_NE(p, nullptr);  // Held by its finalizer.
  EXPECT_EQ(pod_phase(*p), "Succeeded");
  EXPECT_EQ(p->status_or("container.state", ""), "terminated");
  EXPECT_EQ(p->status_or("container.exitCode", ""), "0");
  EXPECT_EQ(p->status_or("ready", ""), "false");
  MergePatch patch;
  patch.finalizers = std::vector<std::string>{};
  ASSERT_TRUE(api()
                  .server_patch(ObjectRef{"Pod", "default", "ws-1"}, patch, Subresource::kMain,
                                "ws-manager")
                  .ok());
  advance(kSecondMs);
  EXPECT_EQ(get("Pod", "default", "ws-1"), nullptr);
}

TEST_F(ControllerTest, KubeletContainerKilledDuringTheGracePeriodEndsTheStop) {
  ClusterOptions options;
  options.kubelet.hang_on_sigterm = Ratio::always();
  boot(options);
  const ObjectRef ref{"Pod", "default", "ws-1"};
  Object pod = make_pod("default", "ws-1");
  pod.meta.finalizers = {"gitpod.io/finalizer"};
  pod.spec["terminationGracePeriodMs"] = std::to_string(30 * kMinuteMs);
  pod.spec["restartPolicy"] = "Never";
  must_create(pod);
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*api().peek(ref)); }));
  ASSERT_TRUE(cluster().remove(ref).ok());
  advance(5 * kMinuteMs);
  EXPECT_EQ(api().peek(ref)->status_or("container.state", ""), "running");  // Ignores SIGTERM.
  ASSERT_TRUE(cluster().exit_container(ref, 137, "SIGKILL by ws-daemon").ok());
  const Object* p = api().peek(ref);
  ASSERT_NE(p, nullptr);  // Its finalizer holds it.
  EXPECT_EQ(p->status_or("container.state", ""), "terminated");
  EXPECT_EQ(p->status_or("container.exitCode", ""), "137");
  EXPECT_EQ(p->status_or("container.message", ""), "SIGKILL by ws-daemon");
  EXPECT_EQ(pod_phase(*p), "Failed");
  EXPECT_TRUE(cluster().exit_container(ref, 137, "again").is(Code::kConflict));
  advance(10 * kSecondMs);
  MergePatch patch;
  patch.finalizers = std::vector<std::string>{};
  ASSERT_TRUE(api().server_patch(ref, patch, Subresource::kMain, "ws-manager").ok());
  EXPECT_EQ(api().peek(ref), nullptr);  // The grace period ended with the kill: removed at once.
  advance(30 * kMinuteMs);
  EXPECT_EQ(cluster().counters().kubelets.stopped, 1u);
}

TEST_F(ControllerTest, KubeletForcedAdmissionRejection) {
  boot();
  const ObjectRef ref{"Pod", "default", "ws-1"};
  cluster().reject_at_admission(ref, "OutOfcpu");
  must_create(make_pod("default", "ws-1"));
  ASSERT_TRUE(run_until([&] { return pod_is_terminal(*api().peek(ref)); }));
  advance(10 * kSecondMs);
  const Object* p = api().peek(ref);
  EXPECT_EQ(pod_phase(*p), "Failed");
  EXPECT_EQ(p->status_or("reason", ""), "OutOfcpu");
  EXPECT_EQ(p->status_or("message", ""),
            "Pod was rejected: Node didn't have enough resource: cpu, requested: 100, used: 0, "
            "capacity: 4000");
  EXPECT_EQ(p->spec_or("nodeName", ""), "node-1");
  EXPECT_EQ(p->status_or("container.state", "never"), "never");  // No container ever started.
  EXPECT_EQ(p->status_or("everReady", "no"), "no");
  EXPECT_EQ(cluster().counters().kubelets.rejected, 1u);
  EXPECT_EQ(cluster().counters().kubelets.started, 0u);
  // Consumed: a pod of the same name created again runs.
  ASSERT_TRUE(cluster().remove(ref).ok());
  EXPECT_EQ(api().peek(ref), nullptr);  // Failed: no grace period.
  must_create(make_pod("default", "ws-1"));
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*api().peek(ref)); }));
}

TEST_F(ControllerTest, KubeletRejectFaultDrawsAReason) {
  boot(ClusterOptions{}, 5);
  FaultId id;
  ASSERT_TRUE(sim().faults().find("kube.kubelet.reject", id));
  sim().faults().force(id, true, Ratio::always());
  for (int i = 0; i < 9; ++i) must_create(make_pod("default", "p" + std::to_string(i)));
  advance(kMinuteMs);
  std::set<std::string> reasons;
  for (const Object& p : pods_in("default")) {
    EXPECT_EQ(pod_phase(p), "Failed");
    reasons.insert(p.status_or("reason", ""));
    EXPECT_EQ(p.status_or("message", "").rfind("Pod was rejected: ", 0), 0u)
        << p.status_or("message", "");
  }
  for (const std::string& r : reasons) {
    EXPECT_TRUE(r == "NodeAffinity" || r == "OutOfcpu" || r == "OutOfmemory") << r;
  }
  EXPECT_GE(reasons.size(), 2u);
  EXPECT_EQ(cluster().counters().kubelets.rejected, 9u);
  EXPECT_EQ(sim().faults().point(id).fired, 9u);
  // Healed: no more rejections.
  sim().faults().heal();
  must_create(make_pod("default", "after-heal"));
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*get("Pod", "default", "after-heal")); }));
}

TEST_F(ControllerTest, KubeletRejectsNodeAffinityWhenTheLabelGoesAfterBinding) {
  ClusterOptions options;
  options.node_labels = {{"gitpod.io/ws-daemon_ready_ns_default", "true"}};
  options.scheduler.step = {1, 1};
  options.kubelet.admit = {1000, 1000};
  boot(options);
  Object pod = make_pod("default", "ws-1");
  pod.spec["nodeSelector"] = "gitpod.io/ws-daemon_ready_ns_default=true";
  must_create(pod);
  advance(500);
  EXPECT_EQ(get("Pod", "default", "ws-1")->spec_or("nodeName", ""), "node-1");
  ASSERT_TRUE(
      cluster().label_node("node-1", "gitpod.io/ws-daemon_ready_ns_default", std::nullopt).ok());
  advance(kSecondMs);
  const Object* p = get("Pod", "default", "ws-1");
  EXPECT_EQ(pod_phase(*p), "Failed");
  EXPECT_EQ(p->status_or("reason", ""), "NodeAffinity");
  EXPECT_EQ(p->status_or("message", ""), "Pod was rejected: Predicate NodeAffinity failed");
}

TEST_F(ControllerTest, KubeletRejectsARunningPodAfterEverReady) {
  boot();
  const ObjectRef ref{"Pod", "default", "ws-1"};
  must_create(make_pod("default", "ws-1"));
  EXPECT_TRUE(cluster().reject_running(ref, "OutOfmemory").is(Code::kNotFound));  // Not bound yet.
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*api().peek(ref)); }));
  ASSERT_TRUE(cluster().reject_running(ref, "OutOfmemory").ok());
  const Object* p = api().peek(ref);
  EXPECT_EQ(pod_phase(*p), "Failed");
  EXPECT_EQ(p->status_or("reason", ""), "OutOfmemory");
  EXPECT_EQ(p->status_or("message", "")
                .rfind("Pod was rejected: Node didn't have enough resource: memory", 0),
            0u);
  EXPECT_EQ(p->status_or("everReady", ""), "true");  // Sticky: it was ready before.
  EXPECT_EQ(p->status_or("ready", ""), "false");
  EXPECT_EQ(cluster().counters().kubelets.rejected_running, 1u);
  EXPECT_TRUE(
      cluster().reject_running(ref, "OutOfmemory").is(Code::kConflict));  // Not running any more.
  advance(kMinuteMs);
  EXPECT_EQ(pod_phase(*api().peek(ref)), "Failed");  // Terminal: nothing restarts it.
}

TEST_F(ControllerTest, KubeletContainerExitFollowsRestartPolicy) {
  boot();
  Object never = make_pod("default", "never");
  never.spec["restartPolicy"] = "Never";
  must_create(never);
  Object always = make_pod("default", "always");
  must_create(always);
  ASSERT_TRUE(run_until([&] {
    return pod_is_ready(*get("Pod", "default", "never")) &&
           pod_is_ready(*get("Pod", "default", "always"));
  }));
  ASSERT_TRUE(cluster().exit_container(ObjectRef{"Pod", "default", "never"}, 3, "boom").ok());
  const Object* n = get("Pod", "default", "never");
  EXPECT_EQ(pod_phase(*n), "Failed");
  EXPECT_EQ(n->status_or("container.exitCode", ""), "3");
  EXPECT_EQ(n->status_or("container.reason", ""), "Error");
  EXPECT_EQ(n->status_or("container.message", ""), "boom");

  ASSERT_TRUE(cluster().exit_container(ObjectRef{"Pod", "default", "always"}, 1).ok());
  EXPECT_EQ(pod_phase(*get("Pod", "default", "always")), "Running");
  EXPECT_EQ(get("Pod", "default", "always")->status_or("ready", ""), "false");
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*get("Pod", "default", "always")); }));
  EXPECT_EQ(get("Pod", "default", "always")->status_or("container.restartCount", ""), "1");
  EXPECT_EQ(get("Pod", "default", "always")->status_or("container.state", ""), "running");

  Object ok = make_pod("default", "ok");
  ok.spec["restartPolicy"] = "Never";
  must_create(ok);
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*get("Pod", "default", "ok")); }));
  ASSERT_TRUE(cluster().exit_container(ObjectRef{"Pod", "default", "ok"}, 0).ok());
  EXPECT_EQ(pod_phase(*get("Pod", "default", "ok")), "Succeeded");
  EXPECT_EQ(get("Pod", "default", "ok")->status_or("container.reason", ""), "Completed");
}

TEST_F(ControllerTest, KubeletManualReadinessWaitsForTheModel) {
  boot();
  Object pod = make_pod("default", "ws-1");
  pod.spec["readiness"] = "manual";
  must_create(pod);
  advance(kMinuteMs);
  const ObjectRef ref{"Pod", "default", "ws-1"};
  EXPECT_EQ(pod_phase(*api().peek(ref)), "Running");
  EXPECT_EQ(api().peek(ref)->status_or("ready", ""), "false");
  ASSERT_TRUE(cluster().set_pod_ready(ref, true).ok());
  EXPECT_EQ(api().peek(ref)->status_or("ready", ""), "true");
  EXPECT_EQ(api().peek(ref)->status_or("everReady", ""), "true");
  ASSERT_TRUE(cluster().set_pod_ready(ref, false).ok());
  EXPECT_EQ(api().peek(ref)->status_or("ready", ""), "false");
  EXPECT_EQ(api().peek(ref)->status_or("everReady", ""), "true");
}

TEST_F(ControllerTest, NamespaceTerminationRemovesContentOverSeveralSteps) {
  boot();
  Object ns = make_object("Namespace", "", "ws-ns");
  must_create(ns);
  for (int i = 0; i < 7; ++i)
    must_create(make_object("ConfigMap", "ws-ns", "cm-" + std::to_string(i)));
  must_create(make_deployment("ws-ns", "web", 1));
  ASSERT_TRUE(
      run_until([&] { return gitlab_state(*get("Deployment", "ws-ns", "web")) == "Running"; }));
  ASSERT_TRUE(cluster().remove(ObjectRef{"Namespace", "", "ws-ns"}).ok());
  EXPECT_EQ(get("Namespace", "", "ws-ns")->status_or("phase", ""), "Terminating");
  EXPECT_TRUE(cluster().remove(ObjectRef{"Namespace", "", "ws-ns"}).is(Code::kConflict));
  EXPECT_TRUE(
      cluster().create(make_object("ConfigMap", "ws-ns", "late")).status.is(Code::kForbidden));
  std::vector<std::size_t> remaining_after_step;
  std::uint64_t steps_seen = 0;
  ASSERT_TRUE(run_until([&] {
    const std::uint64_t steps = cluster().counters().namespaces.steps;
    if (steps != steps_seen) {
      steps_seen = steps;
      remaining_after_step.push_back(api().peek_list("", "ws-ns").size());
    }
    return get("Namespace", "", "ws-ns") == nullptr;
  }));
  EXPECT_GE(cluster().counters().namespaces.steps, 3u);  // 9+ objects, 3 per step.
  ASSERT_GE(remaining_after_step.size(), 3u);
  EXPECT_GT(remaining_after_step[0], 0u);
  EXPECT_TRUE(api().peek_list("", "ws-ns").empty());
  EXPECT_EQ(cluster().counters().namespaces.finalized, 1u);
  // Recreate after gone works.
  must_create(make_object("Namespace", "", "ws-ns"));
  EXPECT_EQ(get("Namespace", "", "ws-ns")->status_or("phase", ""), "Active");
}

TEST_F(ControllerTest, NamespaceTerminationWaitsForFinalizers) {
  boot();
  must_create(make_object("Namespace", "", "ws-ns"));
  Object cm = make_object("ConfigMap", "ws-ns", "held");
  cm.meta.finalizers = {"example.com/hold"};
  must_create(cm);
  ASSERT_TRUE(cluster().remove(ObjectRef{"Namespace", "", "ws-ns"}).ok());
  advance(10 * kMinuteMs);
  ASSERT_NE(get("Namespace", "", "ws-ns"), nullptr);
  EXPECT_EQ(get("Namespace", "", "ws-ns")->status_or("phase", ""), "Terminating");
  EXPECT_TRUE(get("ConfigMap", "ws-ns", "held")->meta.deletion_ms.has_value());
  const std::uint64_t steps = cluster().counters().namespaces.steps;
  EXPECT_LE(steps, 3u);  // No polling while only terminating objects remain.
  MergePatch patch;
  patch.finalizers = std::vector<std::string>{};
  ASSERT_TRUE(
      api()
          .server_patch(ObjectRef{"ConfigMap", "ws-ns", "held"}, patch, Subresource::kMain, "owner")
          .ok());
  ASSERT_TRUE(run_until([&] { return get("Namespace", "", "ws-ns") == nullptr; }, kMinuteMs));
}

TEST_F(ControllerTest, NamespaceSlowTerminationFaultStretchesSteps) {
  auto time_to_delete = [&](bool slow) {
    boot(ClusterOptions{}, 3);
    FaultId id;
    EXPECT_TRUE(sim().faults().find("kube.namespace.slow_termination", id));
    sim().faults().force(id, slow, Ratio::always());
    must_create(make_object("Namespace", "", "ws-ns"));
    for (int i = 0; i < 6; ++i)
      must_create(make_object("ConfigMap", "ws-ns", "cm-" + std::to_string(i)));
    const TimeMs start = sim().now_ms();
    EXPECT_TRUE(cluster().remove(ObjectRef{"Namespace", "", "ws-ns"}).ok());
    EXPECT_TRUE(run_until([&] { return get("Namespace", "", "ws-ns") == nullptr; }, kHourMs));
    return std::make_pair(sim().now_ms() - start, cluster().counters().namespaces.slow_steps);
  };
  const auto [fast_ms, fast_slow_steps] = time_to_delete(false);
  const auto [slow_ms, slow_steps] = time_to_delete(true);
  EXPECT_EQ(fast_slow_steps, 0u);
  EXPECT_GE(slow_steps, 3u);
  EXPECT_LT(fast_ms, 10 * kSecondMs);
  EXPECT_GE(slow_ms, 3 * NamespaceControllerOptions{}.slow_extra.min_ms);
}

TEST_F(ControllerTest, GarbageCollectorBackgroundCascade) {
  boot();
  Object owner = must_create(make_object("ConfigMap", "default", "owner"));
  Object dep = make_object("ConfigMap", "default", "dep");
  dep.meta.owner_references = {OwnerReference{"ConfigMap", "owner", owner.meta.uid, false, false}};
  must_create(dep);
  Object grandchild = make_object("Secret", "default", "grandchild");
  grandchild.meta.owner_references = {OwnerReference{
      "ConfigMap", "dep", get("ConfigMap", "default", "dep")->meta.uid, true, false}};
  must_create(grandchild);
  advance(10 * kSecondMs);
  EXPECT_NE(get("ConfigMap", "default", "dep"), nullptr);  // Owner alive: nothing happens.
  ASSERT_TRUE(cluster().remove(ObjectRef{"ConfigMap", "default", "owner"}).ok());
  EXPECT_EQ(get("ConfigMap", "default", "owner"), nullptr);  // Background: owner first.
  ASSERT_TRUE(run_until(
      [&] {
        return get("ConfigMap", "default", "dep") == nullptr &&
               get("Secret", "default", "grandchild") == nullptr;
      },
      kMinuteMs));
  EXPECT_EQ(cluster().counters().garbage_collector.deletions, 2u);
}

TEST_F(ControllerTest, GarbageCollectorForegroundWaitsForBlockingDependents) {
  ClusterOptions options;
  options.kubelet.hang_on_sigterm = Ratio::always();
  boot(options);
  Object d = make_deployment("default", "web", 1);
  d.spec["template.spec.terminationGracePeriodMs"] = "20000";
  must_create(d);
  ASSERT_TRUE(
      run_until([&] { return gitlab_state(*get("Deployment", "default", "web")) == "Running"; }));
  const std::string pod_name = only_pod("default")->meta.name;
  DeleteOptions del;
  del.propagation = Propagation::kForeground;
  ASSERT_TRUE(cluster().remove(ObjectRef{"Deployment", "default", "web"}, del).ok());
  const Object* live = get("Deployment", "default", "web");
  ASSERT_NE(live, nullptr);
  EXPECT_TRUE(has_finalizer(*live, "foregroundDeletion"));
  advance(10 * kSecondMs);
  // The pod is in its 20 s grace period: it blocks its owner.
  ASSERT_NE(get("Pod", "default", pod_name), nullptr);
  EXPECT_TRUE(get("Pod", "default", pod_name)->meta.deletion_ms.has_value());
  EXPECT_NE(get("Deployment", "default", "web"), nullptr);
  ASSERT_TRUE(run_until([&] { return get("Deployment", "default", "web") == nullptr; }, kMinuteMs));
  EXPECT_EQ(get("Pod", "default", pod_name), nullptr);
  EXPECT_GE(sim().now_ms(), 20 * kSecondMs);
  EXPECT_EQ(cluster().counters().garbage_collector.finalizers_removed, 1u);
}

TEST_F(ControllerTest, GarbageCollectorOrphanStripsOwnerReferences) {
  boot();
  must_create(make_deployment("default", "web", 1));
  ASSERT_TRUE(
      run_until([&] { return gitlab_state(*get("Deployment", "default", "web")) == "Running"; }));
  const std::string pod_name = only_pod("default")->meta.name;
  DeleteOptions del;
  del.propagation = Propagation::kOrphan;
  ASSERT_TRUE(cluster().remove(ObjectRef{"Deployment", "default", "web"}, del).ok());
  ASSERT_TRUE(run_until([&] { return get("Deployment", "default", "web") == nullptr; }, kMinuteMs));
  advance(kMinuteMs);
  const Object* pod = get("Pod", "default", pod_name);
  ASSERT_NE(pod, nullptr);
  EXPECT_TRUE(pod->meta.owner_references.empty());
  EXPECT_FALSE(pod->meta.deletion_ms.has_value());
  EXPECT_EQ(pod_phase(*pod), "Running");
  EXPECT_EQ(cluster().counters().garbage_collector.orphaned, 1u);
}

TEST_F(ControllerTest, GarbageCollectorCollectsDanglingReferencesAndKeepsSolidOwners) {
  boot();
  Object alive = must_create(make_object("ConfigMap", "default", "alive"));
  Object a = make_object("ConfigMap", "default", "dangling-only");
  a.meta.owner_references = {OwnerReference{"ConfigMap", "ghost", "uid-none", false, false}};
  must_create(a);
  Object b = make_object("ConfigMap", "default", "mixed");
  b.meta.owner_references = {OwnerReference{"ConfigMap", "ghost", "uid-none", false, false},
                             OwnerReference{"ConfigMap", "alive", alive.meta.uid, false, false}};
  must_create(b);
  advance(10 * kSecondMs);
  EXPECT_EQ(get("ConfigMap", "default", "dangling-only"), nullptr);
  const Object* mixed = get("ConfigMap", "default", "mixed");
  ASSERT_NE(mixed, nullptr);
  ASSERT_EQ(mixed->meta.owner_references.size(), 1u);
  EXPECT_EQ(mixed->meta.owner_references[0].name, "alive");
  EXPECT_EQ(cluster().counters().garbage_collector.dangling_stripped, 1u);
}

TEST_F(ControllerTest, DeleteNodeFailsItsPodsWithNodeLost) {
  ClusterOptions options;
  options.nodes = 2;
  boot_zero(options);
  must_create(make_pod("default", "plain"));
  Object held = make_pod("default", "held");
  held.meta.finalizers = {"gitpod.io/finalizer"};
  must_create(held);
  ASSERT_TRUE(run_until([&] {
    return pod_is_ready(*get("Pod", "default", "plain")) &&
           pod_is_ready(*get("Pod", "default", "held"));
  }));
  ASSERT_EQ(get("Pod", "default", "held")->spec_or("nodeName", ""), "node-1");
  std::vector<std::string> plain_phases;
  api().subscribe("Pod", [&](const WatchEvent& e) {
    if (e.object.meta.name == "plain")
      plain_phases.push_back(pod_phase(e.object) + "/" + e.object.status_or("reason", ""));
  });
  ASSERT_TRUE(cluster().delete_node("node-1").ok());
  EXPECT_EQ(get("Node", "", "node-1"), nullptr);
  EXPECT_EQ(cluster().kubelet("node-1"), nullptr);
  EXPECT_EQ(cluster().node_names(), (std::vector<std::string>{"node-2"}));
  advance(10 * kSecondMs);
  EXPECT_EQ(get("Pod", "default", "plain"), nullptr);
  ASSERT_FALSE(plain_phases.empty());
  EXPECT_EQ(plain_phases.front(), "Failed/NodeLost");
  const Object* h = get("Pod", "default", "held");
  ASSERT_NE(h, nullptr);  // Its finalizer keeps it.
  EXPECT_EQ(pod_phase(*h), "Failed");
  EXPECT_EQ(h->status_or("reason", ""), "NodeLost");
  EXPECT_EQ(h->status_or("message", ""), "node deleted");
  EXPECT_TRUE(h->meta.deletion_ms.has_value());
  MergePatch patch;
  patch.finalizers = std::vector<std::string>{};
  ASSERT_TRUE(api()
                  .server_patch(ObjectRef{"Pod", "default", "held"}, patch, Subresource::kMain,
                                "ws-manager")
                  .ok());
  advance(kSecondMs);
  EXPECT_EQ(get("Pod", "default", "held"), nullptr);
  EXPECT_EQ(cluster().counters().node_lifecycle.pods_lost, 2u);
  EXPECT_EQ(cluster().counters().nodes_deleted, 1u);
  // A node of the same name can come back.
  ASSERT_TRUE(cluster().add_node("node-1", 4000, 16384).ok());
  EXPECT_NE(cluster().kubelet("node-1"), nullptr);
}

TEST_F(ControllerTest, KubeletStopsAPodDeletedBeforeItsContainerStarted) {
  ClusterOptions options;
  options.kubelet.start = {10 * kSecondMs, 10 * kSecondMs};
  boot(options);
  const ObjectRef ref{"Pod", "default", "p"};
  must_create(make_pod("default", "p"));
  ASSERT_TRUE(
      run_until([&] { return api().peek(ref)->status_or("container.state", "") == "waiting"; }));
  const TimeMs deleted_at = sim().now_ms();
  ASSERT_TRUE(cluster().remove(ref).ok());  // Default grace 30 s, but nothing runs yet.
  std::string last_phase;
  api().subscribe("Pod", [&](const WatchEvent& e) { last_phase = pod_phase(e.object); });
  ASSERT_TRUE(run_until([&] { return api().peek(ref) == nullptr; }));
  EXPECT_LT(sim().now_ms() - deleted_at, 2 * kSecondMs);
  EXPECT_EQ(last_phase, "Failed");
  EXPECT_EQ(cluster().counters().kubelets.started, 0u);
}

TEST_F(ControllerTest, PodsBoundToAMissingNodeAreCollected) {
  boot();
  Object pod = make_pod("default", "stray");
  pod.spec["nodeName"] = "node-gone";
  must_create(pod);
  advance(5 * kSecondMs);
  EXPECT_EQ(get("Pod", "default", "stray"), nullptr);
  EXPECT_EQ(cluster().counters().node_lifecycle.pods_lost, 1u);
  EXPECT_EQ(cluster().counters().node_lifecycle.pods_removed, 1u);
}

TEST_F(ControllerTest, NodeNotReadyPausesItsKubeletAndMarksPodsUnready) {
  boot();
  const ObjectRef running{"Pod", "default", "running"};
  must_create(make_pod("default", "running"));
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*api().peek(running)); }));
  ASSERT_TRUE(cluster().set_node_ready("node-1", false).ok());
  advance(5 * kSecondMs);
  EXPECT_EQ(api().peek(running)->status_or("ready", ""), "false");
  EXPECT_EQ(api().peek(running)->condition("Ready")->reason, "NodeNotReady");
  // A pod deleted meanwhile is not stopped: its kubelet is paused.
  DeleteOptions del;
  del.grace_period_ms = 1000;
  ASSERT_TRUE(cluster().remove(running, del).ok());
  advance(kMinuteMs);
  ASSERT_NE(api().peek(running), nullptr);
  EXPECT_EQ(api().peek(running)->status_or("container.state", ""), "running");
  ASSERT_TRUE(cluster().set_node_ready("node-1", true).ok());
  ASSERT_TRUE(run_until([&] { return api().peek(running) == nullptr; }, kMinuteMs));
}

// kube.node.not_ready (docs/fidelity.md K13): a kubelet that stops posting status parks its work
// at once; after the monitor grace the node lifecycle controller marks the node and its pods not
// ready; when the kubelet posts again it writes the node ready and every parked step resumes —
// here an admission (a pod bound during the silence) and a stop (a pod deleted during it).
TEST_F(ControllerTest, KubeletSilenceMarksTheNodeNotReadyAndParkedWorkResumes) {
  boot();
  const ObjectRef running{"Pod", "default", "running"};
  const ObjectRef doomed{"Pod", "default", "doomed"};
  must_create(make_pod("default", "running"));
  must_create(make_pod("default", "doomed"));
  ASSERT_TRUE(run_until(
      [&] { return pod_is_ready(*api().peek(running)) && pod_is_ready(*api().peek(doomed)); }));
  ASSERT_TRUE(cluster().stop_node_heartbeats("node-1", 3 * kMinuteMs).ok());
  EXPECT_EQ(cluster().counters().heartbeat_outages, 1u);
  const ObjectRef late{"Pod", "default", "late"};
  Object pod = make_pod("default", "late");
  pod.spec["nodeName"] = "node-1";
  must_create(pod);
  DeleteOptions del;
  del.grace_period_ms = 1000;
  ASSERT_TRUE(cluster().remove(doomed, del).ok());
  advance(30 * kSecondMs);  // Inside the grace: the node is still ready, the kubelet is silent.
  EXPECT_EQ(get("Node", "", "node-1")->status_or("ready", ""), "true");
  EXPECT_EQ(api().peek(late)->status_or("container.state", ""), "");  // Not admitted.
  advance(30 * kSecondMs);  // 60 s > grace 40 s + monitor period 5 s.
  EXPECT_EQ(get("Node", "", "node-1")->status_or("ready", ""), "false");
  EXPECT_EQ(get("Node", "", "node-1")->status_or("readyReason", ""), "NodeStatusUnknown");
  EXPECT_EQ(api().peek(running)->condition("Ready")->reason, "NodeNotReady");
  EXPECT_EQ(cluster().counters().node_lifecycle.nodes_marked_not_ready, 1u);
  ASSERT_NE(api().peek(doomed), nullptr);  // Its stop is parked.
  advance(2 * kMinuteMs);                  // The window ends: the kubelet posts and resumes.
  EXPECT_EQ(get("Node", "", "node-1")->status_or("ready", ""), "true");
  EXPECT_EQ(get("Node", "", "node-1")->status_or("readyReason", "none"), "none");
  ASSERT_TRUE(run_until(
      [&] {
        const Object* l = api().peek(late);
        return l != nullptr && pod_is_ready(*l) && pod_is_ready(*api().peek(running)) &&
               api().peek(doomed) == nullptr;
      },
      kMinuteMs));
}

// A silence shorter than the grace: the node never goes not ready, but the steps parked meanwhile
// still resume when the kubelet posts again.
TEST_F(ControllerTest, ShortKubeletSilenceParksWorkWithoutNotReady) {
  boot();
  ASSERT_TRUE(cluster().stop_node_heartbeats("node-1", 20 * kSecondMs).ok());
  EXPECT_TRUE(cluster().stop_node_heartbeats("node-1", kHourMs).ok());  // Already silent: no-op.
  EXPECT_EQ(cluster().counters().heartbeat_outages, 1u);
  const ObjectRef late{"Pod", "default", "late"};
  Object pod = make_pod("default", "late");
  pod.spec["nodeName"] = "node-1";
  must_create(pod);
  advance(15 * kSecondMs);
  EXPECT_EQ(api().peek(late)->status_or("container.state", ""), "");  // Not admitted.
  ASSERT_TRUE(run_until([&] { return pod_is_ready(*api().peek(late)); }, kMinuteMs));
  advance(kMinuteMs);
  EXPECT_EQ(cluster().counters().node_lifecycle.nodes_marked_not_ready, 0u);
  EXPECT_EQ(get("Node", "", "node-1")->status_or("ready", ""), "true");
  EXPECT_EQ(cluster().stop_node_heartbeats("node-9", kSecondMs).code, Code::kNotFound);
}

// The fault point is declared on the second swarm stream and, once forced on, silences a node.
TEST_F(ControllerTest, NodeNotReadyFaultSilencesADrawnNode) {
  ClusterOptions options;
  options.nodes = 2;
  boot(options);
  FaultId id = 0;
  ASSERT_TRUE(sim().faults().find("kube.node.not_ready", id));
  EXPECT_EQ(sim().faults().point(id).swarm, SwarmStream::kSecond);
  EXPECT_FALSE(cluster().node_not_ready_fault());  // Off: never fires.
  sim().faults().force(id, true, Ratio::always());
  EXPECT_TRUE(cluster().node_not_ready_fault("node-2"));
  EXPECT_FALSE(cluster().kubelet("node-2")->posting());
  EXPECT_TRUE(cluster().kubelet("node-1")->posting());
  advance(10 * kMinuteMs);  // Windows last at most 5 min.
  EXPECT_TRUE(cluster().kubelet("node-2")->posting());
}

TEST_F(ControllerTest, SameSeedSameTraceAcrossRuns) {
  auto run_once = [&](std::uint64_t seed) {
    ClusterOptions options;
    options.nodes = 2;
    boot(options, seed);
    FaultId id;
    sim().faults().find("kube.kubelet.reject", id);
    sim().faults().force(id, true, Ratio{1, 3});
    must_create(make_object("Namespace", "", "ws"));
    must_create(make_deployment("ws", "a", 1));
    must_create(make_deployment("ws", "b", 1));
    advance(2 * kMinuteMs);
    cluster().scale(ObjectRef{"Deployment", "ws", "a"}, 0);
    cluster().delete_node("node-2");
    advance(kMinuteMs);
    cluster().remove(ObjectRef{"Namespace", "", "ws"});
    advance(10 * kMinuteMs);
    EXPECT_EQ(get("Namespace", "", "ws"), nullptr);
    return std::make_pair(sim().fingerprint(), sim().trace().count());
  };
  const auto first = run_once(42);
  const auto second = run_once(42);
  const auto other = run_once(43);
  EXPECT_EQ(first, second);
  EXPECT_NE(first.first, other.first);
  EXPECT_GT(first.second, 20u);
}

}  // namespace
}  // namespace wsim::kube
