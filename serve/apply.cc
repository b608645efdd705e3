// Field ownership (apply.h): the FieldsV1 sets of a document, managedFields entries, server-side
// apply with its conflicts (the 409 and its causes), force and prune, and the Update entries of
// ordinary writes. The rules and their upstream (structured-merge-diff, fieldmanager) are in
// apply.h.
#include "serve/apply.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "serve/patch.h"

namespace wsim::serve {
namespace {

using Json = nlohmann::json;
using Path = std::vector<std::string>;  // FieldsV1 members: "f:spec", "k:{...}", "v:...".
using FieldSet = std::set<Path>;

// The list strategy of the list at `path` (names of the fields only).
ListStrategy strategy_at(const std::string& kind, const Path& path) {
  std::vector<std::string> names;
  for (const std::string& member : path) {
    if (member.rfind("f:", 0) == 0) names.push_back(member.substr(2));
  }
  return list_strategy(kind, names);
}

std::string key_member(const Json& element, const std::string& key) {
  return "k:" + Json{{key, element[key]}}.dump();
}

// Leaves of `node` (and keyed list elements themselves) as paths below `prefix`.
void collect(const std::string& kind, const Json& node, Path& prefix, FieldSet& out) {
  if (node.is_object() && !node.empty()) {
    for (const auto& [key, value] : node.items()) {
      prefix.push_back("f:" + key);
      collect(kind, value, prefix, out);
      prefix.pop_back();
    }
    return;
  }
  if (node.is_array() && !node.empty()) {
    const ListStrategy strategy = strategy_at(kind, prefix);
    if (strategy.merge) {
      for (const Json& element : node) {
        if (strategy.key.empty()) {
          prefix.push_back("v:" + element.dump());
          out.insert(prefix);
        } else if (element.is_object() && element.contains(strategy.key)) {
          prefix.push_back(key_member(element, strategy.key));
          out.insert(prefix);
          collect(kind, element, prefix, out);
        } else {
          continue;
        }
        prefix.pop_back();
      }
      return;
    }
  }
  out.insert(prefix);  // A scalar, an empty map or list, or an atomic list.
}

// The fields of an object that can be owned: everything but apiVersion, kind, status and the
// metadata the server owns (labels, annotations, finalizers and ownerReferences count).
FieldSet fields_of(const std::string& kind, const Json& object) {
  FieldSet out;
  Path prefix;
  for (const auto& [key, value] : object.items()) {
    if (key == "apiVersion" || key == "kind" || key == "status") continue;
    if (key == "metadata") {
      if (!value.is_object()) continue;
      for (const char* owned : {"labels", "annotations", "finalizers", "ownerReferences"}) {
        if (!value.contains(owned)) continue;
        prefix = {"f:metadata", std::string("f:") + owned};
        collect(kind, value[owned], prefix, out);
      }
      continue;
    }
    prefix = {"f:" + key};
    collect(kind, value, prefix, out);
  }
  return out;
}

// The value at `path` in `node`, or null when absent. A "v:" member is its value when present.
const Json* find_at(const Json& node, const Path& path, std::size_t i = 0) {
  if (i == path.size()) return &node;
  const std::string& member = path[i];
  const std::string body = member.substr(2);
  if (member.rfind("f:", 0) == 0) {
    if (!node.is_object() || !node.contains(body)) return nullptr;
    return find_at(node[body], path, i + 1);
  }
  if (!node.is_array()) return nullptr;
  const Json wanted = Json::parse(body, nullptr, false);
  for (const Json& element : node) {
    if (member[0] == 'v' && element == wanted) return find_at(element, path, i + 1);
    if (member[0] == 'k' && wanted.is_object() && element.is_object()) {
      bool match = true;
      for (const auto& [k, v] : wanted.items()) match = match && element.value(k, Json()) == v;
      if (match) return find_at(element, path, i + 1);
    }
  }
  return nullptr;
}

void erase_at(Json& node, const Path& path, std::size_t i = 0) {
  if (i + 1 > path.size()) return;
  const std::string& member = path[i];
  const std::string body = member.substr(2);
  const bool last = i + 1 == path.size();
  if (member.rfind("f:", 0) == 0) {
    if (!node.is_object() || !node.contains(body)) return;
    if (last) {
      node.erase(body);
    } else {
      erase_at(node[body], path, i + 1);
    }
    return;
  }
  if (!node.is_array()) return;
  const Json wanted = Json::parse(body, nullptr, false);
  for (auto it = node.begin(); it != node.end(); ++it) {
    bool match = member[0] == 'v' && *it == wanted;
    if (member[0] == 'k' && wanted.is_object() && it->is_object()) {
      match = true;
      for (const auto& [k, v] : wanted.items()) match = match && it->value(k, Json()) == v;
    }
    if (!match) continue;
    if (last) {
      node.erase(it);
    } else {
      erase_at(*it, path, i + 1);
    }
    return;
  }
}

// FieldsV1 <-> FieldSet.
Json to_fields_v1(const FieldSet& set) {
  Json out = Json::object();
  for (const Path& path : set) {
    Json* node = &out;
    for (const std::string& member : path) node = &(*node)[member];
    if (path.back().rfind("k:", 0) == 0) {
      (*node)["."] = Json::object();
    } else if (node->is_null()) {
      *node = Json::object();
    }
  }
  return out;
}

void from_fields_v1(const Json& node, Path& prefix, FieldSet& out) {
  if (!node.is_object()) return;
  if (node.empty() && !prefix.empty()) out.insert(prefix);
  for (const auto& [member, child] : node.items()) {
    if (member == ".") {
      out.insert(prefix);
      continue;
    }
    prefix.push_back(member);
    from_fields_v1(child, prefix, out);
    prefix.pop_back();
  }
}

struct Entry {
  std::string manager;
  std::string operation;  // "Apply" / "Update".
  std::string api_version;
  std::string time;
  std::string subresource;
  FieldSet fields;
};

std::vector<Entry> entries_of(const Json& object) {
  std::vector<Entry> out;
  const Json meta = object.value("metadata", Json::object());
  const Json list = meta.is_object() ? meta.value("managedFields", Json::array()) : Json::array();
  if (!list.is_array()) return out;
  for (const Json& e : list) {
    if (!e.is_object()) continue;
    Entry entry;
    entry.manager = e.value("manager", "");
    entry.operation = e.value("operation", "Update");
    entry.api_version = e.value("apiVersion", "");
    entry.time = e.value("time", "");
    entry.subresource = e.value("subresource", "");
    Path prefix;
    from_fields_v1(e.value("fieldsV1", Json::object()), prefix, entry.fields);
    out.push_back(std::move(entry));
  }
  return out;
}

void write_entries(const std::vector<Entry>& entries, Json& object) {
  Json list = Json::array();
  for (const Entry& e : entries) {
    if (e.fields.empty()) continue;
    Json j = {{"manager", e.manager},        {"operation", e.operation},
              {"apiVersion", e.api_version}, {"time", e.time},
              {"fieldsType", "FieldsV1"},    {"fieldsV1", to_fields_v1(e.fields)}};
    if (!e.subresource.empty()) j["subresource"] = e.subresource;
    list.push_back(j);
  }
  if (list.empty()) {
    object["metadata"].erase("managedFields");
  } else {
    object["metadata"]["managedFields"] = list;
  }
}

Entry& entry_for(std::vector<Entry>& entries, const FieldManagerInput& in,
                 const std::string& operation) {
  for (Entry& e : entries) {
    if (e.manager == in.manager && e.operation == operation && e.subresource.empty()) return e;
  }
  entries.push_back(Entry{in.manager, operation, in.api_version, in.time, "", {}});
  return entries.back();
}

// fieldpath.Path's String(): ".spec.replicas", ".spec.containers[name=\"a\"].image".
std::string path_string(const Path& path) {
  std::string out;
  for (const std::string& member : path) {
    const std::string body = member.substr(2);
    if (member[0] == 'f') {
      out += "." + body;
    } else if (member[0] == 'v') {
      out += "[=" + body + "]";
    } else {
      const Json key = Json::parse(body, nullptr, false);
      std::string inner;
      for (const auto& [k, v] : key.items())
        inner += (inner.empty() ? "" : ",") + k + "=" + v.dump();
      out += "[" + inner + "]";
    }
  }
  return out;
}

// printManager: an Update manager shows its apiVersion and time.
std::string print_manager(const Entry& e) {
  std::string out = Json(e.manager).dump();
  if (!e.subresource.empty()) out += " with subresource " + Json(e.subresource).dump();
  if (e.operation == "Update") {
    out += " using " + e.api_version;
    if (!e.time.empty()) out += " at " + e.time;
  }
  return out;
}

std::string conflict_message(const std::vector<std::pair<std::string, Path>>& conflicts) {
  if (conflicts.size() == 1) {
    return "Apply failed with 1 conflict: conflict with " + conflicts[0].first + ": " +
           path_string(conflicts[0].second);
  }
  std::map<std::string, std::vector<std::string>> by_manager;  // Sorted by manager.
  for (const auto& [manager, path] : conflicts) by_manager[manager].push_back(path_string(path));
  std::string lines;
  for (const auto& [manager, paths] : by_manager) {
    lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ") + manager;
    for (const std::string& p : paths) lines += "\n- " + p;
  }
  return "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
}

Json without_managed_fields(const Json& object) {
  Json out = object;
  if (out.contains("metadata") && out["metadata"].is_object()) {
    out["metadata"].erase("managedFields");
  }
  return out;
}

}  // namespace

bool server_side_apply(const FieldManagerInput& in, const Json* live, const Json& config,
                       bool force, Json& out, ApplyConflict& conflict, std::string& error) {
  if (!config.is_object()) {
    error = "body: the applied configuration must be an object";
    return false;
  }
  const Json applied_config = without_managed_fields(config);
  const FieldSet applied = fields_of(in.kind, applied_config);
  if (live == nullptr) {
    out = applied_config;
    out.erase("status");
    std::vector<Entry> entries;
    entry_for(entries, in, "Apply").fields = applied;
    write_entries(entries, out);
    return true;
  }
  std::vector<Entry> entries = entries_of(*live);
  // Conflicts: a field another manager owns that the config sets to a different value.
  std::vector<std::pair<std::string, Path>> conflicts;
  for (Entry& e : entries) {
    if (e.manager == in.manager && e.operation == "Apply") continue;
    for (const Path& path : applied) {
      if (!e.fields.count(path)) continue;
      const Json* want = find_at(applied_config, path);
      const Json* have = find_at(*live, path);
      if (want != nullptr && have != nullptr && *want == *have) continue;
      if (force) continue;
      conflicts.emplace_back(print_manager(e), path);
    }
  }
  if (!conflicts.empty()) {
    conflict.message = conflict_message(conflicts);
    for (const auto& [manager, path] : conflicts) {
      conflict.causes.push_back({{"reason", "FieldManagerConflict"},
                                 {"message", "conflict with " + manager},
                                 {"field", path_string(path)}});
    }
    return false;
  }
  // Merge the config into the live object (lists by their merge keys).
  out = without_managed_fields(*live);
  Json patch = applied_config;
  if (!strategic_merge(in.kind, patch, out, error)) return false;
  Entry& mine = entry_for(entries, in, "Apply");
  const FieldSet previous = mine.fields;
  mine.fields = applied;
  mine.time = in.time;
  mine.api_version = in.api_version;
  for (Entry& e : entries) {
    if (&e == &mine) continue;
    for (const Path& path : applied) {
      const Json* want = find_at(applied_config, path);
      const Json* have = find_at(*live, path);
      if (want == nullptr || have == nullptr || *want != *have) e.fields.erase(path);
    }
  }
  // Fields the manager applied before and no longer does, owned by nobody else, go.
  for (const Path& path : previous) {
    if (applied.count(path)) continue;
    bool owned = false;
    for (const Entry& e : entries) owned = owned || (&e != &mine && e.fields.count(path));
    if (!owned) erase_at(out, path);
  }
  write_entries(entries, out);
  return true;
}

void track_update(const FieldManagerInput& in, const Json* before, Json& after) {
  std::vector<Entry> entries = before ? entries_of(*before) : entries_of(after);
  const Json new_object = without_managed_fields(after);
  const FieldSet now = fields_of(in.kind, new_object);
  FieldSet changed;
  for (const Path& path : now) {
    const Json* old = before ? find_at(*before, path) : nullptr;
    const Json* value = find_at(new_object, path);
    if (old == nullptr || value == nullptr || *old != *value) changed.insert(path);
  }
  for (Entry& e : entries) {
    for (auto it = e.fields.begin(); it != e.fields.end();) {
      it = (changed.count(*it) || !now.count(*it)) ? e.fields.erase(it) : std::next(it);
    }
  }
  if (!changed.empty()) {
    Entry& mine = entry_for(entries, in, "Update");
    mine.fields.insert(changed.begin(), changed.end());
    mine.time = in.time;
    mine.api_version = in.api_version;
  }
  write_entries(entries, after);
}

}  // namespace wsim::serve
