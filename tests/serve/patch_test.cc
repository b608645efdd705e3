// Unit tests of the pure functions behind PATCH and server-side apply (issue #32 item 2):
// strategic merge patch (serve/patch.h), RFC 6902 JSON patch and RFC 7386 merge patch
// (serve/request.h apply_patch, serve/json_patch.h), server-side apply and field ownership
// (serve/apply.h), and the kept client documents that make objects round-trip (serve/codec.h).
// tests/serve/clients.sh and client_node.mjs exercise the same paths end to end.
#include <gtest/gtest.h>

#include <string>

#include "serve/apply.h"
#include "serve/codec.h"
#include "serve/patch.h"
#include "serve/request.h"
#include "serve/resources.h"
#include "tests/serve/test_kinds.h"

namespace wsim::serve {
namespace {

// A Deployment's served JSON with two containers (ports, env, command) and a volume.
Json deployment() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "finalizers": ["a.io/x"]},
    "spec": {"replicas": 1, "template": {"spec": {
      "containers": [
        {"name": "app", "image": "nginx:1", "command": ["sleep", "1"],
         "ports": [{"containerPort": 80, "name": "http"}],
         "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
        {"name": "side", "image": "busybox"}],
      "volumes": [{"name": "v", "emptyDir": {}}]}}}})");
}

Json smp(const Json& patch, Json target = deployment(), const std::string& kind = "Deployment") {
  std::string error;
  EXPECT_TRUE(strategic_merge(kind, patch, target, error)) << error;
  return target;
}

const Json& containers(const Json& d) { return d["spec"]["template"]["spec"]["containers"]; }

Json template_spec(const Json& spec) { return {{"spec", {{"template", {{"spec", spec}}}}}}; }

TEST(ServePatch, StrategicMergeMergesContainersByName) {
  // `kubectl set image deploy/web app=nginx:2` sends only the name and the image.
  const Json out = smp(template_spec({{"containers", {{{"name", "app"}, {"image", "nginx:2"}}}}}));
  ASSERT_EQ(containers(out).size(), 2u);
  EXPECT_EQ(containers(out)[0]["image"], "nginx:2");
  EXPECT_EQ(containers(out)[0]["command"], Json::array({"sleep", "1"}));
  EXPECT_EQ(containers(out)[0]["ports"][0]["containerPort"], 80);
  EXPECT_EQ(containers(out)[0]["env"].size(), 2u);
  EXPECT_EQ(containers(out)[1], Json({{"name", "side"}, {"image", "busybox"}}));
  // A new name is appended; env and ports merge by their keys inside the container.
  const Json added = smp(
      template_spec({{"containers",
                      {{{"name", "app"},
                        {"env", {{{"name", "B"}, {"value", "9"}}, {{"name", "C"}, {"value", "3"}}}},
                        {"ports", {{{"containerPort", 443}}}}},
                       {{"name", "new"}, {"image", "redis"}}}}}));
  ASSERT_EQ(containers(added).size(), 3u);
  EXPECT_EQ(containers(added)[2]["name"], "new");
  const Json& env = containers(added)[0]["env"];
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(env[0], Json({{"name", "A"}, {"value", "1"}}));
  EXPECT_EQ(env[1], Json({{"name", "B"}, {"value", "9"}}));
  EXPECT_EQ(env[2], Json({{"name", "C"}, {"value", "3"}}));
  EXPECT_EQ(containers(added)[0]["ports"].size(), 2u);
}

