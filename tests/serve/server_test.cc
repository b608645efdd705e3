// serve/server.h over HTTP: a live sim/kube cluster behind the front-end, driven with
// cpp-httplib's client the way kubectl and client libraries call it.
#include "serve/server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <thread>

#include "serve/codec.h"
#include "serve/table.h"
#include "sim/core/choice.h"
#include "sim/kube/cluster.h"
#include "tests/serve/test_kinds.h"

namespace wsim::serve {
namespace {

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_test_kinds();
    start(10000);
  }
  void TearDown() override { stop(); }

  void start(std::size_t history_events) {
    sim_ = std::make_unique<Sim>(ChoiceSource::from_seed(1));
    kube::ClusterOptions options;
    options.api.default_fault_rules = false;
    cluster_ = std::make_unique<kube::Cluster>(*sim_, options);
    cluster_->start();
    world_ = std::make_unique<World>(*sim_, cluster_->api(), history_events);
    server_ = std::make_unique<Server>(*world_, ServerOptions{});
    std::string error;
    port_ = server_->bind(error);
    ASSERT_GT(port_, 0) << error;
    thread_ = std::thread([this] { server_->run(); });
    client_ = std::make_unique<httplib::Client>(kLoopback, port_);
    client_->set_read_timeout(10, 0);
  }
  // Tears down in reverse order of construction (the server refers to the world, the world to
  // the cluster's API server, the cluster to the Sim).
  void stop() {
    client_.reset();
    server_->stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
    world_.reset();
    cluster_.reset();
    sim_.reset();
  }

  Json get(const std::string& path, int expected_code = 200) {
    auto res = client_->Get(path.c_str());
    EXPECT_TRUE(res) << path;
    if (!res) return Json();
    EXPECT_EQ(res->status, expected_code) << path << ": " << res->body;
    return Json::parse(res->body, nullptr, false);
  }
  Json send(const std::string& method, const std::string& path, const Json& body, int expected_code,
            const std::string& type = "application/json") {
    httplib::Result res = method == "POST"  ? client_->Post(path.c_str(), body.dump(), type.c_str())
                          : method == "PUT" ? client_->Put(path.c_str(), body.dump(), type.c_str())
                          : method == "PATCH"
                              ? client_->Patch(path.c_str(), body.dump(), type.c_str())
                              : client_->Delete(path.c_str(), body.dump(), type.c_str());
    EXPECT_TRUE(res) << method << " " << path;
    if (!res) return Json();
    EXPECT_EQ(res->status, expected_code) << method << " " << path << ": " << res->body;
    return Json::parse(res->body, nullptr, false);
  }
  Json configmap(const std::string& name, const std::string& ns = "default") {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", "a"}}}}},
            {"data", {{"k", "v"}}}};
  }

  std::unique_ptr<Sim> sim_;
  std::unique_ptr<kube::Cluster> cluster_;
  std::unique_ptr<World> world_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<httplib::Client> client_;
  std::thread thread_;
  int port_ = -1;
};

const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

TEST_F(ServeTest, DiscoveryListsCoreAppsAndTheWorkspaceGroup) {
  EXPECT_EQ(get("/version")["major"], "1");
  EXPECT_EQ(get("/api")["versions"][0], "v1");
  const Json groups = get("/apis")["groups"];
  std::vector<std::string> names;
  for (const Json& g : groups) names.push_back(g["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"apps", "events.k8s.io", "coordination.k8s.io",
                                             "networking.k8s.io", "apiextensions.k8s.io",
                                             "workspace.gitpod.io"}));
  const Json apps = get("/apis/apps/v1");
  EXPECT_EQ(apps["resources"][0]["name"], "deployments");
  EXPECT_EQ(apps["resources"][0]["namespaced"], true);
  const Json ws = get("/apis/workspace.gitpod.io/v1");
  EXPECT_EQ(ws["resources"][0]["kind"], "Workspace");
  EXPECT_EQ(ws["resources"][1]["name"], "workspaces/status");
  EXPECT_EQ(get("/apis/nope/v1", 404)["reason"], "NotFound");
}

