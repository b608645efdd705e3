// Conformance: cli-utils-style inventories (sim/kube/README.md, row "inventories";
// docs/systems/gitlab.md §5.6, §5.7).
#include "sim/kube/inventory.h"

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

Object owned(Object o, const std::string& inventory) {
  o.meta.annotations[kOwningInventoryAnnotation] = inventory;
  return o;
}

Object inventory_cm(const std::string& ns, const std::string& name) {
  Object cm = make_configmap(ns, name);
  cm.meta.labels[kInventoryIdLabel] = name;
  return cm;
}

TEST(InventoryKeys, FormatMatchesCliUtilsAndParsesBack) {
  EXPECT_EQ(inventory_key(ObjectRef{"Service", "ns", "ws1"}), "ns_ws1__Service");
  EXPECT_EQ(inventory_key(ObjectRef{"Deployment", "ns", "ws1"}), "ns_ws1_apps_Deployment");
  EXPECT_EQ(inventory_key(ObjectRef{"NetworkPolicy", "ns", "ws1"}),
            "ns_ws1_networking.k8s.io_NetworkPolicy");
  EXPECT_EQ(inventory_key(ObjectRef{"Role", "ns", "system:agent"}),
            "ns_system__agent_rbac.authorization.k8s.io_Role");
  EXPECT_EQ(inventory_key(ObjectRef{"Namespace", "", "ns1"}), "_ns1__Namespace");
  for (const ObjectRef& ref :
       {ObjectRef{"Service", "ns", "ws1"}, ObjectRef{"Deployment", "gl-rd-ns-1", "ws-1"},
        ObjectRef{"NetworkPolicy", "ns", "ws1"}, ObjectRef{"Role", "ns", "system:agent"},
        ObjectRef{"Namespace", "", "ns1"}, ObjectRef{"PersistentVolumeClaim", "n", "a.b-c"}}) {
    auto parsed = parse_inventory_key(inventory_key(ref));
    ASSERT_TRUE(parsed.has_value()) << ref.to_string();
    EXPECT_EQ(parsed->ref, ref);
    EXPECT_EQ(parsed->group, api_group(ref.kind));
  }
  for (const char* bad : {"", "plain", "a_b", "ns_name_", "ns__apps_Deployment"}) {
    EXPECT_FALSE(parse_inventory_key(bad).has_value()) << bad;
  }
}

TEST(InventoryKeys, ObjectRefsComeFromTheDataKeys) {
  Object inv = inventory_cm("ns", "ws1-workspace-inventory");
  inv.data["ns_ws1_apps_Deployment"] = "";
  inv.data["ns_ws1__Service"] = "";
  inv.data["garbage"] = "";
  EXPECT_EQ(inventory_object_refs(inv),
            (std::vector<ObjectRef>{ObjectRef{"Service", "ns", "ws1"},
                                    ObjectRef{"Deployment", "ns", "ws1"}}))
      << "in data key order";
  EXPECT_TRUE(is_inventory(inv));
  EXPECT_FALSE(is_inventory(make_configmap("ns", "plain")));
}

TEST(InventoryGrouping, GroupsByOwningInventoryLikeAgentk) {
  std::vector<Object> config{
      inventory_cm("ns", "ws1-workspace-inventory"),
      owned(make_deployment("ns", "ws1"), "ws1-workspace-inventory"),
      inventory_cm("ns", "ws1-secrets-inventory"),
      owned(make_object("Secret", "ns", "ws1-env"), "ws1-secrets-inventory"),
      owned(make_object("Service", "ns", "ws1"), "ws1-workspace-inventory"),
  };
  auto grouped = group_by_inventory(config);
  ASSERT_TRUE(grouped.ok()) << grouped.status.message;
  ASSERT_EQ(grouped.value.size(), 2u);
  EXPECT_EQ(grouped.value[0].inventory.meta.name, "ws1-secrets-inventory");
  ASSERT_EQ(grouped.value[0].objects.size(), 1u);
  EXPECT_EQ(grouped.value[1].inventory.meta.name, "ws1-workspace-inventory");
  ASSERT_EQ(grouped.value[1].objects.size(), 2u);
  EXPECT_EQ(grouped.value[1].objects[0].kind, "Deployment");
  EXPECT_EQ(grouped.value[1].objects[1].kind, "Service");
  // R3 sends only the inventories: groups without objects.
  auto only = group_by_inventory({inventory_cm("ns", "ws1-workspace-inventory")});
  ASSERT_TRUE(only.ok());
  EXPECT_TRUE(only.value[0].objects.empty());
}