TEST(ServePatch, StrategicMergePatchDirectives) {
  // $patch: delete removes the element with that key.
  Json out = smp(template_spec({{"containers", {{{"name", "side"}, {"$patch", "delete"}}}}}));
  ASSERT_EQ(containers(out).size(), 1u);
  EXPECT_EQ(containers(out)[0]["name"], "app");
  // $patch: replace in a list element replaces the whole list.
  out = smp(template_spec(
      {{"containers", {{{"$patch", "replace"}}, {{"name", "only"}, {"image", "x"}}}}}));
  EXPECT_EQ(containers(out), Json::array({{{"name", "only"}, {"image", "x"}}}));
  // $patch: replace in a map replaces the map.
  out = smp({{"spec", {{"template", {{"spec", {{"$patch", "replace"}, {"hostNetwork", true}}}}}}}});
  EXPECT_EQ(out["spec"]["template"]["spec"], Json({{"hostNetwork", true}}));
  // $deleteFromPrimitiveList on a set (metadata.finalizers).
  out = smp({{"metadata", {{"$deleteFromPrimitiveList/finalizers", {"a.io/x"}}}}});
  EXPECT_TRUE(out["metadata"]["finalizers"].empty());
  // An unknown directive is an error naming the field.
  Json target = deployment();
  std::string error;
  EXPECT_FALSE(strategic_merge(
      "Deployment", template_spec({{"containers", {{{"name", "app"}, {"$patch", "nonsense"}}}}}),
      target, error));
  EXPECT_NE(error.find("nonsense"), std::string::npos) << error;
  // A keyed list element without its key is an error.
  EXPECT_FALSE(strategic_merge("Deployment", template_spec({{"containers", {{{"image", "x"}}}}}),
                               target, error));
  EXPECT_NE(error.find("\"name\""), std::string::npos) << error;
}

TEST(ServePatch, StrategicMergeReplacesListsWithoutMergeKeysAndNullRemoves) {
  // command/args have no patch strategy: replaced whole.
  Json out = smp(template_spec({{"containers", {{{"name", "app"}, {"command", {"run"}}}}}}));
  EXPECT_EQ(containers(out)[0]["command"], Json::array({"run"}));
  // metadata.finalizers is a set: a union.
  out = smp({{"metadata", {{"finalizers", {"b.io/y", "a.io/x"}}}}});
  EXPECT_EQ(out["metadata"]["finalizers"], Json::array({"a.io/x", "b.io/y"}));
  // null removes a field, here inside a merged container.
  out = smp(template_spec({{"containers", {{{"name", "app"}, {"command", nullptr}}}}}));
  EXPECT_FALSE(containers(out)[0].contains("command"));
  EXPECT_EQ(containers(out)[0]["image"], "nginx:1");
  // A custom kind has no merge keys: its lists are replaced as a merge patch does.
  const Json custom = {{"spec", {{"items", {{{"name", "a"}, {"v", 1}}, {{"name", "b"}}}}}}};
  out = smp({{"spec", {{"items", {{{"name", "a"}, {"v", 2}}}}}}}, custom, "Widget");
  EXPECT_EQ(out["spec"]["items"], Json::array({{{"name", "a"}, {"v", 2}}}));
  EXPECT_FALSE(list_strategy("Widget", {"spec", "template", "spec", "containers"}).merge);
  EXPECT_EQ(list_strategy("Deployment", {"spec", "template", "spec", "containers"}).key, "name");
}

