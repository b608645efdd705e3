// serve/codec.h: sim/kube objects to Kubernetes JSON and back.
#include "serve/codec.h"
#include "serve/protobuf_body.h"

#include <gtest/gtest.h>

namespace wsim::serve {
namespace {

kube::Object deployment() {
  kube::Object d;
  d.kind = "Deployment";
  d.meta.name = "ws-1";
  d.meta.namespace_ = "team";
  d.meta.uid = "uid-7";
  d.meta.resource_version = 42;
  d.meta.labels = {{"app", "ws"}};
  d.spec = {{"replicas", "1"}, {"template.labels.app", "ws"}};
  d.status = {{"availableReplicas", "1"}};
  d.conditions.push_back({"Available", "True", "MinimumReplicasAvailable", "ok", 1500});
  return d;
}

TEST(ServeCodec, DeploymentHasTypedReplicasTemplateLabelsAndSelector) {
  const Json json = encode_object(deployment(), *find_by_kind("Deployment"), 1'000'000);
  EXPECT_EQ(json["apiVersion"], "apps/v1");
  EXPECT_EQ(json["metadata"]["resourceVersion"], "42");
  EXPECT_EQ(json["spec"]["replicas"], 1);
  EXPECT_EQ(json["spec"]["template"]["metadata"]["labels"]["app"], "ws");
  EXPECT_EQ(json["spec"]["selector"]["matchLabels"]["app"], "ws");
  EXPECT_EQ(json["status"]["availableReplicas"], 1);
  EXPECT_EQ(json["status"]["conditions"][0]["reason"], "MinimumReplicasAvailable");
  EXPECT_EQ(json["metadata"]["creationTimestamp"], "1970-01-01T00:16:40Z");
}

TEST(ServeCodec, DecodeOfEncodedObjectGivesTheSameFields) {
  for (const kube::Object& original : {deployment()}) {
    const Resource& resource = *find_by_kind(original.kind);
    kube::Object decoded;
    std::string error;
    ASSERT_TRUE(decode_object(encode_object(original, resource, 0), resource, decoded, error))
        << error;
    EXPECT_EQ(decoded.meta.name, original.meta.name);
    EXPECT_EQ(decoded.meta.labels, original.meta.labels);
    EXPECT_EQ(decoded.meta.resource_version, original.meta.resource_version);
    EXPECT_EQ(decoded.spec, original.spec);
    EXPECT_EQ(decoded.status, original.status);
    EXPECT_EQ(decoded.conditions.size(), 1u);
  }
}

TEST(ServeCodec, PodNodeSelectorNamespaceFinalizersAndSecretDataHaveKubernetesShapes) {
  kube::Object pod;
  pod.kind = "Pod";
  pod.meta.name = "p";
  pod.spec = {{"nodeSelector", "disk=ssd,zone=a"}, {"nodeName", "node-1"}};
  pod.status = {{"phase", "Running"}, {"ready", "true"}};
  const Json p = encode_object(pod, *find_by_kind("Pod"), 0);
  EXPECT_EQ(p["spec"]["nodeSelector"]["zone"], "a");
  EXPECT_EQ(p["status"]["conditions"][0]["type"], "Ready");
  EXPECT_EQ(p["status"]["conditions"][0]["status"], "True");
  kube::Object back;
  std::string error;
  ASSERT_TRUE(decode_object(p, *find_by_kind("Pod"), back, error)) << error;
  EXPECT_EQ(back.spec, pod.spec);
  EXPECT_EQ(back.status, pod.status);

  kube::Object ns;
  ns.kind = "Namespace";
  ns.meta.name = "team";
  ns.spec = {{"finalizers", "kubernetes"}};
  EXPECT_EQ(encode_object(ns, *find_by_kind("Namespace"), 0)["spec"]["finalizers"][0],
            "kubernetes");

  kube::Object secret;
  secret.kind = "Secret";
  secret.meta.name = "s";
  secret.data = {{"token", "hello"}};
  const Json s = encode_object(secret, *find_by_kind("Secret"), 0);
  EXPECT_EQ(s["data"]["token"], "aGVsbG8=");
  ASSERT_TRUE(decode_object(s, *find_by_kind("Secret"), back, error)) << error;
  EXPECT_EQ(back.data.at("token"), "hello");
}

TEST(ServeCodec, MalformedBodiesAreRefusedNamingTheField) {
  const Resource& cm = *find_by_kind("ConfigMap");
  kube::Object out;
  std::string error;
  EXPECT_FALSE(
      decode_object(Json::parse(R"({"metadata":{"name":"a","labels":{"x":1}}})"), cm, out, error));
  EXPECT_EQ(error, "metadata.labels.x: must be a string");
  EXPECT_FALSE(decode_object(Json::parse(R"({"metadata":{}})"), cm, out, error));
  EXPECT_EQ(error, "metadata.name: Required value: name is required");
  EXPECT_FALSE(
      decode_object(Json::parse(R"({"kind":"Pod","metadata":{"name":"a"}})"), cm, out, error));
  EXPECT_EQ(error, "kind: must be ConfigMap, got \"Pod\"");
  EXPECT_FALSE(decode_object(Json::parse(R"({"metadata":{"name":"a","resourceVersion":"x1"}})"), cm,
                             out, error));
  EXPECT_EQ(error.rfind("metadata.resourceVersion:", 0), 0u) << error;
}

TEST(ServeCodec, StatusCodesMapToKubernetesReasons) {
  EXPECT_EQ(http_code(kube::Code::kConflict), 409);
  EXPECT_EQ(http_code(kube::Code::kGone), 410);
  EXPECT_STREQ(status_reason(kube::Code::kGone), "Expired");
  EXPECT_STREQ(status_reason(kube::Code::kAlreadyExists), "AlreadyExists");
  const Json doc =
      status_document(kube::Status::Error(kube::Code::kNotFound, "gone"), find_by_kind("Pod"), "p");
  EXPECT_EQ(doc["kind"], "Status");
  EXPECT_EQ(doc["code"], 404);
  EXPECT_EQ(doc["reason"], "NotFound");
  EXPECT_EQ(doc["details"]["kind"], "pods");
}

}  // namespace
}  // namespace wsim::serve

