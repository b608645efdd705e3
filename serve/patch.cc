// Strategic merge patch (patch.h): merge keys and strategies of the built-in kinds, the `$patch`,
// `$retainKeys`, `$setElementOrder/` and `$deleteFromPrimitiveList/` directives, null as delete.
// Rules restated from apimachinery strategicpatch@v0.32.0 (cited in patch.h); errors name the
// field.
#include "serve/patch.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace wsim::serve {
namespace {

using Json = nlohmann::json;

const char kSetOrder[] = "$setElementOrder/";
const char kDeleteFrom[] = "$deleteFromPrimitiveList/";

bool fail(std::string& error, const std::vector<std::string>& path, const std::string& what) {
  std::string field;
  for (const std::string& part : path) field += (field.empty() ? "" : ".") + part;
  error = (field.empty() ? "patch" : field) + ": " + what;
  return false;
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

bool has(const std::vector<std::string>& path, const char* field) {
  return std::find(path.begin(), path.end(), field) != path.end();
}

// A patch value without directives (what a field absent from the target becomes).
Json strip(const Json& value) {
  if (value.is_object()) {
    Json out = Json::object();
    for (const auto& [key, v] : value.items()) {
      if (!key.empty() && key[0] == '$') continue;
      if (v.is_null()) continue;
      out[key] = strip(v);
    }
    return out;
  }
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& v : value) {
      if (v.is_object() && v.value("$patch", "") == "delete") continue;
      out.push_back(strip(v));
    }
    return out;
  }
  return value;
}

bool merge_map(const std::string& kind, const Json& patch, Json& target,
               std::vector<std::string>& path, std::string& error);

bool same_key(const Json& a, const Json& b, const std::string& key) {
  return a.is_object() && b.is_object() && a.contains(key) && b.contains(key) && a[key] == b[key];
}

bool merge_keyed_list(const std::string& kind, const Json& patch, Json& target,
                      const std::string& key, std::vector<std::string>& path, std::string& error) {
  for (const Json& element : patch) {
    if (element.is_object() && element.value("$patch", "") == "replace") {
      Json rest = Json::array();
      for (const Json& e : patch) {
        if (&e != &element) rest.push_back(strip(e));
      }
      target = rest;
      return true;
    }
  }
  for (const Json& element : patch) {
    if (!element.is_object() || !element.contains(key)) {
      return fail(error, path, "the list merges by \"" + key + "\": every element needs it");
    }
    auto match = std::find_if(target.begin(), target.end(),
                              [&](const Json& t) { return same_key(t, element, key); });
    if (element.value("$patch", "") == "delete") {
      target.erase(std::remove_if(target.begin(), target.end(),
                                  [&](const Json& t) { return same_key(t, element, key); }),
                   target.end());
      continue;
    }
    if (match == target.end()) {
      target.push_back(strip(element));
    } else if (!merge_map(kind, element, *match, path, error)) {
      return false;
    }
  }
  return true;
}

bool merge_list(const std::string& kind, const Json& patch, Json& target,
                std::vector<std::string>& path, std::string& error) {
  const ListStrategy strategy = list_strategy(kind, path);
  if (!strategy.merge || !target.is_array()) {
    target = strip(patch);
    return true;
  }
  if (strategy.key.empty()) {  // A set of primitives.
    for (const Json& value : patch) {
      if (std::find(target.begin(), target.end(), value) == target.end()) target.push_back(value);
    }
    return true;
  }
  return merge_keyed_list(kind, patch, target, strategy.key, path, error);
}

// $setElementOrder/<list>: the merged list in the order given (elements not named keep their
// place after the named ones).
void set_order(const std::string& kind, const Json& order, Json& list,
               std::vector<std::string>& path) {
  if (!order.is_array() || !list.is_array()) return;
  const ListStrategy strategy = list_strategy(kind, path);
  Json sorted = Json::array();
  std::vector<bool> used(list.size(), false);
  for (const Json& wanted : order) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const bool match =
          strategy.key.empty() ? list[i] == wanted : same_key(list[i], wanted, strategy.key);
      if (!used[i] && match) {
        sorted.push_back(list[i]);
        used[i] = true;
        break;
      }
    }
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!used[i]) sorted.push_back(list[i]);
  }
  list = sorted;
}

