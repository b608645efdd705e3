// cli-utils inventories (inventory.h): inventory data keys, grouping objects by owning inventory
// and the applier that applies a group and prunes what it no longer lists.
#include "sim/kube/inventory.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "sim/core/assert.h"
#include "sim/kube/kinds.h"

namespace wsim::kube {

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  WSIM_ASSERT(!from.empty());  // Else the loop below never ends.
  std::size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) {
    text.replace(pos, from.size(), to);
    pos += to.size();
  }
  return text;
}

std::string error_line(const char* verb, const ObjectRef& ref, const Status& status) {
  WSIM_ASSERT(verb != nullptr);
  WSIM_ASSERT(!status.ok());  // An error line reports an error.
  return std::string(verb) + " " + ref.to_string() + ": " + code_name(status.code) + ": " +
         status.message;
}

}  // namespace

std::string api_group(const std::string& kind) {
  WSIM_ASSERT(!kind.empty());
  const KindInfo* info = find_kind(kind);
  if (info == nullptr) return "";
  if (info->custom) WSIM_ASSERT_MSG(!info->group.empty(), "a custom kind is in a named API group");
  return info->group;
}

std::string inventory_key(const ObjectRef& ref) {
  // namespace_name_group_kind, each ':' of the name written "__", built in one buffer
  // (docs/performance.md §13.3).
  const std::string group = api_group(ref.kind);
  std::string key;
  key.reserve(ref.namespace_.size() + 2 * ref.name.size() + group.size() + ref.kind.size() + 3);
  key += ref.namespace_;
  key += '_';
  key += replace_all(ref.name, ":", "__");
  key += '_';
  key += group;
  key += '_';
  key += ref.kind;
  // Paired with parse_inventory_key: a key names the object it was made from.
  if (!ref.name.empty()) {
    const std::optional<InventoryKey> parsed = parse_inventory_key(key);
    WSIM_ASSERT(parsed.has_value());
    WSIM_ASSERT(parsed->ref == ref);
  }
  return key;
}

std::optional<InventoryKey> parse_inventory_key(const std::string& key) {
  // cli-utils' ParseObjMetadata: namespace is the first field, kind the last, group the one
  // before it; everything in between is the name (with "__" standing for ":").
  const std::size_t first = key.find('_');
  const std::size_t last = key.rfind('_');
  if (first == std::string::npos || last == first) return std::nullopt;
  const std::size_t group_start = key.rfind('_', last - 1);
  if (group_start == std::string::npos || group_start <= first) return std::nullopt;
  InventoryKey out;
  out.ref.namespace_ = key.substr(0, first);
  out.ref.kind = key.substr(last + 1);
  out.group = key.substr(group_start + 1, last - group_start - 1);
  std::string name = key.substr(first + 1, group_start - first - 1);
  out.ref.name = replace_all(std::move(name), "__", ":");
  if (out.ref.kind.empty() || out.ref.name.empty()) return std::nullopt;
  WSIM_ASSERT_LT(first, group_start);  // namespace _ name _ group _ kind, in that order.
  WSIM_ASSERT_LT(group_start, last);
  return out;
}

std::vector<ObjectRef> inventory_object_refs(const Object& inventory) {
  std::vector<ObjectRef> refs;
  for (const auto& [key, value] : inventory.data) {
    if (auto parsed = parse_inventory_key(key)) refs.push_back(std::move(parsed->ref));
  }
  WSIM_ASSERT_LE(refs.size(), inventory.data.size());
  return refs;
}

bool is_inventory(const Object& object) {
  WSIM_ASSERT(!object.kind.empty());
  return object.kind == "ConfigMap" && object.meta.labels.count(kInventoryIdLabel) != 0;
}

Result<std::vector<InventoryGroup>> group_by_inventory(std::vector<Object> objects) {
  Result<std::vector<InventoryGroup>> result;
  std::map<std::string, InventoryGroup> by_name;
  for (const Object& object : objects) {
    if (is_inventory(object)) by_name[object.meta.name] = InventoryGroup{object, {}};
  }
  if (by_name.empty()) {
    result.status = Status::Error(Code::kInvalid, "no inventory found");
    return result;
  }
  for (Object& object : objects) {
    if (is_inventory(object)) continue;
    auto annotation = object.meta.annotations.find(kOwningInventoryAnnotation);
    if (annotation == object.meta.annotations.end()) {
      result.status = Status::Error(Code::kInvalid, "no owning inventory found");
      return result;
    }
    auto group = by_name.find(annotation->second);
    if (group == by_name.end()) {
      result.status = Status::Error(
          Code::kInvalid, "owning inventory \"" + annotation->second + "\" of " +
                              ObjectRef::of(object).to_string() +
                              " is not in the config (agentk indexes a nil map entry here and "
                              "panics)");
      return result;
    }
    group->second.objects.push_back(std::move(object));
  }
  for (auto& [name, group] : by_name) {
    WSIM_ASSERT(is_inventory(group.inventory));
    result.value.push_back(std::move(group));
  }
  return result;
}

