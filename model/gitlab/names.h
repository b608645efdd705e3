// Names, labels and annotations shared by Rails, agentk and the invariants
// (docs/systems/gitlab.md §1, §4.5, §5.7).
//
// Real names are `workspace-<agentId>-<userId>-<rand6>` and `gl-rd-ns-<agentId>-<userId>-<rand6>`
// (§1, R3 CreatorBootstrapper); the simulation uses short readable names: workspace "ws-0" lives
// in namespace "gl-rd-ns-ws-0" (unique mode) or in the shared namespace.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wsim::gitlab {

inline constexpr std::string_view kAgentIdLabel = "agent.gitlab.com/id";
inline constexpr std::string_view kWorkspaceIdLabel = "workspaces.gitlab.com/id";
inline constexpr std::string_view kInventoryIdLabel = "cli-utils.sigs.k8s.io/inventory-id";
inline constexpr std::string_view kOwningInventoryAnnotation = "config.k8s.io/owning-inventory";
inline constexpr std::string_view kIncludeInPartialAnnotation =
    "workspaces.gitlab.com/include-in-partial-reconciliation";
inline constexpr std::string_view kAgentId = "1";
inline constexpr std::string_view kSharedNamespace = "gl-rd-shared";
inline constexpr std::string_view kFieldManager = "agentk";

// "gl-rd-ns-<workspace>".
std::string unique_namespace_for(std::string_view workspace);
// "<workspace>-workspace-inventory" (§4.5).
std::string workspace_inventory_name(std::string_view workspace);
// "<workspace>-secrets-inventory" (R2+, §4.5).
std::string secrets_inventory_name(std::string_view workspace);
// The workspace an inventory ConfigMap name belongs to, if it is one of the two inventories.
std::optional<std::string> workspace_of_inventory(std::string_view inventory_name);

}  // namespace wsim::gitlab
