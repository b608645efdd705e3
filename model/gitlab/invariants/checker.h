// Checker: the incremental checker of the GitLab invariants (docs/systems/gitlab.md §10;
// ids in catalog.h). It observes every Rails row write (before, after), every Rails response,
// and every agent action (AgentObserver), so a safety check costs O(1) per event (S11 peeks the
// cluster only when a row turns Terminated). Safety violations are queued as they are seen and
// handed out by take_safety_violation() (SystemRun::check_safety, after every event).
// Liveness (check_liveness) is judged after heal + settle (docs/architecture.md §5) from the final
// state plus a few counters kept since heal (L2 limbo streaks over FULL cycles, L5 last partial
// exchange and how many partials followed the last FULL, L6 time of convergence and of the last
// desired_state change after heal).
// Single-threaded. The checker never changes the system.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/gitlab/agent/agent_observer.h"
#include "model/gitlab/agent/reconciler_state.h"
#include "model/gitlab/invariants/protocol_model.h"
#include "model/gitlab/invariants/recent_by_id.h"
#include "model/gitlab/probes.h"
#include "model/gitlab/rails/workspaces_table.h"
#include "model/gitlab/versions.h"
#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/run/system.h"

namespace wsim::gitlab {

// What the checker reads of the agent (the Agent implements it in run.cc; tests fake it).
struct AgentView {
  std::function<const ReconcilerState*()> state;
  std::function<std::vector<std::shared_ptr<const kube::Object>>()> cached_deployments;
};

struct CheckerOptions {
  Versions versions;
  DurationMs full_interval_ms = kHourMs;
  DurationMs partial_interval_ms = 10 * kSecondMs;
};

class Checker : public AgentObserver {
 public:
  Checker(Sim& sim, const kube::ApiServer& api, const WorkspacesTable& table,
          CheckerOptions options, const GitlabProbes* probes);

  void set_agent_view(AgentView view) { agent_ = std::move(view); }

  // --- Rails side. ---
  void on_row_written(const std::optional<WorkspaceRow>& before, const WorkspaceRow& after);
  void on_rails_request_begin(const RailsRequest& request);
  void on_rails_request_end();
  void on_rails_response(const RailsRequest& request, const RailsResponse& response);

  // --- AgentObserver. ---
  void on_reconciler_reset(std::uint64_t generation, bool restart) override;
  void on_request_built(std::uint64_t generation, const BuiltRequest& built) override;
  void on_exchange(std::uint64_t generation, const RailsRequest& request, bool ok,
                   const RailsResponse& response) override;
  void on_rails_info(std::uint64_t generation, const WorkspaceRailsInfo& info) override;
  void on_namespace_create(const std::string& workspace, const std::string& namespace_) override;
  void on_namespace_delete(const std::string& workspace, const std::string& namespace_) override;
  void on_apply(const std::string& workspace, const std::vector<kube::Object>& objects,
                bool termination) override;
  void on_object_delete(const std::string& workspace, const kube::ObjectRef& ref) override;
  void on_tracker_erase(const WorkspaceKey& key, State rails_actual) override;
  void on_operation_started(std::uint64_t generation, const WorkspaceKey& key,
                            std::uint64_t version) override;
  void on_operation_done(std::uint64_t generation, const WorkspaceKey& key, std::uint64_t version,
                         bool ok) override;
  void on_cycle_done(std::uint64_t generation, bool full, bool ok) override;

  // --- Phases and verdicts. ---
  void on_heal(TimeMs now_ms);
  std::optional<run::Violation> take_safety_violation();
  bool has_safety_violation() const { return !pending_.empty(); }  // take_...() would return one.
  std::vector<run::Violation> check_liveness() const;

  // The objects of workspace `row` that exist in the cluster and are not being deleted (S11).
  std::vector<kube::ObjectRef> live_objects_of(const WorkspaceRow& row) const;
  // Has the whole system converged (every row at its desired state, trackers empty)?
  bool converged() const;
  // The §10.2 L2 signature for one row, judged now.
  bool in_limbo(const WorkspaceRow& row) const;

 private:
  void violate(std::string_view id, const std::string& object, std::string message);
  // S14's question to Rails' table when a finder runs (ProtocolModel::StampOf).
  ProtocolModel::Stamps rails_stamps(const std::string& workspace) const;
  void check_row_domains(const WorkspaceRow& after);
  void check_row_transition(const WorkspaceRow& before, const WorkspaceRow& after);
  void check_terminated_provenance(const WorkspaceRow& after);
  void check_no_leak(const WorkspaceRow& after);
  void check_actual_against_report(const WorkspaceRow& after);
  void check_rails_flip(const WorkspaceRow& before, const WorkspaceRow& after);
  void check_config_replicas(const WorkspaceRailsInfo& info);
  void check_skipped_deployments(const BuiltRequest& built);
  void check_synced_progress();
  void check_errors_reported(std::uint64_t generation, const BuiltRequest& built);
  bool judges_informer_rule() const;
  bool owned_by(const std::string& workspace, const kube::ObjectRef& ref) const;
  bool orphaned_dependent(const kube::Object& object) const;
  void track_convergence();
  void note_vanished_namespaces();

  Sim& sim_;
  const kube::ApiServer& api_;
  const WorkspacesTable& table_;
  CheckerOptions options_;
  const GitlabProbes* probes_;
  AgentView agent_;
  std::deque<run::Violation> pending_;
  std::set<std::string> reported_;  // "id|object": report each pair once.

  // While Rails runs step 1: the request it was handed (RailsService::Hooks calls begin and end
  // around one synchronous step, so the request outlives the pointer).
  const RailsRequest* rails_request_ = nullptr;
  std::map<std::string_view, const WorkspaceAgentInfo*> request_infos_;  // Into rails_request_.
  ProtocolModel protocol_;                                         // S14, the reference model.
  std::map<WorkspaceKey, TerminationProgress> progress_received_;  // S17: last Rails got.
  RecentById<std::set<std::string>> present_by_request_;           // S3 (recent requests)
  RecentById<bool> response_had_terminated_;   // request id → any desired Terminated (recent)
  std::set<std::string> terminated_received_;  // S4
  std::map<std::pair<std::uint64_t, WorkspaceKey>, std::uint64_t> ok_version_;  // S8
  // S18: per (generation, workspace) the latest operation version marked, and the version of a
  // failed latest operation whose error must be in every request until a newer one supersedes it.
  std::map<std::pair<std::uint64_t, WorkspaceKey>, std::uint64_t> latest_version_;
  std::map<std::pair<std::uint64_t, WorkspaceKey>, std::uint64_t> unreported_error_;

  std::optional<TimeMs> heal_ms_;
  std::map<std::string, int> limbo_full_streak_;  // L2, FULL cycles since heal.
  bool last_partial_nonempty_ = false;            // L5
  bool saw_partial_after_heal_ = false;
  std::optional<int> partials_since_full_;    // L5: ok partials since the last ok FULL (after heal)
  std::optional<TimeMs> converged_since_ms_;  // L6
  std::optional<TimeMs> last_disturbance_ms_;  // L6: last disturbance after heal (see .cc)
  std::set<std::string> namespace_gone_;       // L6: live rows whose namespace is absent
};

}  // namespace wsim::gitlab