TEST(ServePatch, StrategicMergeOrdersRetainsAndKnowsTheBuiltInMergeKeys) {
  // $setElementOrder/containers: the merged list in the order kubectl apply computed.
  Json out =
      smp(template_spec({{"$setElementOrder/containers", {{{"name", "side"}, {"name", "app"}}}},
                         {"containers", {{{"name", "app"}, {"image", "nginx:3"}}}}}));
  ASSERT_EQ(containers(out).size(), 2u);
  EXPECT_EQ(containers(out)[0]["name"], "side");
  EXPECT_EQ(containers(out)[1]["image"], "nginx:3");
  // $retainKeys (a Deployment's strategy, retainKeys strategy): only the listed keys stay.
  Json target = deployment();
  target["spec"]["strategy"] = {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", 1}}}};
  out = smp({{"spec", {{"strategy", {{"$retainKeys", {"type"}}, {"type", "Recreate"}}}}}}, target);
  EXPECT_EQ(out["spec"]["strategy"], Json({{"type", "Recreate"}}));
  // The merge keys serve/README.md names.
  const auto key = [](const std::string& kind, std::vector<std::string> path) {
    const ListStrategy s = list_strategy(kind, path);
    return s.merge ? "merge:" + s.key : std::string("replace");
  };
  const std::vector<std::string> pod = {"spec", "template", "spec"};
  auto under = [&](std::vector<std::string> tail) {
    std::vector<std::string> path = pod;
    path.insert(path.end(), tail.begin(), tail.end());
    return path;
  };
  EXPECT_EQ(key("Deployment", under({"initContainers"})), "merge:name");
  EXPECT_EQ(key("Deployment", under({"volumes"})), "merge:name");
  EXPECT_EQ(key("Deployment", under({"containers", "env"})), "merge:name");
  EXPECT_EQ(key("Deployment", under({"containers", "ports"})), "merge:containerPort");
  EXPECT_EQ(key("Deployment", under({"containers", "volumeMounts"})), "merge:mountPath");
  EXPECT_EQ(key("Deployment", under({"containers", "command"})), "replace");
  EXPECT_EQ(key("Pod", {"spec", "containers"}), "merge:name");
  EXPECT_EQ(key("Service", {"spec", "ports"}), "merge:port");
  EXPECT_EQ(key("Deployment", {"status", "conditions"}), "merge:type");
  EXPECT_EQ(key("ConfigMap", {"metadata", "finalizers"}), "merge:");
  EXPECT_EQ(key("ConfigMap", {"metadata", "ownerReferences"}), "merge:uid");
}

Json patched(PatchType type, const Json& patch, Json target, bool& ok, std::string& error) {
  ok = apply_patch(type, patch, target, error, "ConfigMap");
  return target;
}

TEST(ServePatch, JsonPatchAppliesRfc6902OperationsAndATestFailureFails) {
  const Json cm = {{"data", {{"a", "1"}, {"b", "2"}}}, {"list", {1, 2, 3}}};
  const Json ops = Json::parse(R"([
    {"op": "add", "path": "/data/c", "value": "3"},
    {"op": "remove", "path": "/data/a"},
    {"op": "replace", "path": "/data/b", "value": "two"},
    {"op": "move", "from": "/data/c", "path": "/data/d"},
    {"op": "copy", "from": "/data/d", "path": "/data/e"},
    {"op": "add", "path": "/list/-", "value": 4},
    {"op": "add", "path": "/data~1x", "value": {"k.with/dots": true}},
    {"op": "test", "path": "/data/b", "value": "two"}])");
  bool ok = false;
  std::string error;
  const Json out = patched(PatchType::kJson, ops, cm, ok, error);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(out["data"], Json({{"b", "two"}, {"d", "3"}, {"e", "3"}}));
  EXPECT_EQ(out["list"], Json::array({1, 2, 3, 4}));
  EXPECT_EQ(out["data/x"], Json({{"k.with/dots", true}}));
  // A failing test operation fails the whole patch (the handler answers 422, ServeTest).
  patched(PatchType::kJson, Json::parse(R"([{"op": "test", "path": "/data/a", "value": "2"}])"), cm,
          ok, error);
  EXPECT_FALSE(ok);
  EXPECT_FALSE(error.empty());
  // A path that does not exist, and a body that is not a list.
  patched(PatchType::kJson, Json::parse(R"([{"op": "remove", "path": "/nope"}])"), cm, ok, error);
  EXPECT_FALSE(ok);
  patched(PatchType::kJson, Json::object(), cm, ok, error);
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find("list of operations"), std::string::npos) << error;
}

