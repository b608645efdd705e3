// The Kubernetes JSON codec (codec.h): nests sim/kube's flat spec/status maps into the per-kind
// shapes kubectl's typed decoders need and flattens them back; times are RFC 3339 of epoch +
// virtual ms. What is served and what is lost: serve/README.md. Pure functions, safe from any
// thread.
#include "serve/codec.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <set>
#include <sstream>
#include <vector>

namespace wsim::serve {
namespace {

using kube::Fields;
using kube::Object;

// Keys served as JSON integers (Kubernetes' int32/int64 fields of the typed kinds).
const std::set<std::string>& integer_keys(const std::string& kind) {
  static const std::set<std::string> apps = {"replicas",
                                             "availableReplicas",
                                             "unavailableReplicas",
                                             "readyReplicas",
                                             "updatedReplicas",
                                             "observedGeneration",
                                             "minReadySeconds",
                                             "revisionHistoryLimit",
                                             "progressDeadlineSeconds",
                                             "fullyLabeledReplicas"};
  static const std::set<std::string> pod = {"terminationGracePeriodSeconds"};
  static const std::set<std::string> lease = {"leaseDurationSeconds", "leaseTransitions"};
  static const std::set<std::string> event = {"count"};
  static const std::set<std::string> none;
  if (kind == "Deployment" || kind == "ReplicaSet") return apps;
  if (kind == "Pod") return pod;
  if (kind == "Lease") return lease;
  if (kind == "Event") return event;
  return none;
}

bool is_integer(const std::string& text) {
  if (text.empty() || text.size() > 18) return false;
  std::size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  return std::all_of(text.begin() + i, text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One flat value as JSON: integer for the kind's integer keys, a parsed array for values that
// hold JSON arrays (lists sim/kube keeps as text, e.g. Pod containers), else a string.
Json leaf_value(const std::string& kind, const std::string& key, const std::string& value) {
  const std::string last = key.substr(key.rfind('.') + 1);
  if (integer_keys(kind).count(last) && is_integer(value)) return Json(std::stoll(value));
  if (kind != "ConfigMap" && kind != "Secret" && !value.empty() && value.front() == '[') {
    Json parsed = Json::parse(value, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_array()) return parsed;
  }
  return Json(value);
}

// Fields of the built-in kinds that are maps of strings whose keys may hold dots
// ("kubernetes.io/os"): what follows them in a flat key is one map key.
bool is_string_map(const std::string& field) {
  return field == "labels" || field == "annotations" || field == "nodeSelector" ||
         field == "matchLabels" || field == "data";
}

// Nests "a.b.c" keys into objects. A key whose path runs into a leaf stays dotted at the level
// where the clash happens (no information is dropped); after a string-map field (labels,
// annotations, nodeSelector, matchLabels) the rest of the key is one map key.
Json nest(const std::string& kind, const Fields& fields) {
  Json out = Json::object();
  for (const auto& [key, value] : fields) {
    Json* node = &out;
    std::size_t start = 0;
    std::size_t dot = key.find('.');
    while (dot != std::string::npos) {
      const std::string part = key.substr(start, dot - start);
      if (node->contains(part) && !(*node)[part].is_object()) break;
      node = &(*node)[part];
      start = dot + 1;
      dot = is_string_map(part) ? std::string::npos : key.find('.', start);
    }
    (*node)[key.substr(start)] = leaf_value(kind, key, value);
  }
  return out;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string& in) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kBase64[(buffer >> bits) & 0x3f];
    }
  }
  if (bits > 0) out += kBase64[(buffer << (6 - bits)) & 0x3f];
  while (out.size() % 4 != 0) out += '=';
  return out;
}

bool base64_decode(const std::string& in, std::string& out) {
  out.clear();
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* at = std::strchr(kBase64, c);
    if (at == nullptr || c == '\0') return false;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(at - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return true;
}

std::string owner_api_version(const std::string& kind) {
  const Resource* resource = find_by_kind(kind);
  return resource != nullptr ? resource->api_version() : "v1";
}

Json encode_metadata(const Object& object, const Resource& resource, std::int64_t epoch_ms) {
  const kube::ObjectMeta& meta = object.meta;
  Json m = Json::object();
  m["name"] = meta.name;
  if (resource.namespaced) m["namespace"] = meta.namespace_;
  m["uid"] = meta.uid;
  m["resourceVersion"] = std::to_string(meta.resource_version);
  m["generation"] = meta.generation;
  m["creationTimestamp"] = rfc3339(epoch_ms + meta.creation_ms);
  if (!meta.labels.empty()) m["labels"] = meta.labels;
  if (!meta.annotations.empty()) m["annotations"] = meta.annotations;
  if (!meta.finalizers.empty()) m["finalizers"] = meta.finalizers;
  if (meta.deletion_ms) m["deletionTimestamp"] = rfc3339(epoch_ms + *meta.deletion_ms);
  if (meta.deletion_grace_period_ms) {
    m["deletionGracePeriodSeconds"] = *meta.deletion_grace_period_ms / 1000;
  }
  for (const kube::OwnerReference& owner : meta.owner_references) {
    m["ownerReferences"].push_back({{"apiVersion", owner_api_version(owner.kind)},
                                    {"kind", owner.kind},
                                    {"name", owner.name},
                                    {"uid", owner.uid},
                                    {"controller", owner.controller},
                                    {"blockOwnerDeletion", owner.block_owner_deletion}});
  }
  return m;
}

// Deployment / ReplicaSet: "template.labels.k" is the pod template's metadata.labels, which is
// also the selector (sim/kube selects a workload's pods by its template labels).
Json encode_workload_spec(const Object& object) {
  Fields rest;
  Json labels = Json::object();
  const std::string prefix = "template.labels.";
  for (const auto& [key, value] : object.spec) {
    if (key.rfind(prefix, 0) == 0) {
      labels[key.substr(prefix.size())] = value;
    } else {
      rest[key] = value;
    }
  }
  Json spec = nest(object.kind, rest);
  spec["template"]["metadata"]["labels"] = labels;
  spec["selector"]["matchLabels"] = labels;
  return spec;
}

Json encode_spec(const Object& object) {
  if (object.kind == "Deployment" || object.kind == "ReplicaSet") {
    return encode_workload_spec(object);
  }
  Json spec = nest(object.kind, object.spec);
  if (object.kind == "Namespace" && spec.contains("finalizers")) {
    spec["finalizers"] = split(spec["finalizers"].get<std::string>(), ',');
  }
  if (object.kind == "Pod" && spec.contains("nodeSelector") && spec["nodeSelector"].is_string()) {
    Json selector = Json::object();
    for (const std::string& pair : split(spec["nodeSelector"].get<std::string>(), ',')) {
      const std::size_t eq = pair.find('=');
      selector[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
    }
    spec["nodeSelector"] = selector;
  }
  if (object.kind == "Node" && spec.contains("unschedulable")) {
    spec["unschedulable"] = spec["unschedulable"] == "true";
  }
  return spec;
}

Json encode_condition(const kube::Condition& c, std::int64_t epoch_ms) {
  Json out = {{"type", c.type}, {"status", c.status}};
  if (!c.reason.empty()) out["reason"] = c.reason;
  if (!c.message.empty()) out["message"] = c.message;
  out["lastTransitionTime"] = rfc3339(epoch_ms + c.last_transition_ms);
  return out;
}

// Pods and Nodes keep readiness as status "ready"; served as the Ready condition Kubernetes
// clients read (unless the object has a Ready condition of its own).
void add_ready_condition(const Object& object, Json& status) {
  auto it = object.status.find("ready");
  if (it == object.status.end() || object.condition("Ready") != nullptr) return;
  status["conditions"].push_back(
      {{"type", "Ready"}, {"status", it->second == "true" ? "True" : "False"}});
}

Json encode_status(const Object& object, std::int64_t epoch_ms) {
  Json status = nest(object.kind, object.status);
  for (const kube::Condition& c : object.conditions) {
    status["conditions"].push_back(encode_condition(c, epoch_ms));
  }
  if (object.kind == "Pod" || object.kind == "Node") add_ready_condition(object, status);
  if (object.kind == "Node") {
    const Json capacity = {{"cpu", object.status_or("cpuMilli", "0") + "m"},
                           {"memory", object.status_or("memoryMiB", "0") + "Mi"},
                           {"pods", "110"}};
    status["capacity"] = capacity;
    status["allocatable"] = capacity;
  }
  return status;
}

}  // namespace

std::string rfc3339(std::int64_t wall_ms) {
  const std::time_t seconds = static_cast<std::time_t>(wall_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace wsim::serve

namespace wsim::serve {
namespace {

// The lossy rendering of the flat object alone (no client document).
Json encode_flat(const kube::Object& object, const Resource& resource, std::int64_t epoch_wall_ms) {
  Json out = Json::object();
  out["apiVersion"] = resource.api_version();
  out["kind"] = resource.kind;
  out["metadata"] = encode_metadata(object, resource, epoch_wall_ms);
  if (object.kind == "ConfigMap" || object.kind == "Secret") {
    Json data = Json::object();
    for (const auto& [key, value] : object.data) {
      data[key] = object.kind == "Secret" ? base64_encode(value) : value;
    }
    out["data"] = data;
    if (object.kind == "Secret") out["type"] = "Opaque";
    return out;
  }
  if (resource.top_level) {
    for (auto& [key, value] : nest(object.kind, object.spec).items()) {
      if (key != "apiVersion" && key != "kind" && key != "metadata") out[key] = value;
    }
    return out;
  }
  out["spec"] = encode_spec(object);
  out["status"] = encode_status(object, epoch_wall_ms);
  return out;
}

// metadata fields the server owns or sim/kube keeps (served from the stored object).
bool stored_metadata(const std::string& key) {
  static const std::set<std::string> keys = {"name",
                                             "namespace",
                                             "uid",
                                             "resourceVersion",
                                             "generation",
                                             "creationTimestamp",
                                             "deletionTimestamp",
                                             "deletionGracePeriodSeconds",
                                             "labels",
                                             "annotations",
                                             "finalizers",
                                             "ownerReferences",
                                             "selfLink"};
  return keys.count(key) > 0;
}

// Everything but apiVersion, kind and metadata.
Json body_of(const Json& object) {
  Json out = Json::object();
  for (const auto& [key, value] : object.items()) {
    if (key != "apiVersion" && key != "kind" && key != "metadata") out[key] = value;
  }
  return out;
}

// The client's document with what sim/kube changed since it was written: the difference between
// the flat object's rendering then and now, applied as a JSON patch to the document. An
// operation that does not apply (the change sits where the rendering and the document disagree)
// gives that top-level field the rendering instead.
Json body_with_changes(const KeptDocument& kept, const Json& now) {
  Json out = body_of(kept.doc);
  for (const auto& [key, value] : kept.rendered.items()) {
    if (!out.contains(key)) out[key] = value;
  }
  const Json ops = Json::diff(kept.rendered, now);
  std::set<std::string> fallback;
  for (const Json& op : ops) {
    const std::string path = op["path"].get<std::string>();
    const std::string top = path.substr(
        1, path.find('/', 1) == std::string::npos ? std::string::npos : path.find('/', 1) - 1);
    if (fallback.count(top)) continue;
    try {
      out = out.patch(Json::array({op}));
    } catch (const Json::exception&) {
      fallback.insert(top);
    }
  }
  for (const std::string& top : fallback) {
    if (now.contains(top)) {
      out[top] = now[top];
    } else {
      out.erase(top);
    }
  }
  return out;
}

bool same_flat(const kube::Object& a, const kube::Object& b) {
  return a.spec == b.spec && a.status == b.status && a.conditions == b.conditions &&
         a.data == b.data;
}

// core/v1 Event field <-> events.k8s.io/v1 Event field (k8s.io/kubernetes
// pkg/apis/events/v1/conversion.go@v1.32.0: the internal Event is core's) [reconstructed].
const std::vector<std::pair<std::string, std::string>>& event_fields() {
  static const std::vector<std::pair<std::string, std::string>> fields = {
      {"involvedObject", "regarding"},
      {"message", "note"},
      {"source", "deprecatedSource"},
      {"count", "deprecatedCount"},
      {"firstTimestamp", "deprecatedFirstTimestamp"},
      {"lastTimestamp", "deprecatedLastTimestamp"},
      {"reportingComponent", "reportingController"}};
  return fields;
}

Json rename_fields(const Json& in, bool to_events) {
  Json out = in;
  for (const auto& [core, events] : event_fields()) {
    const std::string& from = to_events ? core : events;
    const std::string& to = to_events ? events : core;
    if (!out.contains(from)) continue;
    out[to] = out[from];
    out.erase(from);
  }
  return out;
}

bool is_events_group(const Resource& resource) {
  return resource.kind == "Event" && resource.group == "events.k8s.io";
}

}  // namespace

std::string base64_text(const std::string& raw) { return base64_encode(raw); }

std::string unbase64_text(const std::string& text) {
  std::string raw;
  return base64_decode(text, raw) ? raw : std::string();
}

Json event_to_core(const Json& body) {
  Json out = rename_fields(body, false);
  out["apiVersion"] = "v1";
  return out;
}

Json encode_object(const kube::Object& object, const Resource& resource, std::int64_t epoch_wall_ms,
                   const KeptDocument* kept) {
  assert(object.kind == resource.kind);
  Json out = encode_flat(object, resource, epoch_wall_ms);
  if (kept != nullptr && kept->uid == object.meta.uid) {
    Json body =
        same_flat(kept->flat, object) ? body_of(kept->doc) : body_with_changes(*kept, body_of(out));
    const Json meta = kept->doc.value("metadata", Json::object());
    for (const auto& [key, value] : meta.items()) {
      if (!stored_metadata(key)) out["metadata"][key] = value;
    }
    if (meta.contains("ownerReferences") &&
        kept->flat.meta.owner_references == object.meta.owner_references) {
      out["metadata"]["ownerReferences"] = meta["ownerReferences"];
    }
    for (auto& [key, value] : body.items()) out[key] = value;
  }
  if (is_events_group(resource)) {
    out = rename_fields(out, true);
    out["apiVersion"] = resource.api_version();
  }
  return out;
}

std::shared_ptr<const KeptDocument> keep_document(const Json& doc, const Resource& resource,
                                                  const std::string& uid,
                                                  std::int64_t epoch_wall_ms) {
  auto kept = std::make_shared<KeptDocument>();
  kept->uid = uid;
  kept->doc = is_events_group(resource) ? event_to_core(doc) : doc;
  const Resource& stored = is_events_group(resource) ? *find_by_kind("Event") : resource;
  kept->doc["apiVersion"] = stored.api_version();
  kept->doc["kind"] = stored.kind;
  if (resource.kind == "Secret") kept->doc.erase("stringData");
  std::string error;
  if (!decode_object(kept->doc, stored, kept->flat, error)) return nullptr;
  kept->rendered = body_of(encode_flat(kept->flat, stored, epoch_wall_ms));
  if (resource.kind == "Secret") kept->doc["data"] = kept->rendered["data"];
  return kept;
}

}  // namespace wsim::serve

namespace wsim::serve {
namespace {

using kube::Fields;
using kube::Object;

bool fail(std::string& error, const std::string& field, const std::string& what) {
  error = field + ": " + what;
  return false;
}

// The inverse of nest(): objects become dotted keys, arrays are kept as JSON text, scalars as
// their text. `skip` names top-level keys the caller decodes itself.
void flatten(const Json& node, const std::string& prefix, Fields& out,
             const std::set<std::string>& skip = {}) {
  for (const auto& [key, value] : node.items()) {
    if (prefix.empty() && skip.count(key)) continue;
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      flatten(value, path, out);
    } else if (value.is_string()) {
      out[path] = value.get<std::string>();
    } else if (!value.is_null()) {
      out[path] = value.dump();
    }
  }
}

// `Map`: a std::map<std::string, std::string> or a kube::Fields::Map (same entries and order).
template <typename Map>
bool decode_string_map(const Json& node, const std::string& field, Map& out, std::string& error) {
  if (node.is_null()) return true;
  if (!node.is_object()) return fail(error, field, "must be an object of strings");
  for (const auto& [key, value] : node.items()) {
    if (!value.is_string()) return fail(error, field + "." + key, "must be a string");
    out[key] = value.template get<std::string>();
  }
  return true;
}

bool decode_string_list(const Json& node, const std::string& field, std::vector<std::string>& out,
                        std::string& error) {
  if (node.is_null()) return true;
  if (!node.is_array()) return fail(error, field, "must be a list of strings");
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (!node[i].is_string()) {
      return fail(error, field + "[" + std::to_string(i) + "]", "must be a string");
    }
    out.push_back(node[i].get<std::string>());
  }
  return true;
}

bool decode_owner_references(const Json& node, kube::ObjectMeta& meta, std::string& error) {
  if (node.is_null()) return true;
  if (!node.is_array()) return fail(error, "metadata.ownerReferences", "must be a list");
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string field = "metadata.ownerReferences[" + std::to_string(i) + "]";
    const Json& ref = node[i];
    if (!ref.is_object() || !ref.value("kind", Json()).is_string() ||
        !ref.value("name", Json()).is_string()) {
      return fail(error, field, "needs string kind and name");
    }
    kube::OwnerReference owner;
    owner.kind = ref["kind"].get<std::string>();
    owner.name = ref["name"].get<std::string>();
    owner.uid = ref.value("uid", std::string());
    owner.controller = ref.value("controller", false);
    owner.block_owner_deletion = ref.value("blockOwnerDeletion", false);
    meta.owner_references.push_back(owner);
  }
  return true;
}

bool decode_resource_version(const Json& node, std::uint64_t& out, std::string& error) {
  if (node.is_null()) return true;
  const std::string text = node.is_string() ? node.get<std::string>() : "?";
  if (text.empty()) return true;
  if (!is_integer(text) || text[0] == '-') {
    return fail(error, "metadata.resourceVersion", "must be a decimal string, got " + node.dump());
  }
  out = std::stoull(text);
  return true;
}

bool decode_metadata(const Json& m, const Resource& resource, kube::ObjectMeta& meta,
                     std::string& error) {
  if (!m.is_object()) return fail(error, "metadata", "Required value");
  const Json name = m.value("name", Json());
  if (!name.is_string() || name.get<std::string>().empty()) {
    return fail(error, "metadata.name", "Required value: name is required");
  }
  meta.name = name.get<std::string>();
  const Json ns = m.value("namespace", Json());
  if (!ns.is_null() && !ns.is_string())
    return fail(error, "metadata.namespace", "must be a string");
  if (resource.namespaced && ns.is_string()) meta.namespace_ = ns.get<std::string>();
  const Json uid = m.value("uid", Json());
  if (uid.is_string()) meta.uid = uid.get<std::string>();  // An update's precondition.
  return decode_string_map(m.value("labels", Json()), "metadata.labels", meta.labels.mutable_map(),
                           error) &&
         decode_string_map(m.value("annotations", Json()), "metadata.annotations",
                           meta.annotations.mutable_map(), error) &&
         decode_string_list(m.value("finalizers", Json()), "metadata.finalizers", meta.finalizers,
                            error) &&
         decode_owner_references(m.value("ownerReferences", Json()), meta, error) &&
         decode_resource_version(m.value("resourceVersion", Json()), meta.resource_version, error);
}

std::string join(const std::vector<std::string>& parts, char separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

bool decode_spec(const Json& spec, Object& object, std::string& error) {
  if (spec.is_null()) return true;
  if (!spec.is_object()) return fail(error, "spec", "must be an object");
  const std::string& kind = object.kind;
  if (kind == "Deployment" || kind == "ReplicaSet") {
    Json rest = spec;
    rest.erase("selector");
    std::map<std::string, std::string> labels;
    if (rest.contains("template") && rest["template"].is_object()) {
      Json& template_ = rest["template"];
      if (template_.contains("metadata") && template_["metadata"].is_object()) {
        if (!decode_string_map(template_["metadata"].value("labels", Json()),
                               "spec.template.metadata.labels", labels, error)) {
          return false;
        }
        template_["metadata"].erase("labels");
        if (template_["metadata"].empty()) template_.erase("metadata");
      }
      if (template_.empty()) rest.erase("template");
    }
    flatten(rest, "", object.spec);
    for (const auto& [key, value] : labels) object.spec["template.labels." + key] = value;
    return true;
  }
  flatten(spec, "", object.spec, {"finalizers", "nodeSelector"});
  if (kind == "Namespace" && spec.contains("finalizers")) {
    std::vector<std::string> finalizers;
    if (!decode_string_list(spec["finalizers"], "spec.finalizers", finalizers, error)) return false;
    if (!finalizers.empty()) object.spec["finalizers"] = join(finalizers, ',');
  }
  if (kind == "Pod" && spec.contains("nodeSelector")) {
    std::map<std::string, std::string> selector;
    if (!decode_string_map(spec["nodeSelector"], "spec.nodeSelector", selector, error)) {
      return false;
    }
    std::vector<std::string> pairs;
    for (const auto& [key, value] : selector) pairs.push_back(key + "=" + value);
    if (!pairs.empty()) object.spec["nodeSelector"] = join(pairs, ',');
  }
  if (kind == "Pod" && spec.contains("terminationGracePeriodSeconds")) {
    if (!spec["terminationGracePeriodSeconds"].is_number_integer()) {
      return fail(error, "spec.terminationGracePeriodSeconds", "must be an integer");
    }
    object.spec["terminationGracePeriodMs"] =
        std::to_string(spec["terminationGracePeriodSeconds"].get<std::int64_t>() * 1000);
  }
  return true;
}

bool decode_condition(const Json& c, const std::string& field, kube::Condition& out,
                      std::string& error) {
  if (!c.is_object() || !c.value("type", Json()).is_string() ||
      !c.value("status", Json()).is_string()) {
    return fail(error, field, "needs string type and status");
  }
  out.type = c["type"].get<std::string>();
  out.status = c["status"].get<std::string>();
  out.reason = c.value("reason", std::string());
  out.message = c.value("message", std::string());
  return true;
}

bool decode_status(const Json& status, Object& object, std::string& error) {
  if (status.is_null()) return true;
  if (!status.is_object()) return fail(error, "status", "must be an object");
  flatten(status, "", object.status, {"conditions", "capacity", "allocatable"});
  const Json conditions = status.value("conditions", Json());
  if (conditions.is_null()) return true;
  if (!conditions.is_array()) return fail(error, "status.conditions", "must be a list");
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    kube::Condition c;
    if (!decode_condition(conditions[i], "status.conditions[" + std::to_string(i) + "]", c,
                          error)) {
      return false;
    }
    if ((object.kind == "Pod" || object.kind == "Node") && c.type == "Ready") {
      object.status["ready"] = c.status == "True" ? "true" : "false";
    } else {
      object.conditions.push_back(c);
    }
  }
  return true;
}

bool decode_data(const Json& body, Object& object, std::string& error) {
  if (!decode_string_map(body.value("data", Json()), "data", object.data.mutable_map(), error))
    return false;
  if (object.kind != "Secret") return true;
  for (auto& [key, value] : object.data.mutable_map()) {
    std::string raw;
    if (!base64_decode(value, raw)) return fail(error, "data." + key, "illegal base64 data");
    value = raw;
  }
  return decode_string_map(body.value("stringData", Json()), "stringData",
                           object.data.mutable_map(), error);
}

}  // namespace

bool decode_object(const Json& body, const Resource& resource, kube::Object& out,
                   std::string& error) {
  if (!body.is_object()) return fail(error, "body", "must be a JSON object");
  const Json kind = body.value("kind", Json());
  if (!kind.is_null() && kind != resource.kind) {
    return fail(error, "kind", "must be " + resource.kind + ", got " + kind.dump());
  }
  const Json api_version = body.value("apiVersion", Json());
  if (!api_version.is_null() && api_version != resource.api_version()) {
    return fail(error, "apiVersion",
                "must be " + resource.api_version() + ", got " + api_version.dump());
  }
  out = Object{};
  out.kind = resource.kind;
  if (!decode_metadata(body.value("metadata", Json()), resource, out.meta, error)) return false;
  if (resource.kind == "ConfigMap" || resource.kind == "Secret")
    return decode_data(body, out, error);
  if (resource.top_level) {
    const Json core = is_events_group(resource) ? event_to_core(body) : body;
    flatten(core, "", out.spec, {"apiVersion", "kind", "metadata"});
    return true;
  }
  return decode_spec(body.value("spec", Json()), out, error) &&
         decode_status(body.value("status", Json()), out, error);
}

int http_code(kube::Code code) {
  switch (code) {
    case kube::Code::kOk:
      return 200;
    case kube::Code::kNotFound:
      return 404;
    case kube::Code::kAlreadyExists:
      return 409;
    case kube::Code::kConflict:
      return 409;
    case kube::Code::kForbidden:
      return 403;
    case kube::Code::kInvalid:
      return 422;
    case kube::Code::kGone:
      return 410;
    case kube::Code::kTooManyRequests:
      return 429;
    case kube::Code::kInternalError:
      return 500;
    case kube::Code::kServiceUnavailable:
      return 503;
    case kube::Code::kTimeout:
      return 504;
  }
  return 500;
}

const char* status_reason(kube::Code code) {
  switch (code) {
    case kube::Code::kOk:
      return "";
    case kube::Code::kGone:
      return "Expired";
    case kube::Code::kTooManyRequests:
      return "TooManyRequests";
    case kube::Code::kInternalError:
      return "InternalError";
    default:
      return kube::code_name(code);
  }
}

Json status_document(int code, const std::string& reason, const std::string& message,
                     const std::string& group, const std::string& kind_plural,
                     const std::string& name) {
  Json doc = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", Json::object()},
              {"status", "Failure"}, {"message", message}, {"reason", reason},
              {"code", code}};
  if (!kind_plural.empty() || !name.empty()) {
    doc["details"] = {{"name", name}, {"group", group}, {"kind", kind_plural}};
  }
  return doc;
}

Json status_document(const kube::Status& status, const Resource* resource,
                     const std::string& name) {
  return status_document(http_code(status.code), status_reason(status.code), status.message,
                         resource ? resource->group : "", resource ? resource->plural : "", name);
}

}  // namespace wsim::serve