TEST(InventoryGrouping, ErrorsAreAgentksErrors) {
  auto none = group_by_inventory({owned(make_deployment("ns", "ws1"), "inv")});
  EXPECT_EQ(none.status.code, Code::kInvalid);
  EXPECT_EQ(none.status.message, "no inventory found");
  EXPECT_EQ(group_by_inventory({}).status.message, "no inventory found");
  auto unowned = group_by_inventory({inventory_cm("ns", "inv"), make_deployment("ns", "ws1")});
  EXPECT_EQ(unowned.status.message, "no owning inventory found");
  auto unknown =
      group_by_inventory({inventory_cm("ns", "inv"), owned(make_deployment("ns", "ws1"), "x")});
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status.message.find("panics"), std::string::npos);
}

class InventoryApply : public KubeTest {
 protected:
  void SetUp() override { must_create(make_namespace("ns")); }
  InventoryApplyResult apply(std::vector<Object> objects, Fields caller_data = {}) {
    Object inv = inventory_cm("ns", "ws1-workspace-inventory");
    inv.data = std::move(caller_data);
    return run(apply_inventory_group(agent, inv, std::move(objects), "agentk"));
  }
  std::vector<std::string> live_keys() {
    std::vector<std::string> keys;
    const Object* inv = peek("ConfigMap", "ns", "ws1-workspace-inventory");
    if (inv) {
      for (const auto& [k, v] : inv->data) {
        EXPECT_EQ(v, "") << "StatusPolicyNone: every value is empty";
        keys.push_back(k);
      }
    }
    return keys;
  }
  std::vector<Object> workspace(bool with_service = true) {
    std::vector<Object> objects{owned(make_deployment("ns", "ws1"), "ws1-workspace-inventory")};
    if (with_service) {
      objects.push_back(owned(make_object("Service", "ns", "ws1"), "ws1-workspace-inventory"));
    }
    objects.push_back(
        owned(make_object("PersistentVolumeClaim", "ns", "ws1-pvc"), "ws1-workspace-inventory"));
    return objects;
  }
  Client agent = api.client("agentk");
};

TEST_F(InventoryApply, RecordsEveryAppliedObjectInTheInventoryData) {
  InventoryApplyResult result = apply(workspace(), {{"caller_data_is_ignored", "x"}});
  ASSERT_TRUE(result.ok()) << (result.errors.empty() ? result.inventory_status.message
                                                     : result.errors[0]);
  EXPECT_EQ(result.applied.size(), 3u);
  EXPECT_EQ(live_keys(), (std::vector<std::string>{"ns_ws1-pvc__PersistentVolumeClaim",
                                                   "ns_ws1__Service", "ns_ws1_apps_Deployment"}));
  const Object* d = peek("Deployment", "ns", "ws1");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->meta.annotations.at(kOwningInventoryAnnotation), "ws1-workspace-inventory");
  EXPECT_EQ(peek("ConfigMap", "ns", "ws1-workspace-inventory")->meta.labels.at(kInventoryIdLabel),
            "ws1-workspace-inventory");
}

TEST_F(InventoryApply, ObjectsNoLongerListedArePruned) {
  ASSERT_TRUE(apply(workspace()).ok());
  InventoryApplyResult second = apply(workspace(/*with_service=*/false));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second.pruned, (std::vector<ObjectRef>{ObjectRef{"Service", "ns", "ws1"}}));
  EXPECT_EQ(peek("Service", "ns", "ws1"), nullptr);
  EXPECT_EQ(live_keys(), (std::vector<std::string>{"ns_ws1-pvc__PersistentVolumeClaim",
                                                   "ns_ws1_apps_Deployment"}));
  // Applying the empty set prunes everything (cli-utils "destroy" through the inventory).
  InventoryApplyResult empty = apply({});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty.pruned.size(), 2u);
  EXPECT_EQ(peek("Deployment", "ns", "ws1"), nullptr);
  EXPECT_TRUE(live_keys().empty());
}

