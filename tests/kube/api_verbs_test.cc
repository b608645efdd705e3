// Conformance: verbs (sim/kube/README.md, row "verbs"), through the Client (latency, trace).
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

class ApiVerbs : public KubeTest {
 protected:
  Client client = api.client("alice");
};

TEST_F(ApiVerbs, GetOfMissingObjectIsNotFound) {
  must_create(make_namespace("ns"));
  auto got = run(client.get(ObjectRef{"ConfigMap", "ns", "nope"}));
  EXPECT_EQ(got.status.code, Code::kNotFound);
  EXPECT_EQ(got.status.message, "ConfigMap \"nope\" not found");
  auto ns = run(client.get(ObjectRef{"Namespace", "", "ns"}));
  EXPECT_TRUE(ns.ok());
  EXPECT_EQ(ns.value.meta.name, "ns");
}

TEST_F(ApiVerbs, ListFiltersByLabelSelectorAndSortsByNamespaceThenName) {
  must_create(make_namespace("b"));
  must_create(make_namespace("a"));
  for (const char* ns : {"b", "a"}) {
    for (const char* name : {"z", "m", "c"}) {
      Object d = make_deployment(ns, name);
      d.meta.labels["agent"] = std::string(name) == "m" ? "other" : "agentk";
      must_create(d);
    }
  }
  must_create(make_configmap("a", "cm"));
  auto all = run(client.list("Deployment", ""));
  ASSERT_TRUE(all.ok());
  std::vector<std::string> names;
  for (const Object& o : all.value) names.push_back(o.meta.namespace_ + "/" + o.meta.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a/c", "a/m", "a/z", "b/c", "b/m", "b/z"}));

  LabelSelector selector;
  selector.match_labels["agent"] = "agentk";
  auto selected = run(client.list("Deployment", "b", selector));
  names.clear();
  for (const Object& o : selected.value) names.push_back(o.meta.namespace_ + "/" + o.meta.name);
  EXPECT_EQ(names, (std::vector<std::string>{"b/c", "b/z"}));
  EXPECT_EQ(selector.to_string(), "agent=agentk");

  auto peeked = api.peek_list("", "a");
  ASSERT_EQ(peeked.size(), 4u) << "empty kind lists every kind of the namespace";
  EXPECT_EQ(peeked[0]->meta.name, "c");
  EXPECT_EQ(peeked[1]->kind, "ConfigMap");
}

TEST_F(ApiVerbs, CreateOfExistingNameIsAlreadyExists) {
  must_create(make_namespace("ns"));
  ASSERT_TRUE(run(client.create(make_configmap("ns", "cm"))).ok());
  auto again = run(client.create(make_configmap("ns", "cm")));
  EXPECT_EQ(again.status.code, Code::kAlreadyExists);
  EXPECT_EQ(again.status.message, "ConfigMap \"cm\" already exists");
  // Same name, other kind or other namespace: fine.
  must_create(make_namespace("ns2"));
  EXPECT_TRUE(run(client.create(make_configmap("ns2", "cm"))).ok());
  EXPECT_TRUE(run(client.create(make_object("Secret", "ns", "cm"))).ok());
}

TEST_F(ApiVerbs, CreateInMissingNamespaceIsNotFoundAndNamespacedKindsNeedANamespace) {
  auto missing = run(client.create(make_configmap("ghost", "cm")));
  EXPECT_EQ(missing.status.code, Code::kNotFound);
  EXPECT_EQ(missing.status.message, "namespaces \"ghost\" not found");
  auto no_ns = run(client.create(make_configmap("", "cm")));
  EXPECT_EQ(no_ns.status.code, Code::kInvalid);
  EXPECT_EQ(api.object_count(), 0u);
}

TEST_F(ApiVerbs, UpdateWithStaleResourceVersionIsConflict) {
  must_create(make_namespace("ns"));
  Object cm = must_create(make_configmap("ns", "cm", {{"a", "1"}}));
  Object first = cm;
  first.data["a"] = "2";
  auto ok = run(client.update(first));
  ASSERT_TRUE(ok.ok());
  EXPECT_GT(ok.value.meta.resource_version, cm.meta.resource_version);
  Object stale = cm;  // Still carries the old resourceVersion.
  stale.data["a"] = "3";
  auto conflict = run(client.update(stale));
  EXPECT_EQ(conflict.status.code, Code::kConflict);
  EXPECT_EQ(conflict.status.message,
            "Operation cannot be fulfilled on ConfigMap \"cm\": the object has been modified; "
            "please apply your changes to the latest version and try again");
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->data.at("a"), "2");
  // resourceVersion 0 = unconditional update (Kubernetes allows it for these kinds).
  Object blind = make_configmap("ns", "cm", {{"a", "4"}});
  EXPECT_TRUE(run(client.update(blind)).ok());
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->data.at("a"), "4");
  auto absent = run(client.update(make_configmap("ns", "nope")));
  EXPECT_EQ(absent.status.code, Code::kNotFound);
}

