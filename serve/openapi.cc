// OpenAPI v3 and v2 documents of the served kinds (openapi.h): kBodies holds the built-in kinds'
// schemas (wsim's descriptions, types as in k8s.io/api@v0.32.0); a custom kind's schema is its
// CRD's. Built from the resource registry (resources.h) on each request.
#include "serve/openapi.h"

#include <functional>
#include <map>

#include "serve/resources.h"

namespace wsim::serve {
namespace {

using Json = nlohmann::json;

const char kObjectMeta[] = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

// The fields of the built-in kinds' bodies (besides apiVersion, kind, metadata), as OpenAPI v3
// properties. Descriptions in wsim's words; types as in k8s.io/api@v0.32.0.
const char* kBodies = R"({
 "Deployment": {"spec": {"type": "object", "description": "The desired behaviour of the Deployment.",
   "properties": {
    "replicas": {"type": "integer", "format": "int32", "description": "Number of desired pods (default 1)."},
    "selector": {"type": "object", "description": "Label query over the pods the Deployment manages; must match the template's labels.",
      "properties": {"matchLabels": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Labels a pod must carry."}}},
    "template": {"type": "object", "description": "The pod template: the pods the Deployment creates.",
      "properties": {"metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "Labels and annotations of the pods."},
                     "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "The pods' spec (see pod.spec)."}}},
    "strategy": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "How old pods are replaced by new ones."},
    "paused": {"type": "boolean", "description": "True while the rollout is paused."},
    "minReadySeconds": {"type": "integer", "format": "int32", "description": "Seconds a pod must be ready to count as available."},
    "revisionHistoryLimit": {"type": "integer", "format": "int32", "description": "Old ReplicaSets kept for rollback."},
    "progressDeadlineSeconds": {"type": "integer", "format": "int32", "description": "Seconds without progress before the rollout counts as failed."}}},
  "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "The observed state: replicas, readyReplicas, availableReplicas, conditions."}},
 "Pod": {"spec": {"type": "object", "description": "The desired behaviour of the pod.",
   "properties": {
    "containers": {"type": "array", "description": "The containers of the pod (merged by name in a strategic merge patch).",
      "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
        "name": {"type": "string", "description": "The container's name, unique in the pod."},
        "image": {"type": "string", "description": "The container image."},
        "command": {"type": "array", "items": {"type": "string"}, "description": "The entrypoint."},
        "args": {"type": "array", "items": {"type": "string"}, "description": "Arguments to the entrypoint."},
        "env": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "Environment variables (merged by name)."},
        "ports": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "Ports to expose (merged by containerPort)."}}}},
    "initContainers": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "Containers run to completion before the others."},
    "nodeName": {"type": "string", "description": "The node the pod is bound to (set by the scheduler)."},
    "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Labels a node must carry to run the pod."},
    "restartPolicy": {"type": "string", "description": "Always, OnFailure or Never."},
    "hostNetwork": {"type": "boolean", "description": "Use the node's network namespace."},
    "serviceAccountName": {"type": "string", "description": "The service account the pod runs as."},
    "terminationGracePeriodSeconds": {"type": "integer", "format": "int64", "description": "Seconds between SIGTERM and SIGKILL on deletion."},
    "volumes": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "Volumes the containers may mount (merged by name)."}}},
  "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "The observed state: phase, conditions."}},
 "Service": {"spec": {"type": "object", "description": "The desired behaviour of the service.",
   "properties": {
    "type": {"type": "string", "description": "ClusterIP, NodePort, LoadBalancer or ExternalName."},
    "selector": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Labels of the pods traffic goes to."},
    "clusterIP": {"type": "string", "description": "The service's virtual IP."},
    "ports": {"type": "array", "description": "The ports the service exposes (merged by port).",
      "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
        "name": {"type": "string", "description": "The port's name."},
        "port": {"type": "integer", "format": "int32", "description": "The port the service exposes."},
        "targetPort": {"x-kubernetes-int-or-string": true, "description": "The pods' port (number or name)."},
        "protocol": {"type": "string", "description": "TCP, UDP or SCTP."}}}}}},
  "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "The observed state."}},
 "PersistentVolumeClaim": {"spec": {"type": "object", "description": "The storage the claim asks for.",
   "properties": {
    "accessModes": {"type": "array", "items": {"type": "string"}, "description": "ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod."},
    "resources": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "requests.storage: the size asked for."},
    "storageClassName": {"type": "string", "description": "The storage class."},
    "volumeMode": {"type": "string", "description": "Filesystem or Block."},
    "volumeName": {"type": "string", "description": "The bound persistent volume."}}},
  "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "The observed state: phase."}},
 "NetworkPolicy": {"spec": {"type": "object", "description": "Which traffic the selected pods allow.",
   "properties": {
    "podSelector": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "The pods the policy applies to."},
    "policyTypes": {"type": "array", "items": {"type": "string"}, "description": "Ingress, Egress."},
    "ingress": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "Allowed incoming traffic."},
    "egress": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "Allowed outgoing traffic."}}}},
 "Lease": {"spec": {"type": "object", "description": "The lease: who holds it and until when.",
   "properties": {
    "holderIdentity": {"type": "string", "description": "The holder (a leader election candidate's identity)."},
    "leaseDurationSeconds": {"type": "integer", "format": "int32", "description": "Seconds candidates wait before taking the lease over."},
    "acquireTime": {"type": "string", "format": "date-time", "description": "When the holder acquired the lease."},
    "renewTime": {"type": "string", "format": "date-time", "description": "When the holder last renewed it."},
    "leaseTransitions": {"type": "integer", "format": "int32", "description": "How often the lease changed holders."}}}},
 "ConfigMap": {"data": {"type": "object", "additionalProperties": {"type": "string"}, "description": "The configuration data."},
   "binaryData": {"type": "object", "additionalProperties": {"type": "string", "format": "byte"}, "description": "Binary data, base64."},
   "immutable": {"type": "boolean", "description": "True: the data cannot change."}},
 "Secret": {"data": {"type": "object", "additionalProperties": {"type": "string", "format": "byte"}, "description": "The secret data, base64."},
   "stringData": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Write-only data as plain strings (merged into data)."},
   "type": {"type": "string", "description": "The secret's type (Opaque, kubernetes.io/tls, ...)."},
   "immutable": {"type": "boolean", "description": "True: the data cannot change."}},
 "Event": {"involvedObject": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "The object the event is about."},
   "reason": {"type": "string", "description": "A short machine-readable reason."},
   "message": {"type": "string", "description": "A human-readable description."},
   "type": {"type": "string", "description": "Normal or Warning."},
   "count": {"type": "integer", "format": "int32", "description": "How often the event occurred."},
   "source": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "The component reporting it."},
   "firstTimestamp": {"type": "string", "format": "date-time", "description": "When it first occurred."},
   "lastTimestamp": {"type": "string", "format": "date-time", "description": "When it last occurred."},
   "eventTime": {"type": "string", "format": "date-time", "description": "When it occurred (microseconds)."},
   "reportingComponent": {"type": "string", "description": "The controller that reported it."},
   "reportingInstance": {"type": "string", "description": "The controller instance."}},
 "Namespace": {"spec": {"type": "object", "description": "The namespace's finalizers.",
   "properties": {"finalizers": {"type": "array", "items": {"type": "string"}, "description": "What must finish before the namespace goes."}}},
  "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "phase: Active or Terminating."}},
 "Node": {"spec": {"type": "object", "description": "The node's scheduling settings.",
   "properties": {"unschedulable": {"type": "boolean", "description": "True: no new pods are scheduled here."}}},
  "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "Capacity and conditions."}},
 "CustomResourceDefinition": {"spec": {"type": "object", "description": "The custom kind: group, names, scope, versions and their schemas.",
   "properties": {
    "group": {"type": "string", "description": "The API group of the kind."},
    "names": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "kind, plural, singular, shortNames."},
    "scope": {"type": "string", "description": "Namespaced or Cluster."},
    "versions": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "The served versions, their schemas and subresources."}}},
  "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "acceptedNames and conditions."}}
})";