TEST_F(InventoryApply, PruneIgnoresNotFoundAndObjectsOwnedByAnotherInventory) {
  ASSERT_TRUE(apply(workspace()).ok());
  ASSERT_TRUE(api.server_delete(ObjectRef{"Service", "ns", "ws1"}, {}, "kubectl").ok());
  MergePatch steal;
  steal.annotations[kOwningInventoryAnnotation] = "someone-else";
  ASSERT_TRUE(api.server_patch(ObjectRef{"PersistentVolumeClaim", "ns", "ws1-pvc"}, steal,
                               Subresource::kMain, "kubectl")
                  .ok());
  InventoryApplyResult result =
      apply({owned(make_deployment("ns", "ws1"), "ws1-workspace-inventory")});
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.pruned, (std::vector<ObjectRef>{ObjectRef{"Service", "ns", "ws1"}}))
      << "already gone counts as pruned";
  EXPECT_NE(peek("PersistentVolumeClaim", "ns", "ws1-pvc"), nullptr) << "not ours: kept";
  EXPECT_EQ(live_keys(), (std::vector<std::string>{"ns_ws1_apps_Deployment"}));
}

TEST_F(InventoryApply, ObjectErrorsAreCollectedNotFatal) {
  must_create(make_configmap("ns", "adopt-me"));
  api.deny("agentk", Verb::kCreate, "Service");
  std::vector<Object> objects = workspace();
  objects.push_back(owned(make_configmap("ns", "adopt-me"), "ws1-workspace-inventory"));
  InventoryApplyResult result = apply(objects);
  EXPECT_TRUE(result.inventory_status.ok());
  ASSERT_EQ(result.errors.size(), 2u);
  EXPECT_NE(result.errors[0].find("apply Service/ns/ws1: Forbidden"), std::string::npos)
      << result.errors[0];
  EXPECT_NE(result.errors[1].find("inventory policy prevented actuation"), std::string::npos)
      << result.errors[1];
  EXPECT_EQ(result.applied.size(), 2u) << "the other objects were applied";
  EXPECT_NE(peek("PersistentVolumeClaim", "ns", "ws1-pvc"), nullptr);
  EXPECT_EQ(live_keys(), (std::vector<std::string>{"ns_ws1-pvc__PersistentVolumeClaim",
                                                   "ns_ws1_apps_Deployment"}))
      << "failed new objects are not recorded";
}

TEST_F(InventoryApply, InventoryDeletedMidwayIsReportedAtTheEnd) {
  // kubectl deletes the inventory ConfigMap while the applier works on the objects: every
  // API call of the applier is an interleaving point.
  api.subscribe("Deployment", [this](const WatchEvent& e) {
    if (e.type == WatchEventType::kAdded) {
      api.server_delete(ObjectRef{"ConfigMap", "ns", "ws1-workspace-inventory"}, {}, "kubectl");
    }
  });
  InventoryApplyResult result = apply(workspace());
  EXPECT_EQ(result.inventory_status.code, Code::kNotFound);
  EXPECT_EQ(result.applied.size(), 3u);
  EXPECT_EQ(peek("ConfigMap", "ns", "ws1-workspace-inventory"), nullptr);
}

TEST_F(InventoryApply, ForbiddenInventoryStopsTheRun) {
  api.deny("agentk", Verb::kCreate, "ConfigMap");
  InventoryApplyResult result = apply(workspace());
  EXPECT_EQ(result.inventory_status.code, Code::kForbidden);
  EXPECT_TRUE(result.applied.empty());
  EXPECT_EQ(peek("Deployment", "ns", "ws1"), nullptr);
}

}  // namespace
}  // namespace wsim::kube
