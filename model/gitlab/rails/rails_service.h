// RailsService: the Rails side of one agent — the `workspaces` table, user actions through the
// UI/GraphQL, and the reconcile endpoint (docs/systems/gitlab.md §4) plus, for A3/R3, the
// prerequisites endpoint (§2.4).
//
// Request handling is a coroutine of TWO atomic steps with an interleaving point between them
// (§4.1 "Transactions", §9.3):
//   step 1: update rows from infos (§4.2) → R2+ lifecycle manager → finder (§4.4) → build the
//           response incl. config_to_apply (§4.5), all against the OLD responded_to_agent_at;
//   co_await (a gap drawn from the "gitlab.rails.touch_gap" stream; choice 0 = no extra delay);
//   step 2: touch responded_to_agent_at on exactly the returned rows (§4.6).
// A user action landing in the gap is "swallowed" until the next FULL (R0–R2 re-send on a
// timestamp tie because of `>=`; R3's `>` does not).
//
// Rails handles each request as its own actor (the net::Link spawns it), so a lost response or a
// cancelled agent does not undo step 1 or step 2.
// Not modelled: authentication, JSON-schema 400s, image pull secrets contents, devfile errors.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "model/gitlab/probes.h"
#include "model/gitlab/rails/config_builder.h"
#include "model/gitlab/rails/lifecycle_manager.h"
#include "model/gitlab/rails/rails_clock.h"
#include "model/gitlab/rails/workspaces_table.h"
#include "model/gitlab/versions.h"
#include "model/gitlab/wire.h"
#include "sim/core/sim.h"
#include "sim/core/task.h"

namespace wsim::gitlab {

struct RailsOptions {
  Versions versions;
  RailsClock clock;
  // Upper bound of the step-1 → touch gap: production 20 ms (amplifier
  // gitlab.rails_touch_gap_max_ms).
  DurationMs touch_gap_max_ms = 20;
  RailsSettings settings;  // Returned to the agent (R2+).
  LifecycleLimits limits;  // R2+ lifecycle manager.
};

enum class UserActionResult { kOk, kNotFound, kAlreadyExists, kInvalid };
const char* user_action_result_name(UserActionResult result);

class RailsService {
 public:
  // Observation hooks for the invariants (each may be empty): `begin`/`end` bracket step 1 of a
  // reconcile request (row writes in between belong to it); `response` sees every response
  // Rails produced, before the touch.
  struct Hooks {
    std::function<void(const RailsRequest&)> begin;
    std::function<void()> end;
    std::function<void(const RailsRequest&, const RailsResponse&)> response;
  };

  RailsService(Sim& sim, RailsOptions options, const GitlabProbes* probes);
  RailsService(const RailsService&) = delete;
  RailsService& operator=(const RailsService&) = delete;

  // --- The reconcile and prerequisites endpoints (the net::Link handler). ---
  Task<RailsResponse> handle(RailsRequest request);

  // --- User actions (UI / GraphQL), atomic at the current virtual time. ---
  // Creates a workspace row named `name` (desired Running, actual CreationRequested).
  UserActionResult create_workspace(const std::string& name);
  // Changes desired_state; kInvalid for an invalid desired state or (R2+) a row whose desired
  // state is Terminated (permanent termination, §3).
  UserActionResult set_desired_state(const std::string& name, State desired);
  // Admin changed the agent config: R2/R3 (at the pinned commits) store a new agent-config
  // version and write no workspace row, so nothing is force-included (§4.4 (c)). kInvalid
  // before R2.
  UserActionResult update_agent_config();

  WorkspacesTable& table() { return table_; }
  const WorkspacesTable& table() const { return table_; }
  const RailsOptions& options() const { return options_; }
  void set_hooks(Hooks hooks) { hooks_ = std::move(hooks); }
  std::string namespace_for(const std::string& workspace) const;
  TimeMs rails_now() const { return options_.clock.now(sim_.now_ms()); }

 private:
  struct StepOneResult {
    RailsResponse response;
    std::vector<std::int64_t> returned_ids;
  };
  StepOneResult update_select_and_build(const RailsRequest& request);
  void touch(const std::vector<std::int64_t>& ids);
  RailsResponse prerequisites() const;

  Sim& sim_;
  RailsOptions options_;
  const GitlabProbes* probes_;
  WorkspacesTable table_;
  ConfigMemo config_memo_;
  ChoiceStream touch_gap_;
  // Rows selected by a request whose touch has not happened yet (for the §9.3 probe).
  std::multiset<std::int64_t> selected_not_touched_;
  Hooks hooks_;
};

}  // namespace wsim::gitlab