TEST_F(ApiVerbs, StatusSubresourceIsAnExplicitArgument) {
  must_create(make_namespace("ns"));
  Object d = must_create(make_deployment("ns", "d", "1"));
  Object main = d;
  main.spec["replicas"] = "0";
  main.status["availableReplicas"] = "1";
  auto via_main = run(client.update(main, Subresource::kMain));
  ASSERT_TRUE(via_main.ok());
  EXPECT_EQ(via_main.value.spec_or("replicas", ""), "0");
  EXPECT_FALSE(via_main.value.status.count("availableReplicas")) << "kMain ignores status";

  Object status = via_main.value;
  status.spec["replicas"] = "5";
  status.meta.labels["sneaky"] = "1";
  status.status["availableReplicas"] = "1";
  status.conditions.push_back(Condition{"Available", "True", "MinimumReplicasAvailable", "", 0});
  auto via_status = run(client.update(status, Subresource::kStatus));
  ASSERT_TRUE(via_status.ok());
  EXPECT_EQ(via_status.value.spec_or("replicas", ""), "0") << "kStatus ignores spec";
  EXPECT_FALSE(via_status.value.meta.labels.count("sneaky")) << "kStatus ignores metadata";
  EXPECT_EQ(via_status.value.status_or("availableReplicas", ""), "1");
  ASSERT_NE(via_status.value.condition("Available"), nullptr);
  EXPECT_EQ(via_status.value.condition("Available")->reason, "MinimumReplicasAvailable");

  MergePatch p;
  p.status["availableReplicas"] = "0";
  p.spec["replicas"] = "9";
  auto status_patch = run(client.patch(ObjectRef::of(d), p, Subresource::kStatus));
  EXPECT_EQ(status_patch.value.status_or("availableReplicas", ""), "0");
  EXPECT_EQ(status_patch.value.spec_or("replicas", ""), "0");
  auto main_patch = run(client.patch(ObjectRef::of(d), p, Subresource::kMain));
  EXPECT_EQ(main_patch.value.status_or("availableReplicas", ""), "0");
  EXPECT_EQ(main_patch.value.spec_or("replicas", ""), "9");
}

TEST_F(ApiVerbs, MergePatchNeverConflictsUnlessAPreconditionIsGiven) {
  must_create(make_namespace("ns"));
  Object cm = must_create(make_configmap("ns", "cm", {{"a", "1"}, {"b", "2"}}));
  MergePatch concurrent;
  concurrent.labels["x"] = "1";
  ASSERT_TRUE(api.server_patch(ObjectRef::of(cm), concurrent, Subresource::kMain, "other").ok());
  MergePatch p;
  p.data["a"] = "10";
  p.data["b"] = std::nullopt;
  p.labels["y"] = "2";
  auto patched = run(client.patch(ObjectRef::of(cm), p));
  ASSERT_TRUE(patched.ok()) << "no precondition: no conflict despite a concurrent write";
  EXPECT_EQ(patched.value.data, (Fields{{"a", "10"}}));
  EXPECT_EQ(patched.value.meta.labels,
            (std::map<std::string, std::string>{{"x", "1"}, {"y", "2"}}));

  MergePatch guarded;
  guarded.data["a"] = "11";
  guarded.precondition_resource_version = cm.meta.resource_version;
  auto conflict = run(client.patch(ObjectRef::of(cm), guarded));
  EXPECT_EQ(conflict.status.code, Code::kConflict);
  guarded.precondition_resource_version = patched.value.meta.resource_version;
  EXPECT_TRUE(run(client.patch(ObjectRef::of(cm), guarded)).ok());
  auto absent = run(client.patch(ObjectRef{"ConfigMap", "ns", "nope"}, p));
  EXPECT_EQ(absent.status.code, Code::kNotFound);
}

TEST_F(ApiVerbs, DeleteOfMissingObjectIsNotFound) {
  must_create(make_namespace("ns"));
  Status st = run(client.remove(ObjectRef{"Deployment", "ns", "d"}));
  EXPECT_EQ(st.code, Code::kNotFound);
  EXPECT_EQ(st.message, "Deployment \"d\" not found");
}

TEST_F(ApiVerbs, DeletePreconditionsOnUidAndResourceVersionConflict) {
  must_create(make_namespace("ns"));
  Object cm = must_create(make_configmap("ns", "cm"));
  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "uid-999";
  Status st = run(client.remove(ObjectRef::of(cm), wrong_uid));
  EXPECT_EQ(st.code, Code::kConflict);
  EXPECT_EQ(st.message, "Precondition failed: UID in precondition: uid-999, UID in object meta: " +
                            cm.meta.uid);
  DeleteOptions wrong_rv;
  wrong_rv.precondition_resource_version = cm.meta.resource_version + 100;
  EXPECT_EQ(run(client.remove(ObjectRef::of(cm), wrong_rv)).code, Code::kConflict);
  EXPECT_NE(peek("ConfigMap", "ns", "cm"), nullptr);
  DeleteOptions right;
  right.precondition_uid = cm.meta.uid;
  right.precondition_resource_version = cm.meta.resource_version;
  EXPECT_TRUE(run(client.remove(ObjectRef::of(cm), right)).ok());
  EXPECT_EQ(peek("ConfigMap", "ns", "cm"), nullptr);
}

