// One row of the Rails `workspaces` table, reduced to the columns the reconciler reads and writes
// (docs/systems/gitlab.md §3 "DB columns used by the reconciler").
//
// Timestamps are integer virtual milliseconds as seen by the Rails clock (rails_clock.h), which is
// coarse on purpose so that two events can share a timestamp (§9.3: `>=` vs `>` ties).
// Not modelled: user/project ids, devfile, url, editor (they never influence reconciliation).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/gitlab/states.h"
#include "sim/core/time.h"

namespace wsim::gitlab {

struct WorkspaceRow {
  std::int64_t id = 0;  // Creation order; FULL returns rows ordered by id (R2/R3).
  std::string name;     // Unique per agent; Rails matches agent infos by name only (§1).
  std::string namespace_;
  State desired_state = State::kRunning;
  TimeMs desired_state_updated_at = 0;
  State actual_state = State::kCreationRequested;
  TimeMs actual_state_updated_at = 0;           // R3 column; kept (unused) in older versions.
  std::optional<TimeMs> responded_to_agent_at;  // NULL until the first response (§4.4 (a)).
  std::string deployment_resource_version;      // "" = NULL.
  bool force_include_all_resources = false;     // R2+ (§4.4 (c)).
  TimeMs created_at = 0;
  std::int64_t max_hours_before_termination = 24;  // R0/R1 column (§4.2 step 2).

  friend bool operator==(const WorkspaceRow&, const WorkspaceRow&) = default;
};

}  // namespace wsim::gitlab
