// Conformance: objects and versions (sim/kube/README.md, rows "objects" and "versions").
#include <gtest/gtest.h>

#include "sim/kube/api_server.h"
#include "tests/kube/api_test_util.h"

namespace wsim::kube {
namespace {

using testing::KubeTest;
using testing::make_configmap;
using testing::make_deployment;
using testing::make_namespace;
using testing::make_object;

class ApiObjects : public KubeTest {};
class ApiVersions : public KubeTest {};

TEST_F(ApiObjects, CreateAssignsUidResourceVersionGenerationAndCreationTime) {
  advance(1234);
  Object ns = must_create(make_namespace("ns"));
  EXPECT_EQ(ns.meta.uid, "uid-1");
  EXPECT_EQ(ns.meta.resource_version, 1u);
  EXPECT_EQ(ns.meta.generation, 1);
  EXPECT_EQ(ns.meta.creation_ms, 1234);
  EXPECT_FALSE(ns.meta.deletion_ms.has_value());

  Object cm = make_configmap("ns", "cm");
  cm.meta.uid = "forged";
  cm.meta.resource_version = 77;
  cm.meta.generation = 9;
  cm.meta.creation_ms = 5;
  cm.meta.deletion_ms = 6;
  Object created = must_create(cm);
  EXPECT_EQ(created.meta.uid, "uid-2");
  EXPECT_EQ(created.meta.resource_version, 2u);
  EXPECT_EQ(created.meta.generation, 1);
  EXPECT_EQ(created.meta.creation_ms, 1234);
  EXPECT_FALSE(created.meta.deletion_ms.has_value());
}

TEST_F(ApiObjects, EveryModelKindKeepsItsMetadataAndFields) {
  must_create(make_namespace("ns"));
  const char* namespaced[] = {"Pod",           "Deployment",     "Service",
                              "ConfigMap",     "Secret",         "PersistentVolumeClaim",
                              "NetworkPolicy", "ServiceAccount", "Workspace"};
  for (const char* kind : namespaced) {
    Object o = make_object(kind, "ns", "x");
    o.meta.labels["app"] = "ws";
    o.meta.annotations["note"] = kind;
    o.meta.owner_references.push_back(OwnerReference{"Deployment", "d", "uid-9", true, true});
    o.meta.finalizers.push_back("example.com/keep");
    o.spec["field"] = "value";
    o.data["k"] = "v";
    auto result = api.server_create(o, "test");
    ASSERT_TRUE(result.ok()) << kind << ": " << result.status.message;
    const Object* stored = peek(kind, "ns", "x");
    ASSERT_NE(stored, nullptr) << kind;
    EXPECT_EQ(stored->kind, kind);
    EXPECT_EQ(stored->meta.labels, o.meta.labels);
    EXPECT_EQ(stored->meta.annotations, o.meta.annotations);
    EXPECT_EQ(stored->meta.owner_references, o.meta.owner_references);
    EXPECT_EQ(stored->meta.finalizers, o.meta.finalizers);
    EXPECT_EQ(stored->spec_or("field", ""), "value") << kind;
    EXPECT_EQ(stored->data, o.data);
  }
  Object node = make_object("Node", "ignored", "node-1");
  node.status["ready"] = "true";
  Object created = must_create(node);
  EXPECT_EQ(created.meta.namespace_, "") << "cluster-scoped kinds have no namespace";
  EXPECT_EQ(created.status_or("ready", ""), "true") << "nodes register with their status";
  EXPECT_NE(peek("Node", "", "node-1"), nullptr);
  EXPECT_TRUE(is_cluster_scoped("Namespace"));
  EXPECT_TRUE(is_cluster_scoped("Node"));
  EXPECT_FALSE(is_cluster_scoped("Workspace"));
}

TEST_F(ApiObjects, CreateIgnoresStatusExceptForNodes) {
  must_create(make_namespace("ns"));
  Object d = make_deployment("ns", "d");
  d.status["availableReplicas"] = "1";
  d.conditions.push_back(Condition{"Available", "True", "MinimumReplicasAvailable", "", 0});
  Object created = must_create(d);
  EXPECT_TRUE(created.status.empty());
  EXPECT_TRUE(created.conditions.empty());
  Object pod = must_create(testing::make_pod("ns", "p"));
  EXPECT_EQ(pod.status_or("phase", ""), "Pending");
}

TEST_F(ApiObjects, DeepCopiesAtEveryBoundary) {
  must_create(make_namespace("ns"));
  Object cm = make_configmap("ns", "cm", {{"a", "1"}});
  auto client = api.client("alice");
  Result<Object> created = run(client.create(cm));
  ASSERT_TRUE(created.ok());
  cm.data["a"] = "changed-after-create";
  created.value.data["a"] = "changed-in-response";
  Result<Object> got = run(client.get(ObjectRef::of(cm)));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got.value.data.at("a"), "1");
  got.value.meta.labels["x"] = "y";
  Result<std::vector<Object>> listed = run(client.list("ConfigMap", "ns"));
  ASSERT_EQ(listed.value.size(), 1u);
  EXPECT_TRUE(listed.value[0].meta.labels.empty());
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->data.at("a"), "1");
}

