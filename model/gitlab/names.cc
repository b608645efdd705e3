// Names, labels and annotations shared by Rails, agentk and the invariants (names.h;
// docs/systems/gitlab.md §1, §4.5).
#include "model/gitlab/names.h"

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

constexpr std::string_view kWorkspaceInventorySuffix = "-workspace-inventory";
constexpr std::string_view kSecretsInventorySuffix = "-secrets-inventory";

std::optional<std::string> strip_suffix(std::string_view name, std::string_view suffix) {
  WSIM_ASSERT(!suffix.empty());
  if (name.size() <= suffix.size()) return std::nullopt;
  if (name.substr(name.size() - suffix.size()) != suffix) return std::nullopt;
  return std::string(name.substr(0, name.size() - suffix.size()));
}

}  // namespace

std::string unique_namespace_for(std::string_view workspace) {
  WSIM_ASSERT(!workspace.empty());
  return "gl-rd-ns-" + std::string(workspace);
}

std::string workspace_inventory_name(std::string_view workspace) {
  WSIM_ASSERT(!workspace.empty());
  return std::string(workspace) + std::string(kWorkspaceInventorySuffix);
}

std::string secrets_inventory_name(std::string_view workspace) {
  WSIM_ASSERT(!workspace.empty());
  return std::string(workspace) + std::string(kSecretsInventorySuffix);
}

std::optional<std::string> workspace_of_inventory(std::string_view inventory_name) {
  if (auto ws = strip_suffix(inventory_name, kWorkspaceInventorySuffix)) {
    WSIM_ASSERT_EQ(workspace_inventory_name(*ws), inventory_name);  // The inverse of the namer.
    return ws;
  }
  std::optional<std::string> ws = strip_suffix(inventory_name, kSecretsInventorySuffix);
  if (ws) WSIM_ASSERT_EQ(secrets_inventory_name(*ws), inventory_name);  // Likewise.
  return ws;
}

}  // namespace wsim::gitlab