namespace {

struct ApplyArgs {
  Object inventory_configmap;
  std::vector<Object> objects;
  std::string field_manager;
};

// The applier coroutine; its arguments live in one shared block.
Task<InventoryApplyResult> run_applier(Client* client_ptr, std::shared_ptr<ApplyArgs> args) {
  WSIM_ASSERT(client_ptr != nullptr);
  WSIM_ASSERT(args != nullptr);
  Client& client = *client_ptr;
  Object& inventory_configmap = args->inventory_configmap;
  std::vector<Object>& objects = args->objects;
  const std::string& field_manager = args->field_manager;
  InventoryApplyResult result;
  const ObjectRef inventory_ref = ObjectRef::of(inventory_configmap);
  const std::string inventory_id = [&] {
    auto it = inventory_configmap.meta.labels.find(kInventoryIdLabel);
    return it == inventory_configmap.meta.labels.end() ? inventory_configmap.meta.name : it->second;
  }();

  // 1. The previous object set.
  std::set<std::string> previous;
  {
    Result<Object> live = co_await client.get(inventory_ref);
    if (live.ok()) {
      for (const auto& [key, value] : live.value.data) previous.insert(key);
    } else if (!live.status.is(Code::kNotFound)) {
      result.inventory_status = live.status;
      co_return result;
    }
  }

  // 2. Record the new objects in the inventory before touching them.
  std::vector<std::string> keys;
  keys.reserve(objects.size());
  {
    Object inventory = inventory_configmap;
    inventory.data.clear();
    for (const Object& object : objects) {
      keys.push_back(inventory_key(ObjectRef::of(object)));
      inventory.data[keys.back()] = "";
    }
    Result<Object> applied = co_await client.apply(std::move(inventory), field_manager);
    if (!applied.ok()) {
      result.inventory_status = applied.status;
      co_return result;
    }
  }

  // 3. Apply every object.
  std::set<std::string> keep;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    Object& object = objects[i];
    const ObjectRef ref = ObjectRef::of(object);
    Result<Object> live = co_await client.get(ref);
    if (!live.ok() && !live.status.is(Code::kNotFound)) {
      result.errors.push_back(error_line("get", ref, live.status));
      if (previous.count(keys[i])) keep.insert(keys[i]);
      continue;
    }
    if (live.ok()) {
      // InventoryPolicyMustMatch.
      auto owner = live.value.meta.annotations.find(kOwningInventoryAnnotation);
      std::string why;
      if (owner == live.value.meta.annotations.end()) {
        why = std::string("can't adopt an object without the annotation ") +
              kOwningInventoryAnnotation;
      } else if (owner->second != inventory_id) {
        why = std::string("can't apply the resource since its annotation ") +
              kOwningInventoryAnnotation + " is a different inventory object";
      }
      if (!why.empty()) {
        result.errors.push_back("apply " + ref.to_string() +
                                ": inventory policy prevented actuation (strategy: apply): " + why);
        if (previous.count(keys[i])) keep.insert(keys[i]);
        continue;
      }
    }
    object.meta.annotations[kOwningInventoryAnnotation] = inventory_id;
    // The object is not read again: moved, not copied, into the request.
    Result<Object> applied = co_await client.apply(std::move(object), field_manager);
    if (applied.ok()) {
      result.applied.push_back(ref);
      keep.insert(keys[i]);
    } else {
      result.errors.push_back(error_line("apply", ref, applied.status));
      if (previous.count(keys[i])) keep.insert(keys[i]);
    }
  }

  // 4. Prune what the previous set had and this one has not.
  const std::set<std::string> wanted(keys.begin(), keys.end());
  for (const std::string& key : previous) {
    if (wanted.count(key)) continue;
    auto parsed = parse_inventory_key(key);
    if (!parsed) continue;  // Not an object key: dropped from the inventory.
    const ObjectRef& ref = parsed->ref;
    Result<Object> live = co_await client.get(ref);
    if (live.status.is(Code::kNotFound)) {
      result.pruned.push_back(ref);
      continue;
    }
    if (!live.ok()) {
      result.errors.push_back(error_line("get", ref, live.status));
      keep.insert(key);
      continue;
    }
    auto owner = live.value.meta.annotations.find(kOwningInventoryAnnotation);
    if (owner == live.value.meta.annotations.end() || owner->second != inventory_id) {
      continue;  // Not ours (any more): prune skipped, forgotten by this inventory.
    }
    DeleteOptions options;
    options.precondition_uid = live.value.meta.uid;
    Status deleted = co_await client.remove(ref, options);
    if (deleted.ok() || deleted.is(Code::kNotFound)) {
      result.pruned.push_back(ref);
    } else {
      result.errors.push_back(error_line("delete", ref, deleted));
      keep.insert(key);
    }
  }

  // 5. The inventory now lists exactly `keep`.
  MergePatch patch;
  for (const std::string& key : previous) {
    if (!keep.count(key)) patch.data[key] = std::nullopt;
  }
  for (const std::string& key : wanted) {
    if (!keep.count(key)) patch.data[key] = std::nullopt;
  }
  for (const std::string& key : keep) patch.data[key] = std::string();
  Result<Object> written = co_await client.patch(inventory_ref, std::move(patch));
  if (!written.ok()) result.inventory_status = written.status;
  // Every object was applied or reported (cli-utils collects errors, never stops at one).
  WSIM_ASSERT_LE(result.applied.size(), objects.size());
  co_return result;
}

}  // namespace

Task<InventoryApplyResult> apply_inventory_group(Client& client, Object inventory_configmap,
                                                 std::vector<Object> objects,
                                                 std::string field_manager) {
  WSIM_ASSERT(!field_manager.empty());  // Server-side apply needs a field manager.
  WSIM_ASSERT(is_inventory(inventory_configmap));
  auto args = std::make_shared<ApplyArgs>(
      ApplyArgs{std::move(inventory_configmap), std::move(objects), std::move(field_manager)});
  return run_applier(&client, std::move(args));
}

}  // namespace wsim::kube
