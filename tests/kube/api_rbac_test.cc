// Conformance: RBAC-lite (sim/kube/README.md, row "RBAC-lite").
#include <gtest/gtest.h>

#include "sim/kube/api_server.h"
#include "sim/kube/informer.h"
#include "tests/kube/api_test_util.h"

namespace wsim::kube {
namespace {

using testing::KubeTest;
using testing::make_configmap;
using testing::make_namespace;

class ApiRbac : public KubeTest {};

TEST_F(ApiRbac, DeniedVerbIsForbiddenWithAMessageNamingIdentityVerbAndKind) {
  must_create(make_namespace("shared"));
  // Shared-namespace mode: the agent may not create or delete namespaces.
  api.deny("agentk", Verb::kCreate, "Namespace");
  api.deny("agentk", Verb::kDelete, "Namespace");
  Client agent = api.client("agentk");
  auto created = run(agent.create(make_namespace("ws-1")));
  EXPECT_EQ(created.status.code, Code::kForbidden);
  EXPECT_EQ(created.status.message,
            "Namespace \"ws-1\" is forbidden: User \"agentk\" cannot create resource "
            "\"Namespace\" at the cluster scope");
  Status deleted = run(agent.remove(ObjectRef{"Namespace", "", "shared"}));
  EXPECT_EQ(deleted.code, Code::kForbidden);
  EXPECT_NE(deleted.message.find("cannot delete"), std::string::npos);
  EXPECT_EQ(peek("Namespace", "", "ws-1"), nullptr);
  EXPECT_FALSE(peek("Namespace", "", "shared")->meta.deletion_ms.has_value());
  EXPECT_EQ(sim.trace().events().back().result, "Forbidden");

  EXPECT_TRUE(run(agent.get(ObjectRef{"Namespace", "", "shared"})).ok()) << "get is allowed";
  EXPECT_TRUE(run(agent.create(make_configmap("shared", "cm"))).ok()) << "other kinds too";
  Client admin = api.client("kubectl");
  EXPECT_TRUE(run(admin.create(make_namespace("ws-1"))).ok()) << "other identities too";

  api.allow("agentk", Verb::kCreate, "Namespace");
  EXPECT_TRUE(run(agent.create(make_namespace("ws-2"))).ok());
}

TEST_F(ApiRbac, EmptyKindDeniesEveryKind) {
  must_create(make_namespace("ns"));
  must_create(make_configmap("ns", "cm"));
  api.deny("viewer", Verb::kDelete, "");
  Client viewer = api.client("viewer");
  EXPECT_EQ(run(viewer.remove(ObjectRef{"ConfigMap", "ns", "cm"})).code, Code::kForbidden);
  EXPECT_EQ(run(viewer.remove(ObjectRef{"Namespace", "", "ns"})).code, Code::kForbidden);
  EXPECT_TRUE(run(viewer.list("ConfigMap", "ns")).ok());
}

TEST_F(ApiRbac, ApplyNeedsPatchAndCreateWhenTheObjectIsNew) {
  must_create(make_namespace("ns"));
  must_create(make_configmap("ns", "existing"));
  api.deny("agentk", Verb::kCreate, "ConfigMap");
  Client agent = api.client("agentk");
  auto fresh = run(agent.apply(make_configmap("ns", "new", {{"a", "1"}}), "agentk"));
  EXPECT_EQ(fresh.status.code, Code::kForbidden);
  EXPECT_NE(fresh.status.message.find("cannot create"), std::string::npos);
  EXPECT_TRUE(run(agent.apply(make_configmap("ns", "existing", {{"a", "1"}}), "agentk")).ok());
  api.deny("agentk", Verb::kPatch, "ConfigMap");
  auto patched = run(agent.apply(make_configmap("ns", "existing", {{"a", "2"}}), "agentk"));
  EXPECT_EQ(patched.status.code, Code::kForbidden);
  EXPECT_EQ(peek("ConfigMap", "ns", "existing")->data.at("a"), "1");
}

TEST_F(ApiRbac, InformerWithoutListPermissionNeverSyncs) {
  must_create(make_namespace("ns"));
  api.deny("agentk", Verb::kList, "Deployment");
  Informer informer(sim, api, InformerOptions{"agentk", "Deployment", "", {}});
  informer.start();
  advance(2 * kMinuteMs);
  EXPECT_FALSE(informer.synced());
  EXPECT_EQ(informer.list_count(), 0u);
  api.allow("agentk", Verb::kList, "Deployment");
  advance(2 * kMinuteMs);
  EXPECT_TRUE(informer.synced()) << "the retry (with backoff) succeeds once allowed";
}

}  // namespace
}  // namespace wsim::kube