TEST_F(ServeTest, CreateGetAndAlreadyExists) {
  const Json created = send("POST", kConfigMaps, configmap("a"), 201);
  EXPECT_FALSE(created["metadata"]["uid"].get<std::string>().empty());
  const Json got = get(std::string(kConfigMaps) + "/a");
  EXPECT_EQ(got["data"]["k"], "v");
  EXPECT_EQ(got["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  const Json again = send("POST", kConfigMaps, configmap("a"), 409);
  EXPECT_EQ(again["reason"], "AlreadyExists");
  EXPECT_EQ(get(std::string(kConfigMaps) + "/missing", 404)["reason"], "NotFound");
  EXPECT_EQ(
      send("POST", "/api/v1/namespaces/nope/configmaps", configmap("a", "nope"), 404)["reason"],
      "NotFound");
}

TEST_F(ServeTest, UpdateWithAStaleResourceVersionIsConflict) {
  Json object = send("POST", kConfigMaps, configmap("a"), 201);
  const std::string path = std::string(kConfigMaps) + "/a";
  Json fresh = object;
  fresh["data"]["k"] = "v2";
  const Json updated = send("PUT", path, fresh, 200);
  EXPECT_EQ(updated["data"]["k"], "v2");
  object["data"]["k"] = "v3";  // Still the old resourceVersion.
  const Json conflict = send("PUT", path, object, 409);
  EXPECT_EQ(conflict["reason"], "Conflict");
  EXPECT_EQ(get(path)["data"]["k"], "v2");
  EXPECT_EQ(send("PUT", path, configmap("b"), 400)["reason"], "BadRequest");
}

TEST_F(ServeTest, MergeJsonAndStrategicMergePatches) {
  send("POST", kConfigMaps, configmap("a"), 201);
  const std::string path = std::string(kConfigMaps) + "/a";
  Json patched = send("PATCH", path, {{"metadata", {{"labels", {{"app", nullptr}, {"x", "1"}}}}}},
                      200, "application/merge-patch+json");
  EXPECT_FALSE(patched["metadata"]["labels"].contains("app"));
  EXPECT_EQ(patched["metadata"]["labels"]["x"], "1");
  patched = send("PATCH", path, Json::array({{{"op", "add"}, {"path", "/data/j"}, {"value", "w"}}}),
                 200, "application/json-patch+json");
  EXPECT_EQ(patched["data"]["j"], "w");
  patched = send("PATCH", path, {{"data", {{"s", "t"}}}, {"$setElementOrder/x", Json::array()}},
                 200, "application/strategic-merge-patch+json");
  EXPECT_EQ(patched["data"]["s"], "t");
  const Json stale = send("PATCH", path, {{"metadata", {{"resourceVersion", "1"}}}}, 409,
                          "application/merge-patch+json");
  EXPECT_EQ(stale["reason"], "Conflict");
  const Json bad = send("PATCH", path, {{"metadata", {{"labels", {{"y", 5}}}}}}, 422,
                        "application/merge-patch+json");
  EXPECT_EQ(bad["reason"], "Invalid");
  EXPECT_NE(bad["message"].get<std::string>().find("metadata.labels.y"), std::string::npos);
  EXPECT_EQ(send("PATCH", path, Json::object(), 415, "text/plain")["reason"],
            "UnsupportedMediaType");
}

// issue #32 item 2 over HTTP: a failing RFC 6902 `test` is 422 Invalid and changes nothing;
// server-side apply by two managers is a 409 Conflict in Kubernetes' words (details.causes),
// `force=true` takes the field. serve_patch_test has the rules as pure functions.
TEST_F(ServeTest, AFailedJsonPatchTestIs422AndApplyConflictsAre409) {
  send("POST", kConfigMaps, configmap("a"), 201);
  const std::string path = std::string(kConfigMaps) + "/a";
  const Json before = get(path);
  const Json failed =
      send("PATCH", path, Json::parse(R"([{"op":"test","path":"/data/k","value":"other"},
                                          {"op":"add","path":"/data/z","value":"1"}])"),
           422, "application/json-patch+json");
  EXPECT_EQ(failed["reason"], "Invalid");
  EXPECT_EQ(get(path)["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"]);
  EXPECT_FALSE(get(path)["data"].contains("z"));
  const std::string cfg = std::string(kConfigMaps) + "/cfg";
  const Json one = {{"apiVersion", "v1"},
                    {"kind", "ConfigMap"},
                    {"metadata", {{"name", "cfg"}}},
                    {"data", {{"a", "1"}}}};
  send("PATCH", cfg + "?fieldManager=one", one, 201, "application/apply-patch+yaml");
  Json two = one;
  two["data"]["a"] = "2";
  const Json conflict =
      send("PATCH", cfg + "?fieldManager=two", two, 409, "application/apply-patch+yaml");
  EXPECT_EQ(conflict["reason"], "Conflict");
  EXPECT_EQ(conflict["message"], "Apply failed with 1 conflict: conflict with \"one\": .data.a");
  EXPECT_EQ(conflict["details"]["causes"][0]["field"], ".data.a");
  EXPECT_EQ(conflict["details"]["causes"][0]["reason"], "FieldManagerConflict");
  const Json forced =
      send("PATCH", cfg + "?fieldManager=two&force=true", two, 200, "application/apply-patch+yaml");
  EXPECT_EQ(forced["data"]["a"], "2");
  ASSERT_EQ(forced["metadata"]["managedFields"].size(), 1u) << forced.dump();
  EXPECT_EQ(forced["metadata"]["managedFields"][0]["manager"], "two");
  EXPECT_EQ(send("PATCH", cfg, one, 422, "application/apply-patch+yaml")["reason"], "Invalid");
}

// issue #32 item 3: the kinds controllers use, each written and read back over HTTP (client-node
// and kubectl cover some end to end; this names every one).
TEST_F(ServeTest, ServicesClaimsPoliciesEventsAndLeasesAreServed) {
  const std::string core = "/api/v1/namespaces/default/";
  Json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", "web"}}},
              {"spec",
               {{"selector", {{"app", "web"}}},
                {"ports", {{{"port", 80}, {"targetPort", 8080}, {"protocol", "TCP"}}}}}}};
  EXPECT_EQ(send("POST", core + "services", svc, 201)["spec"]["ports"][0]["targetPort"], 8080);
  svc["metadata"]["name"] = "1web";  // A Service name is a DNS-1035 label.
  EXPECT_EQ(send("POST", core + "services", svc, 422)["reason"], "Invalid");
  const Json pvc = {
      {"apiVersion", "v1"},
      {"kind", "PersistentVolumeClaim"},
      {"metadata", {{"name", "data"}}},
      {"spec",
       {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  send("POST", core + "persistentvolumeclaims", pvc, 201);
  EXPECT_EQ(get(core + "persistentvolumeclaims/data")["spec"]["resources"]["requests"]["storage"],
            "1Gi");
  // A Service or PVC delete answers the object (their registries' ReturnDeletedObject).
  EXPECT_EQ(send("DELETE", core + "persistentvolumeclaims/data", Json::object(), 200)["kind"],
            "PersistentVolumeClaim");
  const std::string policies = "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies";
  const Json policy = {{"apiVersion", "networking.k8s.io/v1"},
                       {"kind", "NetworkPolicy"},
                       {"metadata", {{"name", "deny"}}},
                       {"spec", {{"podSelector", Json::object()}, {"policyTypes", {"Ingress"}}}}};
  send("POST", policies, policy, 201);
  EXPECT_EQ(get(policies)["items"][0]["spec"]["policyTypes"], Json::array({"Ingress"}));
  // Events: written as core/v1, read as events.k8s.io/v1 too (one stored kind).
  const Json event = {{"apiVersion", "v1"},
                      {"kind", "Event"},
                      {"metadata", {{"name", "e1"}}},
                      {"involvedObject", {{"kind", "Service"}, {"name", "web"}}},
                      {"reason", "Created"},
                      {"message", "made"},
                      {"type", "Normal"}};
  EXPECT_EQ(send("POST", core + "events", event, 201)["reason"], "Created");
  const Json both = get("/apis/events.k8s.io/v1/namespaces/default/events");
  ASSERT_EQ(both["items"].size(), 1u) << both.dump();
  EXPECT_EQ(both["items"][0]["metadata"]["name"], "e1");
  // Leases: leader election's create, renew at the read resourceVersion, stale renew 409.
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  const Json lease = send("POST", leases,
                          {{"apiVersion", "coordination.k8s.io/v1"},
                           {"kind", "Lease"},
                           {"metadata", {{"name", "leader"}}},
                           {"spec",
                            {{"holderIdentity", "a"},
                             {"leaseDurationSeconds", 15},
                             {"renewTime", "2026-11-29T00:00:00.000000Z"}}}},
                          201);
  Json renewed = lease;
  renewed["spec"]["renewTime"] = "2026-11-29T00:00:10.000000Z";
  EXPECT_EQ(send("PUT", leases + "/leader", renewed, 200)["spec"]["renewTime"],
            "2026-11-29T00:00:10.000000Z");
  renewed["spec"]["holderIdentity"] = "b";
  EXPECT_EQ(send("PUT", leases + "/leader", renewed, 409)["reason"], "Conflict");
  EXPECT_EQ(get(leases + "/leader")["spec"]["leaseDurationSeconds"], 15);
}

// A CRD registers its kind (discovery, OpenAPI, routes) at once; deleting it stops serving it.
TEST_F(ServeTest, ACustomResourceDefinitionServesItsKind) {
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const Json schema = {
      {"type", "object"},
      {"properties",
       {{"spec", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}};
  const Json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "widgets.example.com"}}},
      {"spec",
       {{"group", "example.com"},
        {"scope", "Namespaced"},
        {"names", {{"plural", "widgets"}, {"singular", "widget"}, {"kind", "Widget"}}},
        {"versions",
         {{{"name", "v1"},
           {"served", true},
           {"storage", true},
           {"schema", {{"openAPIV3Schema", schema}}}}}}}}};
  send("POST", crds, crd, 201);
  const Json discovery = get("/apis/example.com/v1");
  ASSERT_EQ(discovery["resources"].size(), 1u) << discovery.dump();
  EXPECT_EQ(discovery["resources"][0]["kind"], "Widget");
  EXPECT_TRUE(get("/openapi/v3/apis/example.com/v1").is_object());
  const std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
  const Json widget = {{"apiVersion", "example.com/v1"},
                       {"kind", "Widget"},
                       {"metadata", {{"name", "w"}}},
                       {"spec", {{"size", 3}, {"on", true}, {"tags", {"a", "b"}}}}};
  EXPECT_EQ(send("POST", widgets, widget, 201)["spec"], widget["spec"]);
  EXPECT_EQ(get(widgets + "/w")["spec"], widget["spec"]);
  send("DELETE", crds + "/widgets.example.com", Json::object(), 200);
  EXPECT_EQ(get(widgets, 404)["reason"], "NotFound");
}

// /scale, /finalize, /version/, /openapi/v2, dryRun=All, deletecollection, limit/continue.
TEST_F(ServeTest, SubresourcesDryRunDeleteCollectionAndPages) {
  const std::string deployments = "/apis/apps/v1/namespaces/default/deployments";
  send("POST", deployments,
       {{"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", {{"name", "web"}}},
        {"spec",
         {{"replicas", 1},
          {"selector", {{"matchLabels", {{"app", "web"}}}}},
          {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}}}}}},
       201);
  Json scale = get(deployments + "/web/scale");
  EXPECT_EQ(scale["kind"], "Scale");
  EXPECT_EQ(scale["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(scale["spec"]["replicas"], 1);
  scale["spec"]["replicas"] = 3;
  EXPECT_EQ(send("PUT", deployments + "/web/scale", scale, 200)["spec"]["replicas"], 3);
  EXPECT_EQ(send("PATCH", deployments + "/web/scale", {{"spec", {{"replicas", 2}}}}, 200,
                 "application/merge-patch+json")["spec"]["replicas"],
            2);
  EXPECT_EQ(get(deployments + "/web")["spec"]["replicas"], 2);
  // namespaces/NAME/finalize: the namespace's spec.finalizers written.
  send("POST", "/api/v1/namespaces",
       {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "fin"}}}}, 201);
  Json ns = get("/api/v1/namespaces/fin");
  ns["spec"]["finalizers"] = Json::array();
  EXPECT_EQ(send("PUT", "/api/v1/namespaces/fin/finalize", ns, 200)["spec"]["finalizers"],
            Json::array());
  EXPECT_EQ(get("/version/")["major"], "1");
  EXPECT_EQ(get("/openapi/v2")["swagger"], "2.0");
  // dryRun=All: the answer of a create, nothing stored.
  EXPECT_EQ(send("POST", std::string(kConfigMaps) + "?dryRun=All", configmap("dry"),
                 201)["metadata"]["name"],
            "dry");
  EXPECT_EQ(get(std::string(kConfigMaps) + "/dry", 404)["reason"], "NotFound");
  EXPECT_EQ(send("POST", std::string(kConfigMaps) + "?dryRun=Yes", configmap("dry"), 400)["reason"],
            "BadRequest");
  // Pages of 2 with a continue token, then deletecollection by label.
  for (const char* name : {"p1", "p2", "p3"}) send("POST", kConfigMaps, configmap(name), 201);
  // dryRun=All on a patch, an update and a delete: answered, not stored.
  const std::string p1 = std::string(kConfigMaps) + "/p1";
  EXPECT_EQ(send("PATCH", p1 + "?dryRun=All", {{"data", {{"k", "dry"}}}}, 200,
                 "application/merge-patch+json")["data"]["k"],
            "dry");
  Json replaced = get(p1);
  replaced["data"]["k"] = "dry";
  send("PUT", p1 + "?dryRun=All", replaced, 200);
  send("DELETE", p1 + "?dryRun=All", Json::object(), 200);
  EXPECT_EQ(get(p1)["data"]["k"], "v");
  Json page = get(std::string(kConfigMaps) + "?limit=2");
  ASSERT_EQ(page["items"].size(), 2u);
  const std::string token = page["metadata"].value("continue", "");
  ASSERT_FALSE(token.empty());
  page = get(std::string(kConfigMaps) + "?limit=2&continue=" + token);
  EXPECT_EQ(page["items"].size(), 1u);
  EXPECT_EQ(page["metadata"].value("continue", ""), "");
  send("DELETE", std::string(kConfigMaps) + "?labelSelector=app%3Da", Json::object(), 200);
  EXPECT_TRUE(get(kConfigMaps)["items"].empty());
}

