// The reference model of the agent ⇄ Rails protocol (docs/gitlab-oracles.md, "Reference model"):
// an abstract state machine checked against every exchange of a run, as a refinement.
//
// Abstract state, per workspace: the desired state the user (or Rails itself) last set, the
// abstract step at which it was set, and whether the agent has received it in a way it can act
// on (the desired state, plus a Deployment to apply unless the workspace is to be terminated).
// Per request: the step at which Rails' finder ran. Abstract steps:
//   change(w, d)        desired of w becomes d                 → w pending since now
//   select(r)           Rails runs step 1 of request r          → remember the step
//   deliver(r, ok)      the agent receives r's response         → pending rows in it delivered
// The protocol promises (docs/systems/gitlab.md §4.4 (a)): a partial response returns every
// workspace whose desired state changed since the last response the agent got. So after an ok
// partial exchange r, no workspace may still be pending from a change made before select(r) —
// the first exchange where that fails is the finding (gitlab.S14), with its request id.
// A fault in the window excuses a pending change until it is delivered (a lost request or
// response, an agent restart): the protocol then relies on the next full reconciliation, which
// gitlab.L6 bounds. The model keeps no copy of Rails' timestamps or the agent's trackers: it is
// an oracle, not a second port. It only asks, when a finder runs, how each pending row's two
// Rails timestamps compare (StampOf), so that a finding says which of the two known ways the
// change was swallowed (docs/gitlab-oracles.md "Reference model"): a change older than the last
// touch (a change between a finder and its touch, every version) or one in the very Rails
// timestamp of the last touch (R3's strict `>`; R0–R2 compare with `>=` and return it).
// Single-threaded; O(workspaces) per exchange.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/gitlab/invariants/recent_by_id.h"
#include "model/gitlab/states.h"
#include "model/gitlab/wire.h"
#include "sim/core/time.h"

namespace wsim::gitlab {

class ProtocolModel {
 public:
  // Receives a divergence: (workspace, message).
  using Report = std::function<void(const std::string& workspace, std::string message)>;
  // How a row's desired_state_updated_at compares with its responded_to_agent_at, read by the
  // caller from Rails' table when a finder runs (kUnknown: no row, or never answered).
  enum class Stamps { kUnknown, kChangeBeforeTouch, kChangeAtTouch, kChangeAfterTouch };
  using StampOf = std::function<Stamps(const std::string& workspace)>;

  // `stamp_of` may be empty (the messages then say nothing of timestamps).
  explicit ProtocolModel(Report report, StampOf stamp_of = {});

  // The desired state of `workspace` became `desired` now (a new row counts as a change).
  void on_desired_changed(const std::string& workspace, State desired, TimeMs now_ms);
  // Rails' finder for reconcile request `request_id` runs now.
  void on_select(std::uint64_t request_id);
  // The agent got (ok) or lost (!ok) the answer to `request`.
  void on_exchange(const RailsRequest& request, bool ok, const RailsResponse& response);
  // The agent restarted: its next exchange is a full one; pending changes wait for it.
  void on_agent_restart();

  // Workspaces with a change not yet delivered (for tests and explain).
  std::size_t pending() const;

 private:
  struct Workspace {
    State desired = State::kRunning;
    std::uint64_t changed_step = 0;
    TimeMs changed_ms = 0;
    bool delivered = true;
    bool excused = false;  // A fault happened since the change: judged by L6, not here.
    std::uint64_t in_flight_request = 0;  // A request selected before the change, unanswered.
  };

  static bool delivers(const WorkspaceRailsInfo& info, State desired);
  void deliver(const RailsResponse& response);
  void judge_partial(const RailsRequest& request, const RailsResponse& response,
                     std::uint64_t select_step);
  std::string how_swallowed(const Workspace& w, const RailsRequest& request,
                            const RailsResponse& response, const std::string& name) const;
  std::string stamps_words(const RailsRequest& request, const std::string& name) const;
  void excuse_pending();

  void set_delivered(Workspace& w, bool delivered);
  void insert_in_flight(std::uint64_t request_id);

  static constexpr std::size_t kRequestsRemembered = 64;

  Report report_;
  StampOf stamp_of_;
  std::uint64_t step_ = 0;
  std::map<std::string, Workspace> workspaces_;
  std::size_t undelivered_ = 0;  // Workspaces with !delivered: the per-exchange loops skip at 0.
  // A remembered (recent) request's finder: its abstract step, and the Stamps of each row
  // pending when it ran.
  struct Selection {
    std::uint64_t step = 0;
    std::vector<std::pair<std::string, Stamps>> stamps;  // By name (workspaces_ order), unique.
  };
  RecentById<Selection> selected_{kRequestsRemembered};  // by request id
  // Selected, not yet answered or lost: sorted ids, the kRequestsRemembered largest (a set
  // trimmed from its smallest, without a tree node per request).
  std::vector<std::uint64_t> in_flight_;
};

}  // namespace wsim::gitlab
