// Tests of the world's own runtime oracles (sim/kube/conformance.h, docs/world-invariants.md):
// a legal cluster life raises nothing; each rule fires on the change or the end state that breaks
// it. Changes the server never makes are fed to ConformanceMonitor::observe directly; end states
// come from a bare ApiServer without the controllers that would have finished the work.
#include "sim/kube/conformance.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/cluster.h"

namespace wsim::kube {
namespace {

Object make(const std::string& kind, const std::string& ns, const std::string& name) {
  Object o;
  o.kind = kind;
  o.meta.namespace_ = ns;
  o.meta.name = name;
  return o;
}

Object make_pod(const std::string& ns, const std::string& name, const std::string& cpu_milli) {
  Object pod = make("Pod", ns, name);
  pod.spec["cpuMilli"] = cpu_milli;
  pod.spec["memoryMiB"] = "128";
  return pod;
}

Object make_node(const std::string& name, const std::string& cpu_milli) {
  Object node = make("Node", "", name);
  node.status["ready"] = "true";
  node.status["cpuMilli"] = cpu_milli;
  node.status["memoryMiB"] = "4096";
  return node;
}

std::vector<std::string> drain(ConformanceMonitor& monitor) {
  std::vector<std::string> out;
  while (auto violation = monitor.take_safety_violation()) {
    out.push_back(violation->invariant_id + " " + violation->object + ": " + violation->message);
  }
  return out;
}

std::vector<std::string> ids(const std::vector<ConformanceViolation>& violations) {
  std::vector<std::string> out;
  for (const ConformanceViolation& v : violations) out.push_back(v.invariant_id + " " + v.object);
  return out;
}

// A bare server (no controllers) with its monitor, namespace "ns" and a Ready 1-CPU node "n1".
class BareWorld : public ::testing::Test {
 protected:
  BareWorld() : sim_(ChoiceSource::from_tape({})), api_(sim_), monitor_(sim_, api_) {
    EXPECT_TRUE(api_.server_create(make("Namespace", "", "ns"), "test").ok());
    EXPECT_TRUE(api_.server_create(make_node("n1", "1000"), "test").ok());
  }
  Object stored(const std::string& kind, const std::string& ns, const std::string& name) {
    const Object* object = api_.peek(ObjectRef(kind, ns, name));
    EXPECT_NE(object, nullptr) << kind << "/" << ns << "/" << name;
    return object == nullptr ? Object{} : *object;
  }
  void advance(DurationMs ms) { sim_.loop().run_until(sim_.now_ms() + ms); }
  // The scheduler's and the kubelet's writes, made by hand (no controllers run here).
  bool bind(const std::string& pod, const std::string& node) {
    MergePatch patch;
    patch.spec["nodeName"] = node;
    return api_.server_patch(ObjectRef("Pod", "ns", pod), patch, Subresource::kMain, "t").ok();
  }
  bool set_phase(const std::string& pod, const std::string& phase) {
    MergePatch patch;
    patch.status["phase"] = phase;
    return api_.server_patch(ObjectRef("Pod", "ns", pod), patch, Subresource::kStatus, "t").ok();
  }

