// Steps 3–5 of the Rails pipeline (docs/systems/gitlab.md §4.1, §4.2): convert the agent infos
// (hash by name, later entries replace earlier ones — A0a can send a name twice, §2.2), then
// update every row named in them. Ports R0 `ReconcileProcessor` / `AgentInfoParser` and R1..R3
// `ParamsToInfosConverter`, `Input::Factory` and `WorkspacesFromAgentInfosUpdater`.
//
// Per row, in id order:
//   1. desired RestartRequested ∧ computed actual Stopped → desired Running;
//   2. R0/R1: created_at + max_hours_before_termination hours < now → desired Terminated;
//   3. actual_state = computed actual (always written, even when equal);
//   4. deployment_resource_version = the info's, only if non-nil (R0: nil whenever the computed
//      state is Terminating / Terminated / Unknown);
//   5. save!.
// Rows not named in any info are not touched: Rails learns about a workspace only through infos
// (the root of the limbo bug, §4.2 "Consequence").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/gitlab/rails/workspaces_table.h"
#include "model/gitlab/versions.h"
#include "model/gitlab/wire.h"

namespace wsim::gitlab {

// ParamsToInfosConverter: the infos keyed by name; a later info with the same name wins.
// The keys and values point into `infos`, which must outlive the map (nothing is copied).
std::map<std::string_view, const WorkspaceAgentInfo*> infos_by_name(
    const std::vector<WorkspaceAgentInfo>& infos);

// Runs the update. Returns the ids of the updated rows (finder rule (b)), in id order.
// Infos naming no row are ignored (OrphanedWorkspacesObserver only logs them).
std::vector<std::int64_t> update_workspaces_from_agent_infos(
    WorkspacesTable& table, const std::vector<WorkspaceAgentInfo>& infos, TimeMs now_ms);

}  // namespace wsim::gitlab