// The store finds objects through a hash index of their refs (object_store.h by_ref_,
// docs/performance.md §14.2): the same namespace and name under other kinds, the same name in
// other namespaces, a cluster-scoped kind asked with a namespace, a removed object and its
// re-creation are each found (or not) exactly as stored.
TEST_F(ApiObjects, LookupsFindExactlyTheStoredObjects) {
  must_create(make_namespace("a"));
  must_create(make_namespace("b"));
  must_create(make_configmap("a", "x", {{"v", "cm-a"}}));
  must_create(make_configmap("b", "x", {{"v", "cm-b"}}));
  must_create(make_object("Secret", "a", "x"));
  EXPECT_EQ(peek("ConfigMap", "a", "x")->data.at("v"), "cm-a");
  EXPECT_EQ(peek("ConfigMap", "b", "x")->data.at("v"), "cm-b");
  EXPECT_EQ(peek("Secret", "a", "x")->kind, "Secret");
  EXPECT_EQ(peek("Secret", "b", "x"), nullptr);
  EXPECT_EQ(peek("ConfigMap", "a", "y"), nullptr);
  EXPECT_EQ(peek("Namespace", "ignored", "a")->meta.name, "a");  // Normalized.
  EXPECT_EQ(api.peek(ObjectRefView{"Namespace", "", "b"})->meta.name, "b");
  EXPECT_EQ(api.object_count(), 5u);

  ASSERT_TRUE(api.server_delete(ObjectRef{"ConfigMap", "a", "x"}, {}, "t").ok());
  EXPECT_EQ(peek("ConfigMap", "a", "x"), nullptr);
  EXPECT_EQ(peek("ConfigMap", "b", "x")->data.at("v"), "cm-b");
  EXPECT_EQ(peek("Secret", "a", "x")->kind, "Secret");
  EXPECT_EQ(api.object_count(), 4u);
  const Object again = must_create(make_configmap("a", "x", {{"v", "again"}}));
  EXPECT_EQ(peek("ConfigMap", "a", "x")->data.at("v"), "again");
  EXPECT_EQ(peek("ConfigMap", "a", "x")->meta.uid, again.meta.uid);
  EXPECT_EQ(api.peek_list("ConfigMap", "").size(), 2u);
  EXPECT_EQ(api.object_count(), 5u);
}

TEST_F(ApiVersions, ResourceVersionStrictlyIncreasesClusterWideOnEveryWriteIncludingStatus) {
  must_create(make_namespace("a"));
  must_create(make_namespace("b"));
  std::uint64_t last = api.current_resource_version();
  EXPECT_EQ(last, 2u);
  auto expect_bumped = [&](std::uint64_t rv) {
    EXPECT_GT(rv, last);
    EXPECT_EQ(rv, api.current_resource_version());
    last = rv;
  };
  Object d = must_create(make_deployment("a", "d"));
  expect_bumped(d.meta.resource_version);
  Object cm = must_create(make_configmap("b", "cm"));
  expect_bumped(cm.meta.resource_version);
  d.status["availableReplicas"] = "1";
  auto status = api.server_update(d, Subresource::kStatus, "test");
  ASSERT_TRUE(status.ok());
  expect_bumped(status.value.meta.resource_version);
  MergePatch p;
  p.labels["x"] = "1";
  auto patched = api.server_patch(ObjectRef::of(cm), p, Subresource::kMain, "test");
  ASSERT_TRUE(patched.ok());
  expect_bumped(patched.value.meta.resource_version);
  ASSERT_TRUE(api.server_delete(ObjectRef::of(cm), {}, "test").ok());
  EXPECT_EQ(api.current_resource_version(), last + 1) << "a removal is a write too";
}

