// Server-side printing (table.h): the meta.k8s.io/v1 Table kubectl asks for, with the columns per
// kind `kubectl get` shows against a real cluster and AGE in virtual time (Kubernetes'
// HumanDuration). Pure functions.
#include "serve/table.h"

namespace wsim::serve {
namespace {

struct Column {
  const char* name;
  const char* type;
};

std::vector<Column> columns_of(const std::string& kind) {
  if (kind == "Pod") {
    return {{"Name", "string"},     {"Ready", "string"}, {"Status", "string"},
            {"Restarts", "string"}, {"Age", "string"},   {"Node", "string"}};
  }
  if (kind == "Deployment") {
    return {{"Name", "string"},
            {"Ready", "string"},
            {"Up-to-date", "integer"},
            {"Available", "integer"},
            {"Age", "string"}};
  }
  if (kind == "ReplicaSet") {
    return {{"Name", "string"},
            {"Desired", "integer"},
            {"Current", "integer"},
            {"Ready", "integer"},
            {"Age", "string"}};
  }
  if (kind == "Namespace" || kind == "Node") {
    return {{"Name", "string"}, {"Status", "string"}, {"Age", "string"}};
  }
  if (kind == "ConfigMap") return {{"Name", "string"}, {"Data", "integer"}, {"Age", "string"}};
  if (kind == "Secret") {
    return {{"Name", "string"}, {"Type", "string"}, {"Data", "integer"}, {"Age", "string"}};
  }
  if (kind == "Workspace") return {{"Name", "string"}, {"Phase", "string"}, {"Age", "string"}};
  return {{"Name", "string"}, {"Age", "string"}};
}

std::int64_t integer_or_zero(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoll(text.substr(0, 18));
}

std::string pod_status(const kube::Object& pod) {
  if (pod.meta.deletion_ms) return "Terminating";
  const std::string reason = pod.status_or("reason", "");
  return reason.empty() ? pod.status_or("phase", "Pending") : reason;
}

// The cells after Name and before Age (Pod: and the Node after Age).
Json middle_cells(const kube::Object& o) {
  const std::string& kind = o.kind;
  if (kind == "Pod") {
    return {o.status_or("ready", "false") == "true" ? "1/1" : "0/1", pod_status(o), "0"};
  }
  if (kind == "Deployment" || kind == "ReplicaSet") {
    const std::int64_t desired = integer_or_zero(o.spec_or("replicas", "1"));
    const std::int64_t ready = integer_or_zero(o.status_or("readyReplicas", "0"));
    const std::int64_t current = integer_or_zero(o.status_or("replicas", "0"));
    const std::int64_t available = integer_or_zero(o.status_or("availableReplicas", "0"));
    if (kind == "ReplicaSet") return {desired, current, ready};
    return {std::to_string(ready) + "/" + std::to_string(desired),
            integer_or_zero(o.status_or("updatedReplicas", std::to_string(current))), available};
  }
  if (kind == "Namespace") return {o.status_or("phase", "Active")};
  if (kind == "Node") {
    std::string status = o.status_or("ready", "true") == "true" ? "Ready" : "NotReady";
    if (o.spec_or("unschedulable", "") == "true") status += ",SchedulingDisabled";
    return {status};
  }
  if (kind == "ConfigMap") return {o.data.size()};
  if (kind == "Secret") return {"Opaque", o.data.size()};
  if (kind == "Workspace") return {o.status_or("phase", "")};
  return Json::array();
}

}  // namespace

bool wants_table(const std::string& accept) {
  return accept.find("as=Table") != std::string::npos &&
         accept.find("g=meta.k8s.io") != std::string::npos;
}

std::string human_duration(std::int64_t duration_ms) {
  const std::int64_t s = std::max<std::int64_t>(duration_ms, 0) / 1000;
  const std::int64_t m = s / 60;
  const std::int64_t h = m / 60;
  const std::int64_t d = h / 24;
  if (s < 120) return std::to_string(s) + "s";
  if (m < 10) return std::to_string(m) + "m" + (s % 60 ? std::to_string(s % 60) + "s" : "");
  if (h < 3) return std::to_string(m) + "m";
  if (h < 8) return std::to_string(h) + "h" + (m % 60 ? std::to_string(m % 60) + "m" : "");
  if (h < 48) return std::to_string(h) + "h";
  if (h < 24 * 8) return std::to_string(d) + "d" + (h % 24 ? std::to_string(h % 24) + "h" : "");
  return std::to_string(d) + "d";
}

Json table_of(const std::vector<kube::Object>& objects, const Resource& resource,
              std::uint64_t resource_version, TimeMs now_ms, std::int64_t epoch_wall_ms) {
  Json definitions = Json::array();
  for (const Column& c : columns_of(resource.kind)) {
    const std::string name = c.name;
    definitions.push_back({{"name", name},
                           {"type", c.type},
                           {"format", name == "Name" ? "name" : ""},
                           {"description", ""},
                           {"priority", name == "Node" ? 1 : 0}});
  }
  Json rows = Json::array();
  for (const kube::Object& object : objects) {
    Json cells = {object.meta.name};
    for (const Json& cell : middle_cells(object)) cells.push_back(cell);
    cells.push_back(human_duration(now_ms - object.meta.creation_ms));
    if (object.kind == "Pod") cells.push_back(object.spec_or("nodeName", "<none>"));
    Json metadata = {{"name", object.meta.name},
                     {"uid", object.meta.uid},
                     {"resourceVersion", std::to_string(object.meta.resource_version)},
                     {"creationTimestamp", rfc3339(epoch_wall_ms + object.meta.creation_ms)}};
    if (resource.namespaced) metadata["namespace"] = object.meta.namespace_;
    // kubectl prints --show-labels and -L columns from the row's metadata.
    if (!object.meta.labels.empty()) metadata["labels"] = object.meta.labels.map();
    rows.push_back({{"cells", cells},
                    {"object",
                     {{"kind", "PartialObjectMetadata"},
                      {"apiVersion", "meta.k8s.io/v1"},
                      {"metadata", metadata}}}});
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", {{"resourceVersion", std::to_string(resource_version)}}},
          {"columnDefinitions", definitions},
          {"rows", rows}};
}

}  // namespace wsim::serve