const Json& bodies() {
  static const Json parsed = Json::parse(kBodies);
  return parsed;
}

Json object_meta() {
  auto str = [](const char* d) { return Json{{"type", "string"}, {"description", d}}; };
  Json map = {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
  Json labels = map;
  labels["description"] = "Labels: string keys and values for selecting objects.";
  Json annotations = map;
  annotations["description"] = "Annotations: arbitrary string data kept with the object.";
  return {{"type", "object"},
          {"description", "Metadata every object has."},
          {"properties",
           {{"name", str("The object's name, unique in its namespace.")},
            {"generateName", str("A prefix the server completes into a unique name.")},
            {"namespace", str("The namespace of the object.")},
            {"uid", str("Unique id assigned by the server.")},
            {"resourceVersion", str("The version of the object (optimistic concurrency).")},
            {"generation",
             {{"type", "integer"},
              {"format", "int64"},
              {"description", "Bumped on every change of the desired state."}}},
            {"creationTimestamp", str("When the object was created.")},
            {"deletionTimestamp", str("When deletion was requested.")},
            {"labels", labels},
            {"annotations", annotations},
            {"finalizers",
             {{"type", "array"},
              {"items", {{"type", "string"}}},
              {"description", "What must happen before the object goes."}}},
            {"ownerReferences",
             {{"type", "array"},
              {"items", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
              {"description", "Objects this one depends on."}}},
            {"managedFields",
             {{"type", "array"},
              {"items", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
              {"description", "Which field manager owns which fields."}}}}}};
}

std::string schema_name(const Resource& r) {
  if (r.custom || r.kind == "Workspace") {
    std::string reversed;
    std::string group = r.group;
    std::size_t end = group.size();
    while (true) {
      const std::size_t dot = group.rfind('.', end - 1);
      const std::string part = group.substr(dot == std::string::npos ? 0 : dot + 1,
                                            dot == std::string::npos ? end : end - dot - 1);
      reversed += (reversed.empty() ? "" : ".") + part;
      if (dot == std::string::npos || dot == 0) break;
      end = dot;
    }
    return reversed + "." + r.version + "." + r.kind;
  }
  if (r.kind == "CustomResourceDefinition") {
    return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition";
  }
  std::string package = r.group.empty() ? "core" : r.group.substr(0, r.group.find('.'));
  return "io.k8s.api." + package + "." + r.version + "." + r.kind;
}

Json gvk(const Resource& r) {
  return Json::array({{{"group", r.group}, {"version", r.version}, {"kind", r.kind}}});
}

Json kind_schema(const Resource& r, const std::string& ref_prefix) {
  Json schema;
  if (r.custom && r.schema.is_object()) {
    schema = r.schema;
  } else {
    schema = {{"type", "object"}, {"description", r.kind + ": served by wsim serve."}};
    const Json& known = bodies();
    if (known.contains(r.kind)) {
      schema["properties"] = known[r.kind];
    } else {
      schema["properties"] = {{"spec",
                               {{"type", "object"},
                                {"x-kubernetes-preserve-unknown-fields", true},
                                {"description", "The desired state."}}},
                              {"status",
                               {{"type", "object"},
                                {"x-kubernetes-preserve-unknown-fields", true},
                                {"description", "The observed state."}}}};
    }
  }
  if (!schema.contains("properties")) schema["properties"] = Json::object();
  schema["properties"]["apiVersion"] = {
      {"type", "string"}, {"description", "The versioned schema of this representation."}};
  schema["properties"]["kind"] = {{"type", "string"},
                                  {"description", "The REST resource this object represents."}};
  schema["properties"]["metadata"] = {{"allOf", {{{"$ref", ref_prefix + kObjectMeta}}}},
                                      {"description", "Standard object's metadata."}};
  if (!schema.contains("description")) schema["description"] = r.kind + " (custom resource).";
  schema["x-kubernetes-group-version-kind"] = gvk(r);
  return schema;
}

Json query_parameter(const char* name, const char* type, const char* description) {
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", {{"type", type}, {"uniqueItems", true}}}};
}

Json write_parameters() {
  return Json::array(
      {query_parameter("dryRun", "string", "All: validate, do not persist."),
       query_parameter("fieldManager", "string", "The name of the actor making the change."),
       query_parameter("fieldValidation", "string",
                       "Ignore, Warn or Strict (wsim serve keeps unknown fields).")});
}

Json operation(const Resource& r, const char* action, const std::string& schema_ref, bool patch) {
  Json op = {{"description", std::string(action) + " " + r.kind},
             {"operationId", std::string(action) + r.kind},
             {"x-kubernetes-action", action},
             {"x-kubernetes-group-version-kind",
              {{"group", r.group}, {"version", r.version}, {"kind", r.kind}}},
             {"responses",
              {{"200",
                {{"description", "OK"},
                 {"content", {{"application/json", {{"schema", {{"$ref", schema_ref}}}}}}}}}}}};
  if (patch) {
    Json params = write_parameters();
    params.push_back(query_parameter("force", "boolean", "Force apply conflicts."));
    op["parameters"] = params;
    op["requestBody"] = {
        {"content",
         {{"application/apply-patch+yaml", {{"schema", {{"type", "object"}}}}},
          {"application/json-patch+json", {{"schema", {{"type", "object"}}}}},
          {"application/merge-patch+json", {{"schema", {{"type", "object"}}}}},
          {"application/strategic-merge-patch+json", {{"schema", {{"type", "object"}}}}}}}};
  } else if (std::string(action) == "put" || std::string(action) == "post") {
    op["parameters"] = write_parameters();
  }
  return op;
}

std::string path_prefix(const Resource& r) {
  return r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
}

}  // namespace

Json openapi_v3_group_version(const std::string& group, const std::string& version) {
  Json paths = Json::object();
  Json schemas = {{kObjectMeta, object_meta()}};
  const std::string ref = "#/components/schemas/";
  bool any = false;
  for (const Resource* resource : resources()) {
    const Resource& r = *resource;
    if (r.group != group || r.version != version) continue;
    any = true;
    const std::string name = schema_name(r);
    schemas[name] = kind_schema(r, ref);
    const std::string scope =
        path_prefix(r) + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural;
    paths[scope] = {{"get", operation(r, "list", ref + name, false)},
                    {"post", operation(r, "post", ref + name, false)}};
    paths[scope + "/{name}"] = {{"get", operation(r, "get", ref + name, false)},
                                {"put", operation(r, "put", ref + name, false)},
                                {"patch", operation(r, "patch", ref + name, true)},
                                {"delete", operation(r, "delete", ref + name, false)}};
    if (r.has_status) {
      paths[scope + "/{name}/status"] = {{"get", operation(r, "get", ref + name, false)},
                                         {"put", operation(r, "put", ref + name, false)}};
    }
  }
  if (!any) return Json();
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes (wsim serve)"}, {"version", "v1.32.0"}}},
          {"paths", paths},
          {"components", {{"schemas", schemas}}}};
}

Json openapi_v3_index() {
  Json paths = Json::object();
  for (const Resource* r : resources()) {
    const std::string key = path_prefix(*r).substr(1);
    if (paths.contains(key)) continue;
    const Json doc = openapi_v3_group_version(r->group, r->version);
    const std::size_t hash = std::hash<std::string>()(doc.dump());
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + std::to_string(hash)}};
  }
  return {{"paths", paths}};
}

Json openapi_v2() {
  Json definitions = Json::object();
  const std::string ref = "#/definitions/";
  definitions[kObjectMeta] = object_meta();
  for (const Resource* r : resources()) definitions[schema_name(*r)] = kind_schema(*r, ref);
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes (wsim serve)"}, {"version", "v1.32.0"}}},
          {"paths", Json::object()},
          {"definitions", definitions}};
}

}  // namespace wsim::serve