TEST_F(ApiVersions, GenerationBumpsOnSpecChangesOnly) {
  must_create(make_namespace("ns"));
  Object d = must_create(make_deployment("ns", "d", "1"));
  EXPECT_EQ(d.meta.generation, 1);
  d.meta.labels["a"] = "b";
  auto labelled = api.server_update(d, Subresource::kMain, "test");
  ASSERT_TRUE(labelled.ok());
  EXPECT_EQ(labelled.value.meta.generation, 1) << "metadata change";
  Object s = labelled.value;
  s.status["replicas"] = "1";
  auto with_status = api.server_update(s, Subresource::kStatus, "test");
  ASSERT_TRUE(with_status.ok());
  EXPECT_EQ(with_status.value.meta.generation, 1) << "status change";
  Object scaled = with_status.value;
  scaled.spec["replicas"] = "0";
  auto updated = api.server_update(scaled, Subresource::kMain, "test");
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated.value.meta.generation, 2) << "spec change via update";
  MergePatch p;
  p.spec["replicas"] = "1";
  auto patched = api.server_patch(ObjectRef::of(d), p, Subresource::kMain, "test");
  EXPECT_EQ(patched.value.meta.generation, 3) << "spec change via patch";
  Object applied = make_deployment("ns", "d", "0");
  auto via_apply = api.server_apply(applied, "mgr", "test");
  EXPECT_EQ(via_apply.value.meta.generation, 4) << "spec change via apply";
}

TEST_F(ApiVersions, UpdateOrPatchThatChangesNothingIsNotAWrite) {
  must_create(make_namespace("ns"));
  Object cm = must_create(make_configmap("ns", "cm", {{"a", "1"}}));
  const std::uint64_t rv = api.current_resource_version();
  auto same = api.server_update(cm, Subresource::kMain, "test");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same.value.meta.resource_version, cm.meta.resource_version);
  MergePatch p;
  p.data["a"] = "1";
  auto patched = api.server_patch(ObjectRef::of(cm), p, Subresource::kMain, "test");
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(api.current_resource_version(), rv);
}

TEST_F(ApiVersions, ApplyWritesEvenWhenNothingChanged) {
  must_create(make_namespace("ns"));
  Object d = make_deployment("ns", "d");
  auto first = api.server_apply(d, "agentk", "test");
  ASSERT_TRUE(first.ok());
  auto second = api.server_apply(d, "agentk", "test");
  ASSERT_TRUE(second.ok());
  EXPECT_GT(second.value.meta.resource_version, first.value.meta.resource_version)
      << "docs/systems/gitlab.md §6: re-applies with identical spec bump resourceVersion";
  EXPECT_EQ(second.value.meta.generation, 1);
}

class ApiVersionsNoopApply : public KubeTest {
 protected:
  static ApiServerOptions options() {
    ApiServerOptions o;
    o.apply_always_writes = false;
    return o;
  }
  ApiVersionsNoopApply() : KubeTest(options()) {}
};

TEST_F(ApiVersionsNoopApply, ApplyOfIdenticalObjectIsNotAWriteWhenConfigured) {
  must_create(make_namespace("ns"));
  Object d = make_deployment("ns", "d");
  auto first = api.server_apply(d, "agentk", "test");
  auto second = api.server_apply(d, "agentk", "test");
  EXPECT_EQ(second.value.meta.resource_version, first.value.meta.resource_version);
}

}  // namespace
}  // namespace wsim::kube
