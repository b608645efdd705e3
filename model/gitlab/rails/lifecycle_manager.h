// Step 7 of the R2/R3 pipeline: WorkspacesLifecycleManager (docs/systems/gitlab.md §4.2,
// R2 `persistence/workspaces_lifecycle_manager.rb` @ ed88fc037fb7, R3 same file).
//
// For each row updated in step 5 (skipped when desired is already Terminated), in this order:
//   terminate if created_at + max_hours_before_termination is past; else stop if desired ≠ Stopped
//   and desired_state_updated_at + max_active_hours_before_stop is past; else terminate if desired
//   = Stopped and the time since desired_state_updated_at exceeds
//   max_stopped_hours_before_termination. Each change is an `update!` (bumps the timestamp).
// With the default limits (hours to days) a two-hour run never triggers it; scenarios may lower
// them. R0/R1 have the created_at rule inside the updater instead (agent_infos_updater.h).
#pragma once

#include <cstdint>
#include <vector>

#include "model/gitlab/rails/workspaces_table.h"

namespace wsim::gitlab {

struct LifecycleLimits {
  std::int64_t max_hours_before_termination = 120;  // [modelling choice] not read in R3 settings
  std::int64_t max_active_hours_before_stop = 36;   // R3 DefaultSettings [read]
  std::int64_t max_stopped_hours_before_termination = 744;  // R3 DefaultSettings [read]
};

// REQUIRES: table version R2+. Returns how many rows were changed.
int manage_workspace_lifecycles(WorkspacesTable& table, const std::vector<std::int64_t>& ids,
                                const LifecycleLimits& limits, TimeMs now_ms);

}  // namespace wsim::gitlab
