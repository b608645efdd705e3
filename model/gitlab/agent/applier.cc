// agentk's Apply (docs/systems/gitlab.md §5.6; agent k8s/client.go@9743dcf6 Apply): the config
// grouped by inventory and one cli-utils applier per group. The contract is in applier.h.
#include "model/gitlab/agent/applier.h"

#include "model/gitlab/agent/k8s_ops.h"
#include "model/gitlab/names.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {

Grouping group_config(const std::vector<kube::Object>& config) {
  Grouping grouping;
  kube::Result<std::vector<InventoryGroup>> grouped = kube::group_by_inventory(config);
  if (!grouped.ok()) {
    grouping.errors.push_back(render_status(grouped.status));
    return grouping;
  }
  grouping.groups = std::move(grouped.value);
  WSIM_ASSERT(!grouping.groups.empty());
  return grouping;
}

Task<std::vector<std::string>> apply_group(kube::Client& client, InventoryGroup group) {
  // group_config's groups, or an inventory Rails sent (the A3 destroy path): a named ConfigMap.
  WSIM_ASSERT_EQ(group.inventory.kind, std::string("ConfigMap"));
  WSIM_ASSERT(!group.inventory.meta.name.empty());
  std::string field_manager(kFieldManager);
  const kube::InventoryApplyResult result = co_await kube::apply_inventory_group(
      client, std::move(group.inventory), std::move(group.objects), std::move(field_manager));
  std::vector<std::string> errors = result.errors;
  if (!result.inventory_status.ok()) {
    errors.insert(errors.begin(), "inventory: " + render_status(result.inventory_status));
  }
  co_return errors;
}

}  // namespace wsim::gitlab