  Sim sim_;
  ApiServer api_;
  ConformanceMonitor monitor_;
};

TEST(Conformance, EveryInvariantHasAnIdADescriptionAndAReferenceInDocs) {
  const std::vector<ConformanceInvariant> all = ConformanceMonitor::invariants();
  ASSERT_EQ(all.size(), 8u);
  for (const ConformanceInvariant& rule : all) {
    EXPECT_EQ(rule.id.rfind("kube.", 0), 0u) << rule.id;
    EXPECT_EQ(rule.liveness, rule.id[5] == 'L') << rule.id;
    EXPECT_FALSE(rule.description.empty()) << rule.id;
    EXPECT_EQ(rule.reference.rfind("docs/world-invariants.md", 0), 0u) << rule.id;
  }
}

TEST(Conformance, ALegalClusterLifeRaisesNothing) {
  Sim sim(ChoiceSource::from_seed(11));
  ClusterOptions options;
  options.nodes = 2;
  options.namespaces = {"default", "ws"};
  Cluster cluster(sim, options);
  cluster.start();
  Object deployment = make("Deployment", "ws", "web");
  deployment.spec["replicas"] = "1";
  deployment.spec["template.labels.app"] = "web";
  ASSERT_TRUE(cluster.create(deployment).ok());
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(cluster.create(make_pod("ws", "p" + std::to_string(i), "500")).ok());
  sim.loop().run_until(2 * kMinuteMs);
  ASSERT_TRUE(cluster.scale(ObjectRef("Deployment", "ws", "web"), 0).ok());
  ASSERT_TRUE(cluster.remove(ObjectRef("Pod", "ws", "p0")).ok());
  ASSERT_TRUE(cluster.remove(ObjectRef("Namespace", "", "ws")).ok());
  ASSERT_TRUE(cluster.delete_node("node-2").ok());
  sim.loop().run_until(20 * kMinuteMs);
  EXPECT_EQ(drain(cluster.conformance()), std::vector<std::string>{});
  EXPECT_EQ(ids(cluster.conformance().check_liveness()), std::vector<std::string>{});
  EXPECT_EQ(cluster.api().peek(ObjectRef("Namespace", "", "ws")), nullptr);
}

TEST_F(BareWorld, S1AResourceVersionThatGoesBackOrAChangedUidIsCaught) {
  ASSERT_TRUE(api_.server_create(make("ConfigMap", "ns", "c"), "test").ok());
  const Object before = stored("ConfigMap", "ns", "c");
  Object older = before;
  older.meta.resource_version = 1;
  monitor_.observe(WatchEventType::kModified, older, &before);
  Object other_uid = before;
  other_uid.meta.uid = "uid-999";
  other_uid.meta.resource_version = api_.current_resource_version() + 1;
  monitor_.observe(WatchEventType::kModified, other_uid, &before);
  const std::vector<std::string> found = drain(monitor_);
  ASSERT_EQ(found.size(), 1u) << "each (rule, object) is reported once";
  EXPECT_NE(found[0].find("kube.S1 ConfigMap/ns/c: resourceVersion 1 written after"),
            std::string::npos)
      << found[0];
  Object twin = make("ConfigMap", "ns", "twin");
  twin.meta.uid = before.meta.uid;
  twin.meta.resource_version = api_.current_resource_version() + 2;
  twin.meta.generation = 1;
  monitor_.observe(WatchEventType::kAdded, twin, nullptr);
  const std::vector<std::string> reused = drain(monitor_);
  ASSERT_EQ(reused.size(), 1u);
  EXPECT_NE(reused[0].find("the uid of live ConfigMap/ns/c"), std::string::npos) << reused[0];
}

TEST_F(BareWorld, S2RemovalWithAFinalizerOrAClearedDeletionTimestampIsCaught) {
  Object held = make("ConfigMap", "ns", "held");
  held.meta.finalizers = {"example.com/keep"};
  ASSERT_TRUE(api_.server_create(held, "test").ok());
  ASSERT_TRUE(api_.server_delete(ObjectRef("ConfigMap", "ns", "held"), {}, "test").ok());
  ASSERT_TRUE(api_.server_create(make("Secret", "ns", "s"), "test").ok());
  EXPECT_EQ(drain(monitor_), std::vector<std::string>{}) << "a legal graceful deletion";
  // Crafted changes last: their resourceVersions are ahead of the server's.
  const Object deleting = stored("ConfigMap", "ns", "held");
  Object cleared = deleting;
  cleared.meta.deletion_ms.reset();
  cleared.meta.resource_version = api_.current_resource_version() + 100;
  monitor_.observe(WatchEventType::kModified, cleared, &deleting);
  std::vector<std::string> found = drain(monitor_);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("kube.S2 ConfigMap/ns/held: deletionTimestamp changed or cleared"),
            std::string::npos)
      << found[0];

  Object secret = stored("Secret", "ns", "s");
  Object last = secret;
  last.meta.finalizers = {"example.com/keep"};
  last.meta.deletion_ms = sim_.now_ms();
  last.meta.resource_version = api_.current_resource_version() + 200;
  monitor_.observe(WatchEventType::kDeleted, last, &secret);
  found = drain(monitor_);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("removed from the store with finalizer 'example.com/keep'"),
            std::string::npos)
      << found[0];
}

TEST_F(BareWorld, S3ASpecChangeWithoutAGenerationBumpIsCaught) {
  Object map = make("Deployment", "ns", "d");
  map.spec["replicas"] = "1";
  ASSERT_TRUE(api_.server_create(map, "test").ok());
  Object patch_target = stored("Deployment", "ns", "d");
  patch_target.spec["replicas"] = "0";
  ASSERT_TRUE(api_.server_update(patch_target, Subresource::kMain, "test").ok());
  EXPECT_EQ(stored("Deployment", "ns", "d").meta.generation, 2);
  EXPECT_EQ(drain(monitor_), std::vector<std::string>{});
  const Object before = stored("Deployment", "ns", "d");
  Object after = before;
  after.spec["replicas"] = "3";
  after.meta.resource_version = api_.current_resource_version() + 1;
  monitor_.observe(WatchEventType::kModified, after, &before);
  const std::vector<std::string> found = drain(monitor_);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("kube.S3 Deployment/ns/d: generation 2 -> 2 on a spec change"),
            std::string::npos)
      << found[0];
}

TEST_F(BareWorld, S4ContentInATerminatingNamespaceOrANamespaceRemovedWithContentIsCaught) {
  ASSERT_TRUE(api_.server_create(make("ConfigMap", "ns", "c"), "test").ok());
  ASSERT_TRUE(api_.server_delete(ObjectRef("Namespace", "", "ns"), {}, "test").ok());
  Object late = make("ConfigMap", "ns", "late");
  late.meta.uid = "uid-late";
  late.meta.generation = 1;
  late.meta.resource_version = api_.current_resource_version() + 1;
  monitor_.observe(WatchEventType::kAdded, late, nullptr);
  const Object ns = stored("Namespace", "", "ns");
  Object gone = ns;
  gone.spec.erase("finalizers");
  gone.meta.resource_version = api_.current_resource_version() + 2;
  monitor_.observe(WatchEventType::kDeleted, gone, &ns);
  const std::vector<std::string> found = drain(monitor_);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(found[0].find("kube.S4 ConfigMap/ns/late: created in namespace 'ns' that is "
                          "terminating"),
            std::string::npos)
      << found[0];
  EXPECT_NE(found[1].find("kube.S4 Namespace/ns: removed while 1 object(s) remain in it, e.g. "
                          "ConfigMap/ns/c"),
            std::string::npos)
      << found[1];
}