bool merge_field(const std::string& kind, const std::string& key, const Json& value, Json& target,
                 std::vector<std::string>& path, std::string& error) {
  if (value.is_null()) {
    target.erase(key);
    return true;
  }
  path.push_back(key);
  bool ok = true;
  if (!target.contains(key) || target[key].is_null()) {
    target[key] = strip(value);
  } else if (value.is_object() && target[key].is_object()) {
    ok = merge_map(kind, value, target[key], path, error);
  } else if (value.is_array()) {
    ok = merge_list(kind, value, target[key], path, error);
  } else {
    target[key] = strip(value);
  }
  path.pop_back();
  return ok;
}

bool merge_map(const std::string& kind, const Json& patch, Json& target,
               std::vector<std::string>& path, std::string& error) {
  if (!patch.is_object()) return fail(error, path, "must be an object");
  const std::string directive = patch.value("$patch", "");
  if (directive == "replace") {
    target = strip(patch);
    return true;
  }
  if (directive == "delete") {
    target = Json::object();
    return true;
  }
  if (!directive.empty() && directive != "merge") {
    return fail(error, path, "unknown $patch directive \"" + directive + "\"");
  }
  if (!target.is_object()) target = Json::object();
  for (const auto& [key, value] : patch.items()) {
    if (starts_with(key, kDeleteFrom)) {
      const std::string field = key.substr(std::strlen(kDeleteFrom));
      if (target.contains(field) && target[field].is_array() && value.is_array()) {
        Json& list = target[field];
        const Json& removed = value;  // clang 14 cannot capture a structured binding.
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [&](const Json& v) {
                                    return std::find(removed.begin(), removed.end(), v) !=
                                           removed.end();
                                  }),
                   list.end());
      }
      continue;
    }
    if (!key.empty() && key[0] == '$') continue;
    if (!merge_field(kind, key, value, target, path, error)) return false;
  }
  for (const auto& [key, value] : patch.items()) {
    if (!starts_with(key, kSetOrder)) continue;
    const std::string field = key.substr(std::strlen(kSetOrder));
    if (!target.contains(field)) continue;
    path.push_back(field);
    set_order(kind, value, target[field], path);
    path.pop_back();
  }
  if (patch.contains("$retainKeys")) {
    const Json& keep = patch["$retainKeys"];
    if (!keep.is_array()) return fail(error, path, "$retainKeys must be a list");
    for (auto it = target.begin(); it != target.end();) {
      if (std::find(keep.begin(), keep.end(), it.key()) == keep.end()) {
        it = target.erase(it);
      } else {
        ++it;
      }
    }
  }
  return true;
}

bool is_custom_kind(const std::string& kind) {
  static const std::set<std::string> built_in = {"Namespace",
                                                 "Node",
                                                 "Pod",
                                                 "ConfigMap",
                                                 "Secret",
                                                 "Service",
                                                 "PersistentVolumeClaim",
                                                 "Event",
                                                 "Deployment",
                                                 "ReplicaSet",
                                                 "Lease",
                                                 "NetworkPolicy",
                                                 "CustomResourceDefinition"};
  return built_in.count(kind) == 0;
}

}  // namespace

ListStrategy list_strategy(const std::string& kind, const std::vector<std::string>& path) {
  if (path.empty() || is_custom_kind(kind)) return {};
  const std::string& field = path.back();
  const bool in_container =
      has(path, "containers") || has(path, "initContainers") || has(path, "ephemeralContainers");
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" ||
      field == "imagePullSecrets" || field == "resourceClaims") {
    return {true, "name"};
  }
  if (field == "env" && in_container) return {true, "name"};
  if (field == "ports" && in_container) return {true, "containerPort"};
  if (field == "ports" && kind == "Service" && path.size() == 2) return {true, "port"};
  if (field == "volumes") return {true, "name"};
  if (field == "volumeMounts") return {true, "mountPath"};
  if (field == "volumeDevices") return {true, "devicePath"};
  if (field == "hostAliases") return {true, "ip"};
  if (field == "topologySpreadConstraints") return {true, "topologyKey"};
  if (field == "ownerReferences" && path.size() == 2) return {true, "uid"};
  if (field == "finalizers" && path.size() == 2 && path[0] == "metadata") return {true, ""};
  if (field == "conditions" && path.size() == 2 && path[0] == "status") return {true, "type"};
  if (field == "addresses" && kind == "Node") return {true, "type"};
  return {};
}

bool strategic_merge(const std::string& kind, const Json& patch, Json& target, std::string& error) {
  std::vector<std::string> path;
  if (!patch.is_object()) return fail(error, path, "must be a JSON object");
  return merge_map(kind, patch, target, path, error);
}

}  // namespace wsim::serve
