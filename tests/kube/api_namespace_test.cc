// Conformance: namespace lifecycle on the server side (sim/kube/README.md, row "namespaces").
// Content removal by the namespace controller is pinned in controllers_test.cc.
#include <gtest/gtest.h>

#include "sim/kube/api_server.h"
#include "tests/kube/api_test_util.h"

namespace wsim::kube {
namespace {

using testing::KubeTest;
using testing::make_configmap;
using testing::make_namespace;

class ApiNamespaces : public KubeTest {
 protected:
  Client agent = api.client("agentk");
  // What the namespace controller does once the namespace is empty: clear spec.finalizers.
  void finalize_namespace(const std::string& name) {
    MergePatch clear;
    clear.spec["finalizers"] = std::nullopt;
    auto r = api.server_patch(ObjectRef{"Namespace", "", name}, clear, Subresource::kMain,
                              "namespace-controller");
    ASSERT_TRUE(r.ok()) << r.status.message;
  }
};

TEST_F(ApiNamespaces, CreatedNamespaceIsActiveWithTheKubernetesFinalizer) {
  auto created = run(agent.create(make_namespace("gl-rd-ns-1")));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created.value.status_or("phase", ""), "Active");
  EXPECT_EQ(created.value.spec_or("finalizers", ""), "kubernetes");
  EXPECT_EQ(created.value.meta.namespace_, "");
}

TEST_F(ApiNamespaces, DeleteStartsTerminationAndTheNamespaceIsStillFound) {
  must_create(make_namespace("ns"));
  ASSERT_TRUE(run(agent.remove(ObjectRef{"Namespace", "", "ns"})).ok());
  auto got = run(agent.get(ObjectRef{"Namespace", "", "ns"}));
  ASSERT_TRUE(got.ok()) << "a Terminating namespace still exists (NamespaceExists = true)";
  EXPECT_EQ(got.value.status_or("phase", ""), "Terminating");
  EXPECT_TRUE(got.value.meta.deletion_ms.has_value());
  EXPECT_EQ(got.value.spec_or("finalizers", ""), "kubernetes");
}

TEST_F(ApiNamespaces, CreateInATerminatingNamespaceIsForbidden) {
  must_create(make_namespace("ns"));
  must_create(make_configmap("ns", "keep"));
  ASSERT_TRUE(api.server_delete(ObjectRef{"Namespace", "", "ns"}, {}, "kubectl").ok());
  auto created = run(agent.create(make_configmap("ns", "cm")));
  EXPECT_EQ(created.status.code, Code::kForbidden);
  EXPECT_EQ(created.status.message,
            "ConfigMap \"cm\" is forbidden: unable to create new content in namespace ns "
            "because it is being terminated");
  auto applied = run(agent.apply(make_configmap("ns", "cm2"), "agentk"));
  EXPECT_EQ(applied.status.code, Code::kForbidden) << "apply that creates is a create";
  MergePatch p;
  p.data["x"] = "1";
  EXPECT_TRUE(run(agent.patch(ObjectRef{"ConfigMap", "ns", "keep"}, p)).ok())
      << "existing content can still be written";
}

TEST_F(ApiNamespaces, DeleteOfATerminatingNamespaceIsConflict) {
  must_create(make_namespace("ns"));
  ASSERT_TRUE(run(agent.remove(ObjectRef{"Namespace", "", "ns"})).ok());
  Status again = run(agent.remove(ObjectRef{"Namespace", "", "ns"}));
  EXPECT_EQ(again.code, Code::kConflict);
  EXPECT_EQ(again.message,
            "Operation cannot be fulfilled on namespaces \"ns\": The system is ensuring all "
            "content is removed from this namespace.  Upon completion, this namespace will "
            "automatically be purged by the system.");
}

TEST_F(ApiNamespaces, RecreateWhileTerminatingIsAlreadyExistsAndWorksOnceGone) {
  Object first = must_create(make_namespace("ns"));
  ASSERT_TRUE(api.server_delete(ObjectRef{"Namespace", "", "ns"}, {}, "kubectl").ok());
  auto early = run(agent.create(make_namespace("ns")));
  EXPECT_EQ(early.status.code, Code::kAlreadyExists);

  finalize_namespace("ns");
  EXPECT_EQ(peek("Namespace", "", "ns"), nullptr) << "spec.finalizers empty: purged";
  EXPECT_EQ(run(agent.get(ObjectRef{"Namespace", "", "ns"})).status.code, Code::kNotFound);
  EXPECT_EQ(run(agent.remove(ObjectRef{"Namespace", "", "ns"})).code, Code::kNotFound);

  auto again = run(agent.create(make_namespace("ns")));
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again.value.meta.uid, first.meta.uid);
  EXPECT_EQ(again.value.status_or("phase", ""), "Active");
  EXPECT_TRUE(run(agent.create(make_configmap("ns", "cm"))).ok());
}

}  // namespace
}  // namespace wsim::kube
