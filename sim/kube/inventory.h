// cli-utils-style inventories (docs/systems/gitlab.md §5.6, §5.7): what agentk's Apply does
// with the objects Rails sends.
//
// An inventory is a ConfigMap labelled `cli-utils.sigs.k8s.io/inventory-id`; its `data` holds
// one key per applied object, `<namespace>_<name>_<group>_<Kind>` (value ""; ":" in names written
// as "__"). Every other object names its inventory in the annotation
// `config.k8s.io/owning-inventory`. The applier is a coroutine over a Client, so each of its API
// calls is an interleaving point (and may fail, be lost, or race with kubectl).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/task.h"
#include "sim/kube/client.h"
#include "sim/kube/object.h"
#include "sim/kube/status.h"

namespace wsim::kube {

inline constexpr const char* kInventoryIdLabel = "cli-utils.sigs.k8s.io/inventory-id";
inline constexpr const char* kOwningInventoryAnnotation = "config.k8s.io/owning-inventory";

// API group of a kind, from the kind registry (kinds.h): "apps" for Deployment, the declared
// group of a system's custom kind, "" for core kinds and for kinds nobody registered.
std::string api_group(const std::string& kind);

// "<namespace>_<name>_<group>_<Kind>", ":" in the name written as "__".
std::string inventory_key(const ObjectRef& ref);

struct InventoryKey {
  ObjectRef ref;
  std::string group;
};
// Parses an inventory data key; nullopt if it is malformed.
std::optional<InventoryKey> parse_inventory_key(const std::string& key);

// The objects an inventory records (its data keys), in key order; malformed keys are skipped.
std::vector<ObjectRef> inventory_object_refs(const Object& inventory);

// True for a ConfigMap carrying the inventory-id label.
bool is_inventory(const Object& object);

struct InventoryGroup {
  // Not an aggregate (g++ 12 co_await temporaries, see ObjectRef).
  InventoryGroup() = default;
  InventoryGroup(Object inventory_, std::vector<Object> objects_)
      : inventory(std::move(inventory_)), objects(std::move(objects_)) {}
  Object inventory;
  std::vector<Object> objects;  // In input order.
};

// agentk's groupObjectsByInventory: inventories by name (sorted), each with the objects whose
// owning-inventory annotation names it. Errors (Status kInvalid), as agentk returns them:
//   no inventory in `objects`                       → "no inventory found"
//   an object without the owning-inventory annotation → "no owning inventory found"
//   an annotation naming no inventory of `objects`  → message says agentk would panic (it
//     indexes a nil map entry); the model treats it as an error.
Result<std::vector<InventoryGroup>> group_by_inventory(std::vector<Object> objects);

struct InventoryApplyResult {
  Status inventory_status;          // Reading / writing the inventory ConfigMap.
  std::vector<ObjectRef> applied;   // Applied successfully, in input order.
  std::vector<ObjectRef> pruned;    // Deleted (or already gone) because no longer listed.
  std::vector<std::string> errors;  // "<verb> <object>: <Code>: <message>", in order.
  bool ok() const { return inventory_status.ok() && errors.empty(); }
};

// Runs one cli-utils applier over a group (server-side apply, force conflicts,
// InventoryPolicyMustMatch, StatusPolicyNone), in cli-utils' task order:
//  1. get the live inventory (NotFound: none yet) — its data is the previous object set;
//  2. apply the inventory ConfigMap (metadata from the caller) adding the new object keys, so an
//     interrupted run never loses track of what it applied;
//  3. apply each object (get, ownership check, apply); errors are collected, never fatal;
//  4. prune: every object in the previous set and not in `objects` is deleted if the live object
//     is owned by this inventory (NotFound counts as pruned);
//  5. set the inventory data to the objects now applied (plus prune failures and failed applies
//     that were already listed).
// A failure in step 1 or 2 stops the run (inventory_status).
Task<InventoryApplyResult> apply_inventory_group(Client& client, Object inventory_configmap,
                                                 std::vector<Object> objects,
                                                 std::string field_manager);

}  // namespace wsim::kube
