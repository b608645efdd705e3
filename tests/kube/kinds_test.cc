// The kind registry (sim/kube/kinds.h): one table for scope, group, plural and the store's
// per-kind strategy; custom kinds declared by a system join it.
#include "sim/kube/kinds.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sim/kube/inventory.h"
#include "tests/kube/api_test_util.h"

namespace wsim::kube {
namespace {

using testing::KubeTest;
using testing::make_object;

TEST(KindRegistry, BuiltInKindsCarryTheirScopeGroupAndPlural) {
  const KindInfo* ns = find_kind("Namespace");
  ASSERT_NE(ns, nullptr);
  EXPECT_TRUE(ns->cluster_scoped());
  EXPECT_EQ(ns->plural, "namespaces");
  EXPECT_EQ(ns->initial_phase, "Active");
  const KindInfo* deployment = find_kind("Deployment");
  ASSERT_NE(deployment, nullptr);
  EXPECT_EQ(deployment->api_version(), "apps/v1");
  EXPECT_TRUE(deployment->has_scale);
  // The primary Event is the core one; events.k8s.io is a second entry of the same kind.
  EXPECT_EQ(find_kind("Event")->group, "");
  EXPECT_TRUE(find_kind("Pod")->graceful_deletion);
  EXPECT_TRUE(find_kind("Node")->create_keeps_status);
  EXPECT_TRUE(is_cluster_scoped("ClusterRole"));
  EXPECT_FALSE(is_cluster_scoped("ConfigMap"));
  // Unknown kinds: namespaced, no group, no strategy.
  EXPECT_EQ(find_kind("Widget"), nullptr);
  EXPECT_FALSE(kind_info("Widget").cluster_scoped());
  EXPECT_EQ(api_group("Widget"), "");
}

TEST(KindRegistry, InventoryGroupsComeFromTheRegistry) {
  EXPECT_EQ(api_group("Lease"), "coordination.k8s.io");
  EXPECT_EQ(api_group("StatefulSet"), "apps");
  EXPECT_EQ(api_group("RoleBinding"), "rbac.authorization.k8s.io");
  EXPECT_EQ(api_group("ConfigMap"), "");
}

TEST(KindRegistry, EveryPathIsUnique) {
  std::set<std::string> paths;
  for (const KindInfo* info : registered_kinds()) {
    EXPECT_TRUE(paths.insert(info->group + "/" + info->version + "/" + info->plural).second)
        << info->kind;
  }
}

class CustomKinds : public KubeTest {};

// A system's cluster-scoped custom kind is normalized like a built-in one: the store drops its
// namespace, and a second registration changes nothing.
TEST_F(CustomKinds, ARegisteredClusterScopedKindHasNoNamespace) {
  const std::size_t before = registered_kinds().size();
  KindInfo gadget;
  gadget.kind = "Gadget";
  gadget.group = "example.com";
  gadget.scope = KindScope::kCluster;
  register_custom_kind(gadget);
  register_custom_kind(gadget);
  EXPECT_LE(registered_kinds().size(), before + 1);
  ASSERT_NE(find_kind("Gadget"), nullptr);
  EXPECT_TRUE(find_kind("Gadget")->custom);
  EXPECT_EQ(find_kind("Gadget")->plural, "gadgets");
  EXPECT_EQ(api_group("Gadget"), "example.com");
  Object created = must_create(make_object("Gadget", "ignored", "g1"));
  EXPECT_EQ(created.meta.namespace_, "");
  EXPECT_NE(peek("Gadget", "other", "g1"), nullptr);
}

// The one listener interface (ApiServer::subscribe, ListenAt): inside the write the per-kind
// listeners hear a change before the all-kind ones, both before any in-order listener; every
// listener gets the state before the change.
class Listening : public KubeTest {};

TEST_F(Listening, InsideWriteListenersHearAChangeFirstAndEveryListenerGetsThePreviousState) {
  std::vector<std::string> heard;
  api.subscribe(
      "", [&](const WatchEvent& e) { heard.push_back("all-in-order " + e.object.kind); },
      ListenAt::kInOrder);
  api.subscribe(
      "", [&](const WatchEvent& e) { heard.push_back("all-inside " + e.object.kind); },
      ListenAt::kInsideWrite);
  api.subscribe(
      "Namespace", [&](const WatchEvent& e) { heard.push_back("kind-inside " + e.object.kind); },
      ListenAt::kInsideWrite);
  std::vector<std::string> previous_phase;
  api.subscribe("Namespace", [&](const WatchEvent& e) {
    previous_phase.push_back(e.previous == nullptr ? "none" : e.previous->status_or("phase", ""));
  });
  must_create(make_object("Namespace", "", "ns1"));
  // The in-order all-kind listener was subscribed first, yet hears the change last.
  EXPECT_EQ(heard, (std::vector<std::string>{"kind-inside Namespace", "all-inside Namespace",
                                             "all-in-order Namespace"}));
  ASSERT_TRUE(api.server_delete(ObjectRef{"Namespace", "", "ns1"}, DeleteOptions{}, "test").ok());
  EXPECT_EQ(previous_phase, (std::vector<std::string>{"none", "Active"}));
}

}  // namespace
}  // namespace wsim::kube
