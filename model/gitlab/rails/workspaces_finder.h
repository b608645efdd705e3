// Step 8: WorkspacesToBeReturnedFinder (docs/systems/gitlab.md §4.4; R1 @ b34b10cbcc58,
// R2 @ 0582d2cdb488, R3 `persistence/workspaces_to_be_returned_finder.rb`).
//
// FULL:    R0 every row of the agent; R1+ every row except (desired Terminated ∧ actual
//          Terminated) — the NAND of MR !137751.
// PARTIAL: the union of
//   (a) desired_state_updated_at >= responded_to_agent_at (R3: strict >) or RTA NULL;
//   (b) the rows updated from this request's infos (evaluated after step 5);
//   (c) R2+: force_include_all_resources;
//   (d) R3: actual_state_updated_at > responded_to_agent_at or RTA NULL;
//   (e) R3: desired Terminated ∧ actual ≠ Terminated (every partial cycle).
// Also the per-row "is the desired/actual state newer than the last response" predicates that the
// config builder uses (§4.5), evaluated on the OLD responded_to_agent_at (the touch comes later).
// Pure functions over the table; result in id order.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <cstdint>
#include <vector>

#include "model/gitlab/rails/workspaces_table.h"
#include "model/gitlab/wire.h"

namespace wsim::gitlab {

// `desired_state_updated_more_recently_than_last_response_to_agent?` (R0–R2 `>=`, R3 `>`).
bool desired_updated_since_response(RailsVersion version, const WorkspaceRow& row);
// R3 `actual_state_updated_more_recently_than_last_response_to_agent?` (`>`); false before R3.
bool actual_updated_since_response(RailsVersion version, const WorkspaceRow& row);

std::vector<std::int64_t> find_workspaces_to_return(const WorkspacesTable& table,
                                                    UpdateType update_type,
                                                    const std::vector<std::int64_t>& updated_ids);

}  // namespace wsim::gitlab