TEST_F(ServeTest, StatusSubresourceIsSeparateFromTheMainResource) {
  const std::string base = "/apis/workspace.gitpod.io/v1/namespaces/default/workspaces";
  Json ws = {{"apiVersion", "workspace.gitpod.io/v1"},
             {"kind", "Workspace"},
             {"metadata", {{"name", "w1"}}},
             {"spec", {{"ownership", {{"owner", "alice"}}}}},
             {"status", {{"phase", "Running"}}}};
  Json created = send("POST", base, ws, 201);
  EXPECT_EQ(created["spec"]["ownership"]["owner"], "alice");
  EXPECT_FALSE(created["status"].contains("phase"));  // Status is ignored on create.
  created["status"]["phase"] = "Pending";
  Json updated = send("PUT", base + "/w1/status", created, 200);
  EXPECT_EQ(updated["status"]["phase"], "Pending");
  updated["status"]["phase"] = "Stopped";
  updated["spec"]["ownership"]["owner"] = "bob";
  updated = send("PUT", base + "/w1", updated, 200);
  EXPECT_EQ(updated["status"]["phase"], "Pending");  // The main resource ignores status.
  EXPECT_EQ(updated["spec"]["ownership"]["owner"], "bob");
  updated = send("PATCH", base + "/w1/status", {{"status", {{"phase", "Running"}}}}, 200,
                 "application/merge-patch+json");
  EXPECT_EQ(updated["status"]["phase"], "Running");
}

