// Conformance: deletion (sim/kube/README.md, row "deletion").
#include <gtest/gtest.h>

#include "sim/kube/api_server.h"
#include "tests/kube/api_test_util.h"

namespace wsim::kube {
namespace {

using testing::KubeTest;
using testing::make_configmap;
using testing::make_deployment;
using testing::make_namespace;
using testing::make_pod;

class ApiDeletion : public KubeTest {
 protected:
  void SetUp() override { must_create(make_namespace("ns")); }
  Client client = api.client("alice");
};

TEST_F(ApiDeletion, FinalizersAndDeletionTimestampGateRemoval) {
  Object cm = make_configmap("ns", "cm");
  cm.meta.finalizers = {"a.io/one", "b.io/two"};
  must_create(cm);
  advance(500);
  ASSERT_TRUE(run(client.remove(ObjectRef::of(cm))).ok());
  const Object* live = peek("ConfigMap", "ns", "cm");
  ASSERT_NE(live, nullptr) << "finalizers keep it";
  ASSERT_TRUE(live->meta.deletion_ms.has_value());
  const TimeMs deleted_at = *live->meta.deletion_ms;
  EXPECT_GE(deleted_at, 500);
  EXPECT_EQ(live->meta.deletion_grace_period_ms, 0);

  MergePatch one;
  one.finalizers = std::vector<std::string>{"b.io/two"};
  auto partly = api.server_patch(ObjectRef::of(cm), one, Subresource::kMain, "ctrl");
  ASSERT_TRUE(partly.ok());
  ASSERT_NE(peek("ConfigMap", "ns", "cm"), nullptr) << "one finalizer left";
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->meta.deletion_ms, deleted_at);

  Object last = *peek("ConfigMap", "ns", "cm");
  last.meta.finalizers.clear();
  auto removed = api.server_update(last, Subresource::kMain, "ctrl");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(removed.value.meta.finalizers.empty());
  EXPECT_EQ(peek("ConfigMap", "ns", "cm"), nullptr) << "last finalizer removed: gone";
}

TEST_F(ApiDeletion, DeletionTimestampIsImmutable) {
  Object cm = make_configmap("ns", "cm");
  cm.meta.finalizers = {"a.io/keep"};
  Object live = must_create(cm);
  Object forged = live;
  forged.meta.deletion_ms = 42;
  auto invalid = api.server_update(forged, Subresource::kMain, "test");
  EXPECT_EQ(invalid.status.code, Code::kInvalid) << "an update cannot start a deletion";
  EXPECT_NE(invalid.status.message.find("metadata.deletionTimestamp"), std::string::npos);
  EXPECT_FALSE(peek("ConfigMap", "ns", "cm")->meta.deletion_ms.has_value());

  advance(100);
  ASSERT_TRUE(api.server_delete(ObjectRef::of(cm), {}, "test").ok());
  Object deleting = *peek("ConfigMap", "ns", "cm");
  const TimeMs stamp = *deleting.meta.deletion_ms;
  Object changed = deleting;
  changed.meta.deletion_ms = stamp + 1000;
  changed.data["x"] = "1";
  ASSERT_TRUE(api.server_update(changed, Subresource::kMain, "test").ok());
  Object cleared = *peek("ConfigMap", "ns", "cm");
  cleared.meta.deletion_ms.reset();
  cleared.data["x"] = "2";
  ASSERT_TRUE(api.server_update(cleared, Subresource::kMain, "test").ok());
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->meta.deletion_ms, stamp)
      << "an update can never change or remove the deletionTimestamp";
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->data.at("x"), "2");
}

TEST_F(ApiDeletion, NoNewFinalizersWhileBeingDeleted) {
  Object cm = make_configmap("ns", "cm");
  cm.meta.finalizers = {"a.io/keep"};
  must_create(cm);
  ASSERT_TRUE(api.server_delete(ObjectRef::of(cm), {}, "test").ok());
  MergePatch add;
  add.finalizers = std::vector<std::string>{"a.io/keep", "b.io/new"};
  auto result = api.server_patch(ObjectRef::of(cm), add, Subresource::kMain, "test");
  EXPECT_EQ(result.status.code, Code::kInvalid);
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->meta.finalizers, std::vector<std::string>{"a.io/keep"});
}

TEST_F(ApiDeletion, DeleteOfAnObjectAlreadyBeingDeletedIsANoOp) {
  Object d = make_deployment("ns", "d");
  d.meta.finalizers = {"a.io/keep"};
  must_create(d);
  ASSERT_TRUE(run(client.remove(ObjectRef::of(d))).ok());
  const Object before = *peek("Deployment", "ns", "d");
  const std::uint64_t rv = api.current_resource_version();
  advance(1000);
  Status again = run(client.remove(ObjectRef::of(d)));
  EXPECT_TRUE(again.ok());
  EXPECT_EQ(api.current_resource_version(), rv) << "nothing was written";
  EXPECT_EQ(*peek("Deployment", "ns", "d"), before);
}

