// Step 8, WorkspacesToBeReturnedFinder (docs/systems/gitlab.md §4.4; R1 @ b34b10cbcc58,
// R2 @ 0582d2cdb488, R3 persistence/workspaces_to_be_returned_finder.rb).
#include "model/gitlab/rails/workspaces_finder.h"

#include <algorithm>
#include <functional>

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

bool fully_terminated(const WorkspaceRow& row) {
  return row.desired_state == State::kTerminated && row.actual_state == State::kTerminated;
}

bool returned_in_full(RailsVersion version, const WorkspaceRow& row) {
  WSIM_ASSERT_GT(row.id, 0);
  if (version == RailsVersion::kR0) return true;  // `agent.workspaces.all`
  return !fully_terminated(row);
}

bool returned_in_partial(const WorkspacesTable& table, const WorkspaceRow& row,
                         const std::vector<std::int64_t>& updated_ids) {
  WSIM_ASSERT_GT(row.id, 0);
  const RailsVersion version = table.version();
  const RailsVersion compare = table.desired_compare_version();   // `>` or `>=` for (a).
  if (desired_updated_since_response(compare, row)) return true;  // (a)
  if (std::binary_search(updated_ids.begin(), updated_ids.end(), row.id)) return true;  // (b)
  if (version >= RailsVersion::kR2 && row.force_include_all_resources) return true;     // (c)
  if (actual_updated_since_response(version, row)) return true;                         // (d)
  return version >= RailsVersion::kR3 && row.desired_state == State::kTerminated &&
         row.actual_state != State::kTerminated;  // (e)
}

}  // namespace

bool desired_updated_since_response(RailsVersion version, const WorkspaceRow& row) {
  // before_save stamps desired_state_updated_at on insert and on every change (WorkspacesTable);
  // the Rails clock never goes back (pairs with actual_updated_since_response).
  WSIM_ASSERT_GE(row.desired_state_updated_at, row.created_at);
  if (!row.responded_to_agent_at) return true;
  if (version >= RailsVersion::kR3)
    return row.desired_state_updated_at > *row.responded_to_agent_at;
  return row.desired_state_updated_at >= *row.responded_to_agent_at;
}

bool actual_updated_since_response(RailsVersion version, const WorkspaceRow& row) {
  if (version < RailsVersion::kR3) return false;
  // R3 stamps actual_state_updated_at on insert and on every actual change (WorkspacesTable).
  WSIM_ASSERT_GE(row.actual_state_updated_at, row.created_at);
  if (!row.responded_to_agent_at) return true;
  return row.actual_state_updated_at > *row.responded_to_agent_at;
}

std::vector<std::int64_t> find_workspaces_to_return(const WorkspacesTable& table,
                                                    UpdateType update_type,
                                                    const std::vector<std::int64_t>& updated_ids) {
  WSIM_ASSERT(std::is_sorted(updated_ids.begin(), updated_ids.end()));
  const RailsVersion version = table.version();
  std::vector<std::int64_t> out;
  for (const WorkspaceRow& row : table.rows()) {
    const bool returned = update_type == UpdateType::kFull
                              ? returned_in_full(version, row)
                              : returned_in_partial(table, row, updated_ids);
    if (returned) out.push_back(row.id);
  }
  WSIM_ASSERT_LE(out.size(), table.rows().size());
  // Rows are kept in id order (pairs with WorkspacesTable::touch_returned): strictly increasing.
  WSIM_ASSERT(std::adjacent_find(out.begin(), out.end(), std::greater_equal<>()) == out.end());
  return out;
}

}  // namespace wsim::gitlab