TEST_F(ServeTest, ListFiltersByLabelAndFieldSelectors) {
  send("POST", kConfigMaps, configmap("a"), 201);
  Json b = configmap("b");
  b["metadata"]["labels"]["app"] = "b";
  send("POST", kConfigMaps, b, 201);
  auto names = [&](const std::string& query) {
    std::vector<std::string> out;
    const Json list = get(std::string(kConfigMaps) + query);
    for (const Json& item : list["items"]) {
      out.push_back(item["metadata"]["name"]);
    }
    return out;
  };
  EXPECT_EQ(names(""), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(names("?labelSelector=app%3Db"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(names("?labelSelector=app!%3Db"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(names("?labelSelector=app"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(names("?fieldSelector=metadata.name%3Da"), (std::vector<std::string>{"a"}));
  // Set-based terms (apimachinery labels.Parse); their commas are not term separators. (%20:
  // httplib's client would send a '+' as %2B.)
  EXPECT_EQ(names("?labelSelector=app%20in%20(a)"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(names("?labelSelector=app%20in%20(a,%20b)"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(names("?labelSelector=app%20notin%20(a,c),app"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(names("?labelSelector=other%20notin%20(x)"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(names("?labelSelector=app%20in%20(a,b),app!%3Da"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(names("?labelSelector=app%20in%20()"), (std::vector<std::string>{}));
  for (const char* bad : {"app%20in%20a", "app%20within%20(a)", "app%20in%20(a", "in%20(a)",
                          "app%20in%20(a)(b)", "!app%20in%20(a)", "app%3D(a)"}) {
    EXPECT_EQ(get(std::string(kConfigMaps) + "?labelSelector=" + bad, 400)["reason"], "BadRequest")
        << bad;
  }
  const Json all = get("/api/v1/configmaps");
  EXPECT_EQ(all["kind"], "ConfigMapList");
  EXPECT_EQ(all["items"].size(), 2u);
  EXPECT_FALSE(all["metadata"]["resourceVersion"].get<std::string>().empty());
}

TEST_F(ServeTest, DeletePreconditionsPropagationAndTerminatingNamespaces) {
  send("POST", "/api/v1/namespaces",
       {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}}, 201);
  send("POST", "/api/v1/namespaces/team/configmaps", configmap("a", "team"), 201);
  const std::string path = "/api/v1/namespaces/team/configmaps/a";
  const Json stale = send("DELETE", path, {{"preconditions", {{"resourceVersion", "1"}}}}, 409);
  EXPECT_EQ(stale["reason"], "Conflict");
  EXPECT_EQ(send("DELETE", path, {{"propagationPolicy", "Sideways"}}, 400)["reason"], "BadRequest");
  send("DELETE", path, {{"propagationPolicy", "Foreground"}}, 200);
  const Json ns = send("DELETE", "/api/v1/namespaces/team", Json::object(), 200);
  EXPECT_EQ(ns["status"]["phase"], "Terminating");
  EXPECT_TRUE(ns["metadata"].contains("deletionTimestamp"));
  const Json forbidden =
      send("POST", "/api/v1/namespaces/team/configmaps", configmap("b", "team"), 403);
  EXPECT_EQ(forbidden["reason"], "Forbidden");
  EXPECT_NE(forbidden["message"].get<std::string>().find("being terminated"), std::string::npos);
  world_->advance(60 * kSecondMs);  // The namespace controller empties and removes it.
  EXPECT_EQ(get("/api/v1/namespaces/team", 404)["reason"], "NotFound");
}

// issue #32 item 4 (client-node's deleteNamespacedDeployment returns a V1Status): an object
// deleted at once is answered with a Success Status naming it (Store.finalizeDelete), a Pod with
// itself (its registry's ReturnDeletedObject).
TEST_F(ServeTest, AnImmediateDeleteAnswersASuccessStatusAndAPodItself) {
  const Json created = send("POST", kConfigMaps, configmap("a"), 201);
  const Json status = send("DELETE", std::string(kConfigMaps) + "/a", Json::object(), 200);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["status"], "Success");
  EXPECT_EQ(status["details"]["name"], "a");
  EXPECT_EQ(status["details"]["group"], "");
  EXPECT_EQ(status["details"]["kind"], "configmaps");
  EXPECT_EQ(status["details"]["uid"], created["metadata"]["uid"]);
  const Json deployment = {{"apiVersion", "apps/v1"},
                           {"kind", "Deployment"},
                           {"metadata", {{"name", "d"}}},
                           {"spec",
                            {{"replicas", 0},
                             {"selector", {{"matchLabels", {{"app", "d"}}}}},
                             {"template",
                              {{"metadata", {{"labels", {{"app", "d"}}}}},
                               {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}}};
  send("POST", "/apis/apps/v1/namespaces/default/deployments", deployment, 201);
  const Json apps =
      send("DELETE", "/apis/apps/v1/namespaces/default/deployments/d", Json::object(), 200);
  EXPECT_EQ(apps["kind"], "Status");
  EXPECT_EQ(apps["details"]["group"], "apps");
  EXPECT_EQ(apps["details"]["kind"], "deployments");
  send("POST", "/api/v1/namespaces/default/pods",
       {{"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", "p"}}},
        {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}},
       201);
  const Json pod =
      send("DELETE", "/api/v1/namespaces/default/pods/p", {{"gracePeriodSeconds", 0}}, 200);
  EXPECT_EQ(pod["kind"], "Pod");
  EXPECT_EQ(pod["metadata"]["name"], "p");
}

std::vector<Json> watch_lines(const std::string& body) {
  std::vector<Json> out;
  std::size_t start = 0;
  for (std::size_t end; (end = body.find('\n', start)) != std::string::npos; start = end + 1) {
    out.push_back(Json::parse(body.substr(start, end - start)));
  }
  return out;
}

TEST_F(ServeTest, WatchStreamsAddedModifiedDeletedAndBookmarks) {
  const std::string rv = get(kConfigMaps)["metadata"]["resourceVersion"];
  std::string body;
  std::thread watcher([&] {
    httplib::Client client(kLoopback, port_);
    client.Get((std::string(kConfigMaps) +
                "?watch=true&timeoutSeconds=2&allowWatchBookmarks=true"
                "&resourceVersion=" +
                rv)
                   .c_str(),
               [&](const char* data, std::size_t size) {
                 body.append(data, size);
                 return true;
               });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  send("POST", kConfigMaps, configmap("a"), 201);
  send("PATCH", std::string(kConfigMaps) + "/a", {{"data", {{"k", "v2"}}}}, 200,
       "application/merge-patch+json");
  send("DELETE", std::string(kConfigMaps) + "/a", Json::object(), 200);
  watcher.join();
  std::vector<std::string> types;
  for (const Json& line : watch_lines(body)) {
    if (line["type"] != "BOOKMARK") types.push_back(line["type"]);
  }
  EXPECT_EQ(types, (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
}

// issue #32 item 4 (found with @kubernetes/client-node): a watch from an older resourceVersion
// judged events by the objects in scope when it started, so an object created after that
// resourceVersion and still there came as MODIFIED, one relabelled into the selector as
// MODIFIED, and one relabelled out of it not at all. The API server's watch cache judges each
// change by the object's state before and after it.
TEST_F(ServeTest, AWatchFromAResourceVersionJudgesEachChangeByTheStateBeforeIt) {
  Json in = configmap("in");
  in["metadata"]["labels"]["app"] = "b";
  send("POST", kConfigMaps, in, 201);
  send("POST", kConfigMaps, configmap("out"), 201);
  const std::string rv = get(kConfigMaps)["metadata"]["resourceVersion"];
  send("POST", kConfigMaps, configmap("new"), 201);
  send("PATCH", std::string(kConfigMaps) + "/new", {{"data", {{"k", "v2"}}}}, 200,
       "application/merge-patch+json");
  const Json relabel_a = {{"metadata", {{"labels", {{"app", "a"}}}}}};
  const Json relabel_b = {{"metadata", {{"labels", {{"app", "b"}}}}}};
  send("PATCH", std::string(kConfigMaps) + "/in", relabel_a, 200, "application/merge-patch+json");
  const Json moved = send("PATCH", std::string(kConfigMaps) + "/out", relabel_b, 200,
                          "application/merge-patch+json");
  auto res = client_->Get((std::string(kConfigMaps) +
                           "?watch=1&timeoutSeconds=1&labelSelector=app%3Da&resourceVersion=" + rv)
                              .c_str());
  ASSERT_TRUE(res);
  std::vector<std::string> events;
  for (const Json& line : watch_lines(res->body)) {
    events.push_back(line["type"].get<std::string>() + " " +
                     line["object"]["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(events,
            (std::vector<std::string>{"ADDED new", "MODIFIED new", "ADDED in", "DELETED out"}));
  const std::vector<Json> lines = watch_lines(res->body);
  ASSERT_EQ(lines.size(), 4u);
  // Out of the selector: the previous content (still app=a) at the change's resourceVersion.
  EXPECT_EQ(lines[3]["object"]["metadata"]["labels"]["app"], "a");
  EXPECT_EQ(lines[3]["object"]["metadata"]["resourceVersion"],
            moved["metadata"]["resourceVersion"]);
}

// issue #32 item 4: bookmarks came every 5 s only, so a watch with timeoutSeconds below that
// (client-node's and client-go's informers re-watch with one) never got one. The API server also
// sends one 2 s before the watch's deadline (cache_watcher.go nextBookmarkTime), none when the
// watch is shorter than that.
TEST_F(ServeTest, ABookmarkComesTwoSecondsBeforeTheWatchDeadline) {
  const std::string rv = get(kConfigMaps)["metadata"]["resourceVersion"];
  auto bookmarks = [&](const std::string& timeout_s) {
    auto res = client_->Get((std::string(kConfigMaps) + "?watch=1&allowWatchBookmarks=true" +
                             "&timeoutSeconds=" + timeout_s + "&resourceVersion=" + rv)
                                .c_str());
    std::vector<Json> out;
    if (!res) return out;
    for (const Json& line : watch_lines(res->body)) {
      if (line["type"] == "BOOKMARK") out.push_back(line);
    }
    return out;
  };
  const std::vector<Json> three = bookmarks("3");
  ASSERT_EQ(three.size(), 1u);
  EXPECT_EQ(three[0]["object"]["kind"], "ConfigMap");
  EXPECT_GE(std::stoull(three[0]["object"]["metadata"]["resourceVersion"].get<std::string>()),
            std::stoull(rv));
  EXPECT_TRUE(bookmarks("1").empty());
}

TEST_F(ServeTest, WatchWithoutResourceVersionStartsWithTheCurrentObjects) {
  send("POST", kConfigMaps, configmap("a"), 201);
  auto res = client_->Get((std::string(kConfigMaps) + "?watch=1&timeoutSeconds=1").c_str());
  ASSERT_TRUE(res);
  const std::vector<Json> lines = watch_lines(res->body);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["type"], "ADDED");
  EXPECT_EQ(lines[0]["object"]["metadata"]["name"], "a");
}

TEST_F(ServeTest, WatchFromBelowTheHistoryWindowIsExpired) {
  stop();
  start(2);
  for (const char* name : {"a", "b", "c", "d"}) send("POST", kConfigMaps, configmap(name), 201);
  auto res = client_->Get((std::string(kConfigMaps) + "?watch=1&resourceVersion=1").c_str());
  ASSERT_TRUE(res);
  const std::vector<Json> lines = watch_lines(res->body);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["type"], "ERROR");
  EXPECT_EQ(lines[0]["object"]["code"], 410);
  EXPECT_EQ(lines[0]["object"]["reason"], "Expired");
  EXPECT_EQ(get(std::string(kConfigMaps) + "?resourceVersion=1&resourceVersionMatch=Exact",
                410)["reason"],
            "Expired");
}

TEST_F(ServeTest, DeploymentsGetPodsFromTheClusterAsVirtualTimeAdvances) {
  Json deploy = {{"apiVersion", "apps/v1"},
                 {"kind", "Deployment"},
                 {"metadata", {{"name", "web"}}},
                 {"spec",
                  {{"replicas", 1},
                   {"selector", {{"matchLabels", {{"app", "web"}}}}},
                   {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}}}}}};
  send("POST", "/apis/apps/v1/namespaces/default/deployments", deploy, 201);
  world_->advance(2 * kMinuteMs);
  const Json pods = get("/api/v1/namespaces/default/pods?labelSelector=app%3Dweb");
  ASSERT_EQ(pods["items"].size(), 1u);
  EXPECT_EQ(pods["items"][0]["status"]["phase"], "Running");
  const Json d = get("/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(d["status"]["availableReplicas"], 1);
}

TEST_F(ServeTest, KubectlTablesHaveTheUsualColumnsAndVirtualAges) {
  send("POST", kConfigMaps, configmap("a"), 201);
  world_->advance(5 * kMinuteMs + 3 * kSecondMs);
  httplib::Headers headers = {
      {"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}};
  auto res = client_->Get(kConfigMaps, headers);
  ASSERT_TRUE(res);
  const Json table = Json::parse(res->body);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["columnDefinitions"][1]["name"], "Data");
  EXPECT_EQ(table["rows"][0]["cells"], Json::array({"a", 1, "5m3s"}));
  EXPECT_EQ(table["rows"][0]["object"]["metadata"]["namespace"], "default");
  res = client_->Get("/api/v1/namespaces/default", headers);
  ASSERT_TRUE(res);
  EXPECT_EQ(Json::parse(res->body)["rows"][0]["cells"][1], "Active");
  EXPECT_EQ(get(kConfigMaps)["kind"], "ConfigMapList");  // Without the Accept: plain JSON.
}

TEST(ServeTable, HumanDurationsAsKubernetesPrintsThem) {
  EXPECT_EQ(human_duration(59 * kSecondMs), "59s");
  EXPECT_EQ(human_duration(119 * kSecondMs), "119s");
  EXPECT_EQ(human_duration(5 * kMinuteMs + 3 * kSecondMs), "5m3s");
  EXPECT_EQ(human_duration(2 * kHourMs + 5 * kMinuteMs), "125m");
  EXPECT_EQ(human_duration(5 * kHourMs + 7 * kMinuteMs), "5h7m");
  EXPECT_EQ(human_duration(30 * kHourMs), "30h");
  EXPECT_EQ(human_duration(3 * 24 * kHourMs + 2 * kHourMs), "3d2h");
  EXPECT_EQ(human_duration(20 * 24 * kHourMs), "20d");
}

TEST(ServeReadOnly, ASnapshotWorldRefusesWritesWithForbidden) {
  kube::Object ns;
  ns.kind = "Namespace";
  ns.meta.name = "team";
  ns.meta.resource_version = 3;
  std::map<kube::ObjectRef, kube::Object> objects = {{kube::ObjectRef::of(ns), ns}};
  World world(objects, {}, 3, 0, 5000);
  Server server(world, ServerOptions{});
  std::string error;
  const int port = server.bind(error);
  ASSERT_GT(port, 0) << error;
  std::thread thread([&] { server.run(); });
  httplib::Client client(kLoopback, port);
  auto got = client.Get("/api/v1/namespaces/team");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
  auto created =
      client.Post("/api/v1/namespaces", R"({"metadata":{"name":"x"}})", "application/json");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 403);
  EXPECT_NE(created->body.find("read-only"), std::string::npos);
  server.stop();
  thread.join();
}

// The routes serve-objects registered with cpp-httplib, ported to Server::route (serve-merge):
// health checks, OpenAPI v3 per group version, SelfSubjectAccessReview and -RulesReview, and
// Go's ParseBool for ?watch= (True is a watch, not a list).
TEST_F(ServeTest, HealthOpenApiAccessReviewAndParseBoolWatchAreRouted) {
  for (const char* path : {"/healthz", "/readyz", "/livez", "/readyz/ping"}) {
    auto res = client_->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
    EXPECT_EQ(res->body, "ok") << path;
  }
  auto verbose = client_->Get("/readyz?verbose");
  ASSERT_TRUE(verbose);
  EXPECT_NE(verbose->body.find("readyz check passed"), std::string::npos) << verbose->body;
  EXPECT_EQ(get("/healthz/nope", 404)["reason"], "NotFound");
  EXPECT_TRUE(get("/openapi/v3/api/v1").is_object());
  EXPECT_TRUE(get("/openapi/v3/apis/apps/v1").is_object());
  EXPECT_EQ(get("/openapi/v3/apis/nope/v1", 404)["reason"], "NotFound");
  const Json review = send("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                           {{"kind", "SelfSubjectAccessReview"}}, 201);
  EXPECT_EQ(review["status"]["allowed"], true);
  // kubectl auth can-i --list: every verb on every resource and non-resource URL.
  const Json rules =
      send("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
           {{"kind", "SelfSubjectRulesReview"}, {"spec", {{"namespace", "default"}}}}, 201);
  EXPECT_EQ(rules["spec"]["namespace"], "default");
  EXPECT_EQ(rules["status"]["resourceRules"][0]["verbs"], Json::array({"*"}));
  EXPECT_EQ(rules["status"]["resourceRules"][0]["resources"], Json::array({"*"}));
  EXPECT_EQ(rules["status"]["nonResourceRules"][0]["nonResourceURLs"], Json::array({"*"}));
  EXPECT_EQ(rules["status"]["incomplete"], false);
  EXPECT_EQ(get(std::string(kConfigMaps) + "?watch=maybe", 400)["reason"], "BadRequest");
}

}  // namespace
}  // namespace wsim::serve
