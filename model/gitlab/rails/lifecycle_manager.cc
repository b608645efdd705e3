// Step 7 of the R2/R3 pipeline, WorkspacesLifecycleManager (docs/systems/gitlab.md §4.2;
// R2 persistence/workspaces_lifecycle_manager.rb @ ed88fc037fb7).
#include "model/gitlab/rails/lifecycle_manager.h"

#include <optional>

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

std::optional<State> lifecycle_target(const WorkspaceRow& row, const LifecycleLimits& limits,
                                      TimeMs now_ms) {
  WSIM_ASSERT(row.desired_state != State::kTerminated);  // Terminated is permanent (R2+).
  WSIM_ASSERT_LE(row.created_at, now_ms);
  // Stamped by the same Rails clock (WorkspacesTable::save): the idle times below are not negative.
  WSIM_ASSERT_LE(row.desired_state_updated_at, now_ms);
  if (row.created_at + limits.max_hours_before_termination * kHourMs < now_ms) {
    return State::kTerminated;
  }
  if (row.desired_state != State::kStopped &&
      row.desired_state_updated_at + limits.max_active_hours_before_stop * kHourMs < now_ms) {
    return State::kStopped;
  }
  if (row.desired_state == State::kStopped &&
      now_ms - row.desired_state_updated_at >
          limits.max_stopped_hours_before_termination * kHourMs) {
    return State::kTerminated;
  }
  return std::nullopt;
}

}  // namespace

int manage_workspace_lifecycles(WorkspacesTable& table, const std::vector<std::int64_t>& ids,
                                const LifecycleLimits& limits, TimeMs now_ms) {
  WSIM_ASSERT(table.version() >= RailsVersion::kR2);
  int changed = 0;
  for (std::int64_t id : ids) {
    const WorkspaceRow* stored = table.find_by_id(id);
    WSIM_ASSERT(stored != nullptr);
    if (stored->desired_state == State::kTerminated) continue;
    const std::optional<State> target = lifecycle_target(*stored, limits, now_ms);
    if (!target) continue;
    // A real transition to a state a user could also ask for (§3).
    WSIM_ASSERT(*target != stored->desired_state);
    WSIM_ASSERT(is_valid_desired(*target));
    WorkspaceRow row = *stored;
    row.desired_state = *target;
    const bool saved = table.save(row, now_ms);
    WSIM_ASSERT(saved);
    ++changed;
  }
  WSIM_ASSERT_LE(changed, static_cast<int>(ids.size()));
  return changed;
}

}  // namespace wsim::gitlab