TEST(ServePatch, MergePatchRemovesNullsAndReplacesLists) {
  const Json cm = {{"metadata", {{"labels", {{"app", "x"}, {"tier", "web"}}}}},
                   {"data", {{"a", "1"}}},
                   {"list", {1, 2}}};
  bool ok = false;
  std::string error;
  const Json out =
      patched(PatchType::kMerge,
              {{"metadata", {{"labels", {{"app", nullptr}}}}}, {"data", nullptr}, {"list", {3}}},
              cm, ok, error);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(out["metadata"]["labels"], Json({{"tier", "web"}}));
  EXPECT_FALSE(out.contains("data"));
  EXPECT_EQ(out["list"], Json::array({3}));
  // A strategic merge patch of a ConfigMap keeps the labels it does not name.
  const Json s = patched(PatchType::kStrategicMerge, {{"metadata", {{"labels", {{"n", "1"}}}}}}, cm,
                         ok, error);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(s["metadata"]["labels"].size(), 3u);
  patched(PatchType::kMerge, Json::array(), cm, ok, error);
  EXPECT_FALSE(ok);
}

FieldManagerInput manager(const std::string& name) {
  return FieldManagerInput{"ConfigMap", "v1", name, "2026-11-29T00:00:00Z"};
}

Json configmap(const Json& data) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", "cfg"}, {"namespace", "default"}}},
          {"data", data}};
}

// Applies `config` as `who` to `live` (updated on success); the conflict's message or "".
std::string apply(const std::string& who, const Json& config, Json& live, bool force = false) {
  Json out;
  ApplyConflict conflict;
  std::string error;
  const bool ok = server_side_apply(manager(who), live.is_null() ? nullptr : &live, config, force,
                                    out, conflict, error);
  EXPECT_TRUE(ok || !conflict.message.empty()) << error;
  if (ok) live = out;
  return conflict.message;
}

// The managedFields entry of `who` (null when it owns nothing).
Json entry(const Json& object, const std::string& who) {
  for (const Json& e : object["metadata"].value("managedFields", Json::array())) {
    if (e["manager"] == who) return e;
  }
  return Json();
}

TEST(ServeApply, ManagedFieldsAreRecordedPerManager) {
  Json live;
  EXPECT_EQ(apply("one", configmap({{"a", "1"}, {"b", "2"}}), live), "");
  const Json one = entry(live, "one");
  ASSERT_TRUE(one.is_object()) << live.dump();
  EXPECT_EQ(one["operation"], "Apply");
  EXPECT_EQ(one["apiVersion"], "v1");
  EXPECT_EQ(one["fieldsType"], "FieldsV1");
  EXPECT_EQ(one["time"], "2026-11-29T00:00:00Z");
  EXPECT_EQ(one["fieldsV1"], Json::parse(R"({"f:data": {"f:a": {}, "f:b": {}}})"));
  // The same value applied by another manager: shared, no conflict.
  EXPECT_EQ(apply("two", configmap({{"a", "1"}}), live), "");
  EXPECT_EQ(entry(live, "one")["fieldsV1"], one["fieldsV1"]);
  EXPECT_EQ(entry(live, "two")["fieldsV1"], Json::parse(R"({"f:data": {"f:a": {}}})"));
  // An ordinary write (operation Update) takes the fields it changes from every other manager.
  Json before = live;
  Json after = live;
  after["data"]["b"] = "changed";
  track_update(manager("kubectl-edit"), &before, after);
  EXPECT_EQ(entry(after, "kubectl-edit")["operation"], "Update");
  EXPECT_EQ(entry(after, "kubectl-edit")["fieldsV1"], Json::parse(R"({"f:data": {"f:b": {}}})"));
  EXPECT_EQ(entry(after, "one")["fieldsV1"], Json::parse(R"({"f:data": {"f:a": {}}})"));
}