TEST_F(ApiDeletion, GenerationBumpsWhenTheDeletionStarts) {
  Object d = make_deployment("ns", "d");
  d.meta.finalizers = {"a.io/keep"};
  must_create(d);
  ASSERT_TRUE(api.server_delete(ObjectRef::of(d), {}, "test").ok());
  EXPECT_EQ(peek("Deployment", "ns", "d")->meta.generation, 2)
      << "Kubernetes bumps metadata.generation when it first sets the deletionTimestamp";
}

TEST_F(ApiDeletion, ScheduledPodWaitsForItsGracePeriodThenTheKubelet) {
  must_create(make_pod("ns", "default-grace", "node-1"));
  Object spec_grace = make_pod("ns", "spec-grace", "node-1");
  spec_grace.spec["terminationGracePeriodMs"] = "1800000";
  must_create(spec_grace);
  must_create(make_pod("ns", "option-grace", "node-1"));
  advance(1000);

  ASSERT_TRUE(api.server_delete(ObjectRef{"Pod", "ns", "default-grace"}, {}, "test").ok());
  const Object* p = peek("Pod", "ns", "default-grace");
  ASSERT_NE(p, nullptr) << "a pod on a node stays until the kubelet has stopped it";
  EXPECT_EQ(p->meta.deletion_grace_period_ms, 30 * kSecondMs);
  EXPECT_EQ(p->meta.deletion_ms, 1000 + 30 * kSecondMs)
      << "deletionTimestamp = time of the delete + grace (a deadline, as in Kubernetes)";
  EXPECT_TRUE(p->meta.finalizers.empty()) << "pod deletion adds nothing else";

  ASSERT_TRUE(api.server_delete(ObjectRef{"Pod", "ns", "spec-grace"}, {}, "test").ok());
  EXPECT_EQ(peek("Pod", "ns", "spec-grace")->meta.deletion_grace_period_ms, 1800000);

  DeleteOptions short_grace;
  short_grace.grace_period_ms = 1000;
  ASSERT_TRUE(api.server_delete(ObjectRef{"Pod", "ns", "option-grace"}, short_grace, "test").ok());
  EXPECT_EQ(peek("Pod", "ns", "option-grace")->meta.deletion_grace_period_ms, 1000);

  // A second delete with a shorter grace period shortens it (ws-manager's stop with 1 s).
  ASSERT_TRUE(api.server_delete(ObjectRef{"Pod", "ns", "spec-grace"}, short_grace, "test").ok());
  EXPECT_EQ(peek("Pod", "ns", "spec-grace")->meta.deletion_grace_period_ms, 1000);
  EXPECT_EQ(*peek("Pod", "ns", "spec-grace")->meta.deletion_ms, sim.now_ms() + 1000);

  // Time alone removes nothing: the kubelet does.
  advance(5 * kMinuteMs);
  ASSERT_NE(peek("Pod", "ns", "default-grace"), nullptr);
  api.server_finalize(ObjectRef{"Pod", "ns", "default-grace"}, "kubelet/node-1");
  EXPECT_EQ(peek("Pod", "ns", "default-grace"), nullptr);
  DeleteOptions force;
  force.grace_period_ms = 0;
  ASSERT_TRUE(api.server_delete(ObjectRef{"Pod", "ns", "option-grace"}, force, "kubelet").ok());
  EXPECT_EQ(peek("Pod", "ns", "option-grace"), nullptr) << "grace 0 ends the grace period";
}

TEST_F(ApiDeletion, PodWithFinalizerOutlivesItsGracePeriodUntilTheFinalizerGoes) {
  Object pod = make_pod("ns", "ws-1", "node-1");
  pod.meta.finalizers = {"gitpod.io/finalizer"};
  must_create(pod);
  ASSERT_TRUE(api.server_delete(ObjectRef::of(pod), {}, "test").ok());
  api.server_finalize(ObjectRef::of(pod), "kubelet/node-1");
  const Object* p = peek("Pod", "ns", "ws-1");
  ASSERT_NE(p, nullptr) << "docs/systems/gitpod.md §1.2: the finalizer blocks removal";
  EXPECT_EQ(p->meta.deletion_grace_period_ms, 0);
  MergePatch done;
  done.finalizers = std::vector<std::string>{};
  ASSERT_TRUE(api.server_patch(ObjectRef::of(pod), done, Subresource::kMain, "ws-manager").ok());
  EXPECT_EQ(peek("Pod", "ns", "ws-1"), nullptr);
}

TEST_F(ApiDeletion, UnscheduledOrFinishedPodsAreRemovedAtOnce) {
  must_create(make_pod("ns", "pending"));
  ASSERT_TRUE(api.server_delete(ObjectRef{"Pod", "ns", "pending"}, {}, "test").ok());
  EXPECT_EQ(peek("Pod", "ns", "pending"), nullptr) << "no nodeName: nothing to stop";

  Object done = must_create(make_pod("ns", "done", "node-1"));
  done.status["phase"] = "Failed";
  done.status["reason"] = "OutOfcpu";
  ASSERT_TRUE(api.server_update(done, Subresource::kStatus, "kubelet").ok());
  ASSERT_TRUE(api.server_delete(ObjectRef{"Pod", "ns", "done"}, {}, "test").ok());
  EXPECT_EQ(peek("Pod", "ns", "done"), nullptr) << "a Failed pod has no grace period";
}

}  // namespace
}  // namespace wsim::kube