TEST_F(BareWorld, S5ABindToAFullOrMissingNodeAndAFinalPhaseLeftAreCaught) {
  ASSERT_TRUE(api_.server_create(make_pod("ns", "big", "800"), "test").ok());
  ASSERT_TRUE(api_.server_create(make_pod("ns", "small", "300"), "test").ok());
  ASSERT_TRUE(bind("big", "n1"));
  EXPECT_EQ(drain(monitor_), std::vector<std::string>{}) << "800 of 1000 mCPU fits";
  ASSERT_TRUE(bind("small", "n1"));
  std::vector<std::string> found = drain(monitor_);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("kube.S5 Pod/ns/small: bound to node 'n1' that is full (1100 mCPU"),
            std::string::npos)
      << found[0];

  ASSERT_TRUE(set_phase("big", "Failed"));
  ASSERT_TRUE(set_phase("big", "Running"));
  found = drain(monitor_);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("kube.S5 Pod/ns/big: phase Failed -> Running"), std::string::npos)
      << found[0];

  ASSERT_TRUE(api_.server_create(make_pod("ns", "lost", "1"), "test").ok());
  ASSERT_TRUE(bind("lost", "n9"));
  found = drain(monitor_);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("bound to node 'n9' that is absent"), std::string::npos) << found[0];
}

TEST(ConformanceCache, DifferencesNameStaleMissingAndDeletedObjectsAndSkipRecentOnes) {
  const ObjectRef a("Pod", "ns", "a"), b("Pod", "ns", "b"), c("Pod", "ns", "c"),
      d("Pod", "ns", "d");
  const std::map<ObjectRef, std::uint64_t> stored{{a, 5}, {b, 7}, {c, 9}};
  const std::vector<std::pair<ObjectRef, std::uint64_t>> cache{{a, 5}, {b, 6}, {d, 3}};
  const auto none = [](const ObjectRef&) { return false; };
  EXPECT_EQ(cache_differences(cache, stored, none),
            (std::vector<std::string>{"Pod/ns/b stored at rv 7, cached at rv 6",
                                      "Pod/ns/c stored at rv 9, not cached",
                                      "Pod/ns/d cached at rv 3, not in the store"}));
  const auto recent_c = [&](const ObjectRef& ref) { return ref == c; };
  EXPECT_EQ(cache_differences(cache, stored, recent_c).size(), 2u);
  EXPECT_EQ(cache_differences({{a, 5}}, {{a, 5}}, none), std::vector<std::string>{});
}

TEST_F(BareWorld, L2DependentsOfGoneOwnersAreReportedOnceQuiet) {
  ASSERT_TRUE(api_.server_create(make("Deployment", "ns", "owner"), "test").ok());
  Object dependent = make("ConfigMap", "ns", "dependent");
  dependent.meta.owner_references = {
      OwnerReference{"Deployment", "owner", stored("Deployment", "ns", "owner").meta.uid}};
  ASSERT_TRUE(api_.server_create(dependent, "test").ok());
  ASSERT_TRUE(api_.server_delete(ObjectRef("Deployment", "ns", "owner"), {}, "test").ok());
  EXPECT_EQ(ids(monitor_.check_liveness()), std::vector<std::string>{})
      << "the garbage collector may still be on its way";
  advance(2 * kMinuteMs);
  EXPECT_EQ(ids(monitor_.check_liveness()),
            std::vector<std::string>{"kube.L2 ConfigMap/ns/dependent"});
}

TEST_F(BareWorld, L3ATerminatingNamespaceWhoseContentIsNotDeletedAndAPodPastItsGraceAreStuck) {
  ASSERT_TRUE(api_.server_create(make("ConfigMap", "ns", "left"), "test").ok());
  ASSERT_TRUE(api_.server_create(make_pod("ns", "p", "100"), "test").ok());
  ASSERT_TRUE(bind("p", "n1"));
  ASSERT_TRUE(set_phase("p", "Running"));
  ASSERT_TRUE(api_.server_delete(ObjectRef("Pod", "ns", "p"), {}, "test").ok());
  ASSERT_TRUE(api_.server_delete(ObjectRef("Namespace", "", "ns"), {}, "test").ok());
  advance(2 * kMinuteMs);
  EXPECT_EQ(ids(monitor_.check_liveness()),
            (std::vector<std::string>{"kube.L3 Namespace/ns", "kube.L3 Pod/ns/p"}));
  EXPECT_EQ(drain(monitor_), std::vector<std::string>{});
}

}  // namespace
}  // namespace wsim::kube