TEST_F(ApiVerbs, DeletePropagationForegroundAndOrphanAddTheirFinalizers) {
  must_create(make_namespace("ns"));
  must_create(make_deployment("ns", "bg"));
  must_create(make_deployment("ns", "fg"));
  must_create(make_deployment("ns", "orphan"));
  EXPECT_TRUE(run(client.remove(ObjectRef{"Deployment", "ns", "bg"})).ok());
  EXPECT_EQ(peek("Deployment", "ns", "bg"), nullptr) << "background: removed at once";

  DeleteOptions fg;
  fg.propagation = Propagation::kForeground;
  EXPECT_TRUE(run(client.remove(ObjectRef{"Deployment", "ns", "fg"}, fg)).ok());
  const Object* f = peek("Deployment", "ns", "fg");
  ASSERT_NE(f, nullptr) << "foreground: waits for the garbage collector";
  EXPECT_EQ(f->meta.finalizers, std::vector<std::string>{"foregroundDeletion"});
  EXPECT_TRUE(f->meta.deletion_ms.has_value());

  DeleteOptions orphan;
  orphan.propagation = Propagation::kOrphan;
  EXPECT_TRUE(run(client.remove(ObjectRef{"Deployment", "ns", "orphan"}, orphan)).ok());
  const Object* o = peek("Deployment", "ns", "orphan");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->meta.finalizers, std::vector<std::string>{"orphan"});

  // The garbage collector's part: removing the finalizer completes the deletion.
  MergePatch done;
  done.finalizers = std::vector<std::string>{};
  ASSERT_TRUE(
      api.server_patch(ObjectRef{"Deployment", "ns", "fg"}, done, Subresource::kMain, "gc").ok());
  EXPECT_EQ(peek("Deployment", "ns", "fg"), nullptr);
}

TEST_F(ApiVerbs, ApplyCreatesOrMergesOverTheLiveObjectWithForce) {
  must_create(make_namespace("ns"));
  Object d = make_deployment("ns", "d", "1");
  d.meta.labels["a"] = "1";
  auto created = run(client.apply(d, "agentk"));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created.value.meta.generation, 1);
  EXPECT_FALSE(created.value.meta.uid.empty());

  // Another writer adds a label and a spec key; the next apply keeps them (not in its config)
  // and forces its own values.
  MergePatch other;
  other.labels["b"] = "2";
  other.spec["paused"] = "true";
  other.spec["replicas"] = "3";
  ASSERT_TRUE(api.server_patch(ObjectRef::of(d), other, Subresource::kMain, "kubectl").ok());
  Object again = make_deployment("ns", "d", "0");
  again.meta.labels["a"] = "1";
  auto merged = run(client.apply(again, "agentk"));
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged.value.spec_or("replicas", ""), "0");
  EXPECT_EQ(merged.value.spec_or("paused", ""), "true");
  EXPECT_EQ(merged.value.meta.labels.at("b"), "2");
  EXPECT_EQ(merged.value.meta.uid, created.value.meta.uid);

  auto in_missing_ns = run(client.apply(make_deployment("ghost", "d"), "agentk"));
  EXPECT_EQ(in_missing_ns.status.code, Code::kNotFound);
}

// Apply merges value by value; a value the stored object already has is not written, so a
// re-applied map stays shared with the stored one (store.cc merge_values). The stored state is
// the same either way; this checks the sharing, which is what the speed-up rests on.
TEST_F(ApiVerbs, ApplyWritesOnlyTheValuesThatDiffer) {
  must_create(make_namespace("ns"));
  Object d = make_deployment("ns", "d", "1");
  d.meta.labels["a"] = "1";
  ASSERT_TRUE(api.server_apply(d, "agentk", "agentk").ok());
  const Object* before = peek("Deployment", "ns", "d");
  ASSERT_NE(before, nullptr);
  const Fields::Map* labels_before = &before->meta.labels.map();

  Object again = make_deployment("ns", "d", "2");
  again.meta.labels["a"] = "1";
  ASSERT_TRUE(api.server_apply(again, "agentk", "agentk").ok());
  const Object* after = peek("Deployment", "ns", "d");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->spec_or("replicas", ""), "2");
  EXPECT_EQ(after->meta.generation, 2);
  EXPECT_EQ(after->meta.labels.at("a"), "1");
  EXPECT_EQ(&after->meta.labels.map(), labels_before);

  Object changed = make_deployment("ns", "d", "2");
  changed.meta.labels["a"] = "3";
  ASSERT_TRUE(api.server_apply(changed, "agentk", "agentk").ok());
  after = peek("Deployment", "ns", "d");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->meta.labels.at("a"), "3");
  EXPECT_NE(&after->meta.labels.map(), labels_before);
}

}  // namespace
}  // namespace wsim::kube
