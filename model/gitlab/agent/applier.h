// agentk's `Apply(config)` (docs/systems/gitlab.md §5.6): group the objects by inventory
// (kube::group_by_inventory: "no inventory found", "no owning inventory found") and run one
// cli-utils applier per group (kube::apply_inventory_group: server-side apply with force,
// StatusPolicyNone, prune of objects no longer listed, §5.7). Errors are collected as the
// strings agentk would stream on its error channel.
#pragma once

#include <string>
#include <vector>

#include "sim/core/task.h"
#include "sim/kube/client.h"
#include "sim/kube/inventory.h"
#include "sim/kube/object.h"

namespace wsim::gitlab {

using kube::InventoryGroup;

struct Grouping {
  std::vector<InventoryGroup> groups;
  std::vector<std::string> errors;  // Non-empty: nothing is applied.
};

Grouping group_config(const std::vector<kube::Object>& config);

// Runs the applier for one group; returns the error messages (empty = success).
Task<std::vector<std::string>> apply_group(kube::Client& client, InventoryGroup group);

}  // namespace wsim::gitlab