TEST(ServeApply, ConflictsAreWordedAsKubernetesAndForceTakesOwnership) {
  Json live;
  apply("one", configmap({{"a", "1"}, {"b", "2"}}), live);
  const Json unchanged = live;
  Json out;
  ApplyConflict conflict;
  std::string error;
  EXPECT_FALSE(server_side_apply(manager("two"), &live, configmap({{"a", "9"}}), false, out,
                                 conflict, error));
  EXPECT_EQ(conflict.message, "Apply failed with 1 conflict: conflict with \"one\": .data.a");
  ASSERT_EQ(conflict.causes.size(), 1u);
  EXPECT_EQ(conflict.causes[0]["reason"], "FieldManagerConflict");
  EXPECT_EQ(conflict.causes[0]["message"], "conflict with \"one\"");
  EXPECT_EQ(conflict.causes[0]["field"], ".data.a");
  EXPECT_EQ(live, unchanged);
  // Two conflicting fields: the plural form, grouped by manager.
  EXPECT_EQ(apply("two", configmap({{"a", "9"}, {"b", "8"}}), live),
            "Apply failed with 2 conflicts: conflicts with \"one\"\n- .data.a\n- .data.b");
  // An Update manager is printed with its apiVersion and time.
  Json updated = live;
  updated["data"]["a"] = "u";
  track_update(manager("editor"), &live, updated);
  EXPECT_EQ(apply("two", configmap({{"a", "9"}}), updated),
            "Apply failed with 1 conflict: conflict with \"editor\" using v1 at "
            "2026-11-29T00:00:00Z: .data.a");
  // --force-conflicts: the value is written and the field changes owner.
  EXPECT_EQ(apply("two", configmap({{"a", "9"}}), live, true), "");
  EXPECT_EQ(live["data"]["a"], "9");
  EXPECT_EQ(entry(live, "two")["fieldsV1"], Json::parse(R"({"f:data": {"f:a": {}}})"));
  EXPECT_EQ(entry(live, "one")["fieldsV1"], Json::parse(R"({"f:data": {"f:b": {}}})"));
  // Now "one" applying its old value of a conflicts with "two".
  EXPECT_EQ(apply("one", configmap({{"a", "1"}, {"b", "2"}}), live),
            "Apply failed with 1 conflict: conflict with \"two\": .data.a");
}

TEST(ServeApply, AFieldTheManagerDropsIsRemovedUnlessAnotherOwnsIt) {
  Json live;
  apply("one", configmap({{"a", "1"}, {"b", "2"}, {"c", "3"}}), live);
  apply("two", configmap({{"c", "3"}}), live);  // Shared ownership of c.
  EXPECT_EQ(apply("one", configmap({{"a", "1"}}), live), "");
  EXPECT_EQ(live["data"], Json({{"a", "1"}, {"c", "3"}}));  // b gone; c kept (two owns it).
  // In a keyed list: a container the manager no longer applies goes, the others' fields stay.
  Json d;
  const FieldManagerInput in{"Deployment", "apps/v1", "one", "t"};
  Json config = deployment();
  config["metadata"].erase("finalizers");
  Json out;
  ApplyConflict conflict;
  std::string error;
  ASSERT_TRUE(server_side_apply(in, nullptr, config, false, d, conflict, error)) << error;
  Json fewer = config;
  fewer["spec"]["template"]["spec"]["containers"].erase(1);
  ASSERT_TRUE(server_side_apply(in, &d, fewer, false, out, conflict, error)) << error;
  ASSERT_EQ(containers(out).size(), 1u) << out.dump();
  EXPECT_EQ(containers(out)[0]["name"], "app");
  EXPECT_EQ(containers(out)[0]["ports"][0]["containerPort"], 80);
  // A malformed configuration is an error, not a conflict.
  EXPECT_FALSE(server_side_apply(in, &d, Json::array(), false, out, conflict, error));
  EXPECT_FALSE(error.empty());
}