// serve/protobuf_body.h: a Kubernetes protobuf envelope, built by hand as kubectl sends it.
namespace wsim::serve {
namespace {

std::string field(int number, const std::string& bytes) {
  std::string out(1, static_cast<char>(number << 3 | 2));
  out += static_cast<char>(bytes.size());  // Every test payload is < 128 bytes.
  return out + bytes;
}

std::string envelope(const std::string& api_version, const std::string& kind,
                     const std::string& raw) {
  return std::string("k8s\0", 4) + field(1, field(1, api_version) + field(2, kind)) + field(2, raw);
}

TEST(ServeProtobuf, NamespaceAndConfigMapBodiesBecomeTheirJson) {
  Json out;
  std::string error;
  const std::string meta = field(1, "team") + field(11, field(1, "app") + field(2, "demo"));
  ASSERT_TRUE(protobuf_to_json(envelope("v1", "Namespace", field(1, meta)), out, error)) << error;
  EXPECT_EQ(out["kind"], "Namespace");
  EXPECT_EQ(out["metadata"]["name"], "team");
  EXPECT_EQ(out["metadata"]["labels"]["app"], "demo");
  const std::string cm = field(1, field(1, "a") + field(3, "team")) +
                         field(2, field(1, "k") + field(2, "v")) +
                         field(2, field(1, "j") + field(2, "w"));
  ASSERT_TRUE(protobuf_to_json(envelope("v1", "ConfigMap", cm), out, error)) << error;
  EXPECT_EQ(out["metadata"]["namespace"], "team");
  EXPECT_EQ(out["data"], Json({{"j", "w"}, {"k", "v"}}));
}

TEST(ServeProtobuf, UnsupportedKindsAndGarbageAreRefused) {
  Json out;
  std::string error;
  EXPECT_FALSE(protobuf_to_json(envelope("v1", "Service", field(1, field(1, "s"))), out, error));
  EXPECT_NE(error.find("\"Service\" are not supported"), std::string::npos) << error;
  EXPECT_FALSE(protobuf_to_json("{\"kind\":\"Namespace\"}", out, error));
  EXPECT_EQ(error, "body: not a Kubernetes protobuf envelope");
  EXPECT_FALSE(protobuf_to_json(envelope("v1", "Namespace", "\x0a\x7f"), out, error));
  EXPECT_EQ(error, "body: malformed protobuf Namespace");
}

}  // namespace
}  // namespace wsim::serve