// What a client writes it reads back: the kept document, with sim/kube's changes applied.
TEST(ServeRoundTrip, BooleansNumbersDottedKeysAndNestedListsComeBackIdentical) {
  const Json doc = Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default",
                 "labels": {"app.kubernetes.io/name": "web"},
                 "annotations": {"a.b/c": "x", "deployment.kubernetes.io/revision": "1"}},
    "spec": {"replicas": 3, "paused": false, "progressDeadlineSeconds": 600,
             "selector": {"matchLabels": {"app.kubernetes.io/name": "web"}},
             "template": {
               "metadata": {"labels": {"app.kubernetes.io/name": "web"},
                            "annotations": {"kubectl.kubernetes.io/restartedAt": "now"}},
               "spec": {"hostNetwork": true, "terminationGracePeriodSeconds": 30,
                        "nodeSelector": {"kubernetes.io/os": "linux"},
                        "tolerations": [{"key": "a.b/c", "operator": "Exists"}],
                        "affinity": {"nodeAffinity": {
                          "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [{"matchExpressions": [
                              {"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}}},
                        "containers": [{"name": "c", "image": "nginx", "stdin": true,
                                        "command": ["sh", "-c", "x"],
                                        "resources": {"limits": {"cpu": 0.5, "memory": "1Gi"}},
                                        "ports": [{"containerPort": 80, "protocol": "TCP"}],
                                        "env": [{"name": "X.Y", "value": ""}]}]}}}})");
  const Resource& resource = *find_by_kind("Deployment");
  const auto kept = keep_document(doc, resource, "uid-1", 0);
  ASSERT_NE(kept, nullptr);
  kube::Object stored = kept->flat;
  stored.meta.uid = "uid-1";
  stored.meta.resource_version = 7;
  Json served = encode_object(stored, resource, 0, kept.get());
  EXPECT_EQ(served["spec"], doc["spec"]) << served["spec"].dump(1);
  EXPECT_EQ(served["metadata"]["labels"], doc["metadata"]["labels"]);
  EXPECT_EQ(served["metadata"]["annotations"], doc["metadata"]["annotations"]);
  EXPECT_EQ(served["metadata"]["resourceVersion"], "7");
  // A change sim/kube makes (a controller writes status) shows; the client's spec stays as is.
  stored.status["availableReplicas"] = "3";
  served = encode_object(stored, resource, 0, kept.get());
  EXPECT_EQ(served["spec"], doc["spec"]);
  EXPECT_EQ(served["status"]["availableReplicas"], 3);
  // A change sim/kube makes to the spec (a scale through its own API) reaches the document.
  stored.spec["replicas"] = "5";
  served = encode_object(stored, resource, 0, kept.get());
  EXPECT_EQ(served["spec"]["replicas"], 5);
  EXPECT_EQ(served["spec"]["template"], doc["spec"]["template"]);
  // The document of another uid is never used.
  stored.meta.uid = "uid-2";
  served = encode_object(stored, resource, 0, kept.get());
  EXPECT_NE(served["spec"], doc["spec"]);
}

TEST(ServeRoundTrip, ACustomResourceKeepsAnyJson) {
  register_test_kinds();
  const Json doc = Json::parse(R"({
    "apiVersion": "workspace.gitpod.io/v1", "kind": "Workspace",
    "metadata": {"name": "w", "namespace": "default"},
    "spec": {"n": 1.25, "big": 9007199254740993, "neg": -3, "t": true, "f": false,
             "empty": {}, "none": [], "nested": [[1, [2, {"a.b": "c"}]], {"x/y": ["é", "\u0000"]}],
             "a.b.c": {"d/e": "f"}}})");
  const Resource& resource = *find_by_kind("Workspace");
  const auto kept = keep_document(doc, resource, "u", 0);
  ASSERT_NE(kept, nullptr);
  kube::Object stored = kept->flat;
  stored.meta.uid = "u";
  const Json served = encode_object(stored, resource, 0, kept.get());
  EXPECT_EQ(served["spec"], doc["spec"]) << served["spec"].dump();
  EXPECT_EQ(served["spec"].dump(), doc["spec"].dump());
}

}  // namespace
}  // namespace wsim::serve
