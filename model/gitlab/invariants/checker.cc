// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/invariants/checker.h"

#include "model/gitlab/invariants/catalog.h"
#include "model/gitlab/invariants/state_oracle.h"
#include "model/gitlab/names.h"
#include "model/gitlab/rails/agent_infos_updater.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

std::string name_of(State state) { return std::string(state_name(state)); }

bool at_desired(const WorkspaceRow& row) {
  switch (row.desired_state) {
    case State::kTerminated:
      return row.actual_state == State::kTerminated;
    case State::kRunning:
    case State::kStopped:
      // §10.2 L3: or an explicit failure (Failed). Not Error: after heal no fault makes an
      // operation fail, so an error the agent reported must be superseded by a success (the
      // error tracker deletes it, §5.3) and the next report (at the latest the next FULL) clears
      // it in Rails. An Error that outlives the settle phase is an error never retried.
      return row.actual_state == row.desired_state || row.actual_state == State::kFailed;
    default:
      return false;  // RestartRequested must have been flipped to Running.
  }
}

constexpr std::size_t kRequestsRemembered = 64;

// L5: a FULL cycle re-applies every workspace's config; server-side apply bumps the Deployment's
// resourceVersion (sim/kube apply_always_writes, the Rails comment "Kubernetes updates the
// deployment_resource_version every time a new config is applied"), so one of the next partial
// exchanges reports the new version and Rails returns the row (§4.4 (b)). That echo is bounded
// (the partial timer is not aligned with the full one and the apply runs after the response, so
// it can land in the first or the second partial); only a non-empty partial beyond this many
// after the last FULL is chatter.
constexpr int kPartialsEchoingAFull = 3;

// L6 slack beyond one full interval: the full timer restarts only after Run returns (§5.1), the
// repairing FULL's apply and rollout take seconds, and the next partial reports the result.
constexpr int kL6SlackPartialIntervals = 6;

}  // namespace

Checker::Checker(Sim& sim, const kube::ApiServer& api, const WorkspacesTable& table,
                 CheckerOptions options, const GitlabProbes* probes)
    : sim_(sim),
      api_(api),
      table_(table),
      options_(options),
      probes_(probes),
      protocol_([this](const std::string& workspace,
                       std::string message) { violate(kS14, workspace, std::move(message)); },
                [this](const std::string& workspace) { return rails_stamps(workspace); }),
      present_by_request_(kRequestsRemembered),
      response_had_terminated_(kRequestsRemembered) {
  WSIM_ASSERT_GT(options_.full_interval_ms, 0);
  WSIM_ASSERT_GT(options_.partial_interval_ms, 0);
}

ProtocolModel::Stamps Checker::rails_stamps(const std::string& workspace) const {
  using Stamps = ProtocolModel::Stamps;
  const WorkspaceRow* row = table_.find_by_name(workspace);
  if (row == nullptr || !row->responded_to_agent_at) return Stamps::kUnknown;
  const TimeMs touch = *row->responded_to_agent_at;
  WSIM_ASSERT_GE(touch, row->created_at);  // A row is touched only after it was selected.
  if (row->desired_state_updated_at < touch) return Stamps::kChangeBeforeTouch;
  if (row->desired_state_updated_at == touch) return Stamps::kChangeAtTouch;
  return Stamps::kChangeAfterTouch;
}

void Checker::violate(std::string_view id, const std::string& object, std::string message) {
  const std::string key = std::string(id) + "|" + object;
  WSIM_ASSERT(!id.empty());
  if (!reported_.insert(key).second) return;
  // The trace names this actor "monitor", the class's former name: renaming it would change
  // every trace hash (docs/trace.md).
  sim_.record("monitor", "violation", object, std::string(id), message);
  pending_.push_back(run::Violation{std::string(id), object, std::move(message)});
  // Each queued violation was reported once, and take_safety_violation only removes.
  WSIM_ASSERT_LE(pending_.size(), reported_.size());
}

std::optional<run::Violation> Checker::take_safety_violation() {
  if (pending_.empty()) return std::nullopt;
  run::Violation violation = std::move(pending_.front());
  pending_.pop_front();
  WSIM_ASSERT(!violation.invariant_id.empty());  // Pairs with violate()'s check.
  return violation;
}

// --- Rails rows -----------------------------------------------------------------------------

void Checker::on_row_written(const std::optional<WorkspaceRow>& before, const WorkspaceRow& after) {
  WSIM_ASSERT(!after.name.empty());
  if (before) WSIM_ASSERT_EQ(before->name, after.name);  // A save never renames a row.
  if (heal_ms_) WSIM_ASSERT_GE(sim_.now_ms(), *heal_ms_);
  check_row_domains(after);
  // §10.2 L6 counts from the last disturbance. After heal no user acts, but Rails still changes
  // desired_state itself (RestartRequested → Running in step 5, §4.2; the R2+ lifecycle manager),
  // and such a change can be swallowed like a user action (§9.3: an R3 timestamp tie), so it
  // restarts the L6 clock.
  if (heal_ms_ && before && before->desired_state != after.desired_state) {
    last_disturbance_ms_ = sim_.now_ms();
  }
  if (!before || before->desired_state != after.desired_state) {
    protocol_.on_desired_changed(after.name, after.desired_state, sim_.now_ms());
  }
  if (before) check_row_transition(*before, after);
  if (rails_request_ != nullptr) check_actual_against_report(after);
  if (before && rails_request_ != nullptr) check_rails_flip(*before, after);
  const bool became_terminated = after.actual_state == State::kTerminated &&
                                 (!before || before->actual_state != State::kTerminated);
  if (!became_terminated) return;
  check_terminated_provenance(after);
  check_no_leak(after);
}

void Checker::on_rails_request_begin(const RailsRequest& request) {
  // Rails calls begin and end in one synchronous step (RailsService::update_select_and_build):
  // requests never nest.
  WSIM_ASSERT(rails_request_ == nullptr);
  WSIM_ASSERT(request_infos_.empty());
  rails_request_ = &request;
  request_infos_ = infos_by_name(request.workspace_agent_infos);  // Into the request, no copies.
  for (const WorkspaceAgentInfo& info : request.workspace_agent_infos) {
    WSIM_ASSERT(!info.name.empty());
    if (info.termination_progress == TerminationProgress::kNone) continue;
    progress_received_[WorkspaceKey{info.name, info.namespace_}] = info.termination_progress;
  }
  protocol_.on_select(request.request_id);
  WSIM_ASSERT_LE(request_infos_.size(), request.workspace_agent_infos.size());
}

void Checker::on_rails_request_end() {
  WSIM_ASSERT(rails_request_ != nullptr);
  rails_request_ = nullptr;
  request_infos_.clear();
}

// S12: the actual state Rails stores must be possible for the cluster state the agent reported
// (state_oracle.h), whatever the calculator's table says.
void Checker::check_actual_against_report(const WorkspaceRow& after) {
  WSIM_ASSERT(rails_request_ != nullptr);
  auto info = request_infos_.find(after.name);
  if (info == request_infos_.end()) return;
  WSIM_ASSERT_EQ(info->second->name, after.name);
  const std::optional<std::string> why =
      actual_state_contradiction(options_.versions.rails, after.actual_state, *info->second);
  if (why) violate(kS12, after.name, "actual " + name_of(after.actual_state) + ": " + *why);
}

// S15: Rails itself changes a desired state only as its design says: RestartRequested becomes
// Running once the agent reported Stopped (§4.2 step 1); R0/R1 terminate a workspace past its
// maximum age; the R2+ lifecycle manager stops idle and terminates old ones. User actions happen
// outside requests and are not judged here.
void Checker::check_rails_flip(const WorkspaceRow& before, const WorkspaceRow& after) {
  WSIM_ASSERT(rails_request_ != nullptr);  // Only writes inside a request are judged.
  if (before.desired_state == after.desired_state) return;
  const bool restart_done = before.desired_state == State::kRestartRequested &&
                            after.desired_state == State::kRunning &&
                            after.actual_state == State::kStopped;
  const bool aged_out = after.desired_state == State::kTerminated;
  const bool idle_stop = options_.versions.rails_has_lifecycle_manager() &&
                         after.desired_state == State::kStopped;  // max_active_hours_before_stop
  if (restart_done || aged_out || idle_stop) return;
  violate(kS15, after.name,
          "Rails changed desired " + name_of(before.desired_state) + " to " +
              name_of(after.desired_state) + " with actual " + name_of(after.actual_state));
}

// S13: the Deployment Rails sends wants the replicas the desired state means.
void Checker::check_config_replicas(const WorkspaceRailsInfo& info) {
  WSIM_ASSERT(!info.name.empty());
  for (const kube::Object& object : info.config_to_apply) {
    if (object.kind != "Deployment") continue;
    const std::optional<std::string> why = replicas_contradiction(info.desired_state, object);
    if (why) violate(kS13, info.name, *why);
  }
}

void Checker::check_row_domains(const WorkspaceRow& after) {
  WSIM_ASSERT_GT(after.id, 0);
  if (!is_valid_desired(after.desired_state)) {
    violate(kS1, after.name, "desired_state " + name_of(after.desired_state) + " is not valid");
  }
  if (!is_valid_actual(after.actual_state)) {
    violate(kS1, after.name, "actual_state " + name_of(after.actual_state) + " is not valid");
  }
}

void Checker::check_row_transition(const WorkspaceRow& before, const WorkspaceRow& after) {
  WSIM_ASSERT_EQ(before.id, after.id);
  if (before.desired_state == State::kTerminated && after.desired_state != State::kTerminated) {
    violate(kS2, after.name,
            "desired_state changed from Terminated to " + name_of(after.desired_state));
  }
  WSIM_ASSERT_EQ(before.created_at, after.created_at);  // created_at is written once.
  if (before.responded_to_agent_at &&
      (!after.responded_to_agent_at ||
       *after.responded_to_agent_at < *before.responded_to_agent_at)) {
    violate(
        kS9, after.name,
        "responded_to_agent_at went back from " + std::to_string(*before.responded_to_agent_at));
  }
  const bool desired_changed = before.desired_state != after.desired_state;
  const bool dsu_changed = before.desired_state_updated_at != after.desired_state_updated_at;
  // With a coarse Rails clock two changes in one tick keep the timestamp: only "timestamp moved
  // without a state change" and "timestamp went back" are violations.
  if (dsu_changed && !desired_changed) {
    violate(kS9, after.name, "desired_state_updated_at changed without a desired_state change");
  }
  if (after.desired_state_updated_at < before.desired_state_updated_at) {
    violate(kS9, after.name, "desired_state_updated_at went back");
  }
  if (options_.versions.rails_tracks_actual_updated_at() &&
      before.actual_state_updated_at != after.actual_state_updated_at &&
      before.actual_state == after.actual_state) {
    violate(kS9, after.name, "actual_state_updated_at changed without an actual_state change");
  }
}

void Checker::check_terminated_provenance(const WorkspaceRow& after) {
  WSIM_ASSERT(after.actual_state == State::kTerminated);
  if (!rails_request_) {
    violate(kS3, after.name, "actual_state set to Terminated outside of a reconcile request");
    return;
  }
  auto info = request_infos_.find(after.name);
  if (info == request_infos_.end() ||
      info->second->termination_progress != TerminationProgress::kTerminated) {
    violate(kS3, after.name, "actual_state Terminated without termination_progress Terminated");
    return;
  }
  WSIM_ASSERT_EQ(info->second->name, after.name);
  if (!judges_informer_rule()) return;
  const std::set<std::string>* present = present_by_request_.find(rails_request_->request_id);
  if (present != nullptr && present->count(after.name) > 0) {
    violate(kS3, after.name, "Terminated reported while the Deployment was in the agent cache");
  }
}

// S3 judges the informer rule (Terminated only once the Deployment left the agent cache) for the
// agents that terminate by it: A0–A2, and A3 with the kDeploymentAbsence alternative.
bool Checker::judges_informer_rule() const {
  const Versions& v = options_.versions;
  return !v.agent_inventory_termination() || v.a3_termination == A3Termination::kDeploymentAbsence;
}

bool Checker::owned_by(const std::string& workspace, const kube::ObjectRef& ref) const {
  WSIM_ASSERT(options_.versions.shared());  // Only shared mode judges foreign deletes (S5).
  WSIM_ASSERT(!workspace.empty());
  if (ref.kind == "ConfigMap" && workspace_of_inventory(ref.name) == workspace) return true;
  const kube::Object* live = api_.peek(ref);
  if (live == nullptr) return true;  // Already gone: deleting it is harmless.
  auto owner = live->meta.annotations.find(std::string(kOwningInventoryAnnotation));
  if (owner == live->meta.annotations.end()) return false;
  return workspace_of_inventory(owner->second) == workspace;
}

std::vector<kube::ObjectRef> Checker::live_objects_of(const WorkspaceRow& row) const {
  WSIM_ASSERT(!row.namespace_.empty());
  std::vector<kube::ObjectRef> out;
  if (!options_.versions.shared()) {
    // A Terminating namespace is being emptied by the namespace controller: not a leak. A gone
    // namespace holds nothing (Kubernetes finalizes it only when empty), so whatever is still
    // listed in it is.
    const kube::Object* ns = api_.peek(kube::ObjectRef{"Namespace", "", row.namespace_});
    if (ns != nullptr && ns->meta.deletion_ms.has_value()) return out;
  }
  kube::LabelSelector selector;
  selector.match_labels[std::string(kWorkspaceIdLabel)] = row.name;
  for (const kube::Object* object : api_.peek_list("", row.namespace_, selector)) {
    // §10.1 S11: objects already being deleted (a Pod in its grace period) are not a leak, nor
    // are dependents whose owners are all gone (the garbage collector removes them).
    if (object->meta.deletion_ms.has_value()) continue;
    if (orphaned_dependent(*object)) continue;
    WSIM_ASSERT_EQ(object->meta.namespace_, row.namespace_);
    out.push_back(kube::ObjectRef::of(*object));
  }
  return out;
}

bool Checker::orphaned_dependent(const kube::Object& object) const {
  if (object.meta.owner_references.empty()) return false;
  for (const kube::OwnerReference& owner : object.meta.owner_references) {
    WSIM_ASSERT(!owner.name.empty());
    const kube::Object* live =
        api_.peek(kube::ObjectRef{owner.kind, object.meta.namespace_, owner.name});
    if (live != nullptr && live->meta.uid == owner.uid) return false;
  }
  return true;
}

void Checker::check_no_leak(const WorkspaceRow& after) {
  WSIM_ASSERT(after.actual_state == State::kTerminated);
  const std::vector<kube::ObjectRef> leaked = live_objects_of(after);
  if (leaked.empty()) return;
  std::string message = "actual Terminated persisted while objects remain:";
  for (const kube::ObjectRef& ref : leaked) message += " " + ref.to_string();
  violate(kS11, after.name, message);
}

void Checker::on_rails_response(const RailsRequest& request, const RailsResponse& response) {
  WSIM_ASSERT_EQ(response.http_status, 201);  // Rails hands over the responses it produced.
  bool any_terminated = false;
  for (const WorkspaceRailsInfo& info : response.workspace_rails_infos) {
    if (info.desired_state != State::kTerminated) continue;
    any_terminated = true;
    if (options_.versions.rails < RailsVersion::kR3) continue;
    for (const kube::Object& object : info.config_to_apply) {
      const bool inventory = object.kind == "ConfigMap" &&
                             object.meta.labels.count(std::string(kInventoryIdLabel)) > 0;
      if (!inventory) {
        violate(kS10, info.name,
                "Terminated config carries " + kube::ObjectRef::of(object).to_string());
      }
    }
  }
  for (const WorkspaceRailsInfo& info : response.workspace_rails_infos) {
    check_config_replicas(info);
  }
  response_had_terminated_.assign(request.request_id, any_terminated);
}

// --- Agent side -----------------------------------------------------------------------------

void Checker::on_reconciler_reset(std::uint64_t generation, bool restart) {
  WSIM_ASSERT_GT(generation, 0u);
  // Trackers live as long as one reconciler (§9.5): forget the older generations' operations.
  std::erase_if(latest_version_, [&](const auto& entry) { return entry.first.first < generation; });
  std::erase_if(unreported_error_,
                [&](const auto& entry) { return entry.first.first < generation; });
  if (restart) protocol_.on_agent_restart();
  if (probes_ == nullptr || restart) return;
  for (const WorkspaceRow& row : table_.rows()) {
    if (row.desired_state == State::kTerminated && row.actual_state != State::kTerminated) {
      sim_.probes().hit(probes_->termination_across_full_sync);
      return;
    }
  }
}

// S16: a Deployment the agent leaves out of a request because it believes Rails already has that
// version (the persisted-version tracker, §5.3, §5.4) must be at that version in Rails' row: the
// tracker only learns versions from Rails' responses, and Rails only from the agent's reports.
void Checker::check_skipped_deployments(const BuiltRequest& built) {
  if (!agent_.cached_deployments) return;
  std::set<std::string> reported;
  for (const WorkspaceAgentInfo& info : built.request.workspace_agent_infos) {
    if (info.latest_k8s_deployment_info) reported.insert(info.name);
  }
  for (const std::shared_ptr<const kube::Object>& view : agent_.cached_deployments()) {
    WSIM_ASSERT(view != nullptr);
    const kube::Object& deployment = *view;
    WSIM_ASSERT_EQ(deployment.kind, std::string("Deployment"));
    if (reported.count(deployment.meta.name) > 0) continue;
    const WorkspaceRow* row = table_.find_by_name(deployment.meta.name);
    if (row == nullptr) continue;  // Not a workspace of this agent's Rails.
    const std::string version = std::to_string(deployment.meta.resource_version);
    if (row->deployment_resource_version == version) continue;
    violate(kS16, row->name,
            "Deployment rv " + version + " left out of a " +
                (built.request.update_type == UpdateType::kFull ? "full" : "partial") +
                " request as already known, but Rails holds rv \"" +
                row->deployment_resource_version + "\"");
  }
}

// S17: a termination progress the agent's tracker marks as synced (A2+, so it is not sent again)
// is the one Rails last received: the flag is an acknowledgement and may only follow delivery.
void Checker::check_synced_progress() {
  // A0/A1 never read the flag (they send the informer's progress every cycle; seed 215 of A1+R1).
  if (!options_.versions.agent_has_synced_flag()) return;
  const ReconcilerState* state = agent_.state ? agent_.state() : nullptr;
  if (state == nullptr) return;
  for (const auto& [key, entry] : state->termination.entries()) {
    WSIM_ASSERT(!key.name.empty());
    WSIM_ASSERT(entry.progress != TerminationProgress::kNone);  // Pairs with the tracker's add.
    if (!entry.synced) continue;
    auto received = progress_received_.find(key);
    if (received != progress_received_.end() && received->second == entry.progress) continue;
    violate(
        kS17, key.name,
        "termination progress " + std::string(progress_name(entry.progress)) +
            " marked synced, but Rails last received " +
            (received == progress_received_.end() ? std::string("none")
                                                  : std::string(progress_name(received->second))));
  }
}

void Checker::on_request_built(std::uint64_t generation, const BuiltRequest& built) {
  WSIM_ASSERT_GT(generation, 0u);
  WSIM_ASSERT(rails_request_ == nullptr);  // The agent builds while no Rails request runs.
  check_skipped_deployments(built);
  check_synced_progress();
  // Only S3's informer rule reads these; A3's inventory rule would copy a set per cycle for
  // nothing.
  if (judges_informer_rule()) present_by_request_.assign(built.request.request_id, built.present);
  if (!options_.versions.agent_reports_errors()) return;
  check_errors_reported(generation, built);
  for (const auto& [key, version] : built.error_versions) {
    auto ok = ok_version_.find({generation, key});
    if (ok != ok_version_.end() && ok->second > version) {
      violate(kS8, key.name,
              "error of version " + std::to_string(version) + " reported after version " +
                  std::to_string(ok->second) + " succeeded");
    }
  }
}

void Checker::on_exchange(std::uint64_t generation, const RailsRequest& request, bool ok,
                          const RailsResponse& response) {
  protocol_.on_exchange(request, ok, response);
  WSIM_ASSERT_GT(generation, 0u);
  if (ok) WSIM_ASSERT_EQ(response.http_status, 201);  // Reconciler::run's definition of ok.
  const bool* had = response_had_terminated_.find(request.request_id);
  if (!ok && probes_ != nullptr && had != nullptr && *had) {
    sim_.probes().hit(probes_->lost_response_during_termination);
  }
  if (!ok || !heal_ms_) return;
  if (request.update_type == UpdateType::kFull) {
    partials_since_full_ = 0;
    return;
  }
  saw_partial_after_heal_ = true;
  if (partials_since_full_) ++*partials_since_full_;
  if (partials_since_full_) WSIM_ASSERT_GT(*partials_since_full_, 0);
  last_partial_nonempty_ =
      !request.workspace_agent_infos.empty() || !response.workspace_rails_infos.empty();
}

void Checker::on_rails_info(std::uint64_t generation, const WorkspaceRailsInfo& info) {
  WSIM_ASSERT_GT(generation, 0u);
  WSIM_ASSERT(!info.name.empty());
  if (info.desired_state == State::kTerminated) terminated_received_.insert(info.name);
}

void Checker::on_namespace_create(const std::string& workspace, const std::string& namespace_) {
  WSIM_ASSERT(!workspace.empty());
  WSIM_ASSERT(!namespace_.empty());
  // A live workspace's namespace re-created after heal had vanished after heal (a slow deletion
  // by kubectl finishing late): a disturbance taking effect after heal, repaired only by a FULL
  // (docs/systems/gitlab.md §9.4), as note_vanished_namespaces() sees when no cycle re-creates it
  // first (a 10 min full interval, seed 1999 of the gitlab_guard scenario).
  if (heal_ms_ && terminated_received_.count(workspace) == 0) last_disturbance_ms_ = sim_.now_ms();
  if (options_.versions.shared()) {
    violate(kS5, workspace, "namespace create issued in shared mode: " + namespace_);
  }
  if (terminated_received_.count(workspace) > 0) {
    violate(kS4, workspace, "namespace " + namespace_ + " created after desired Terminated");
  }
}

void Checker::on_namespace_delete(const std::string& workspace, const std::string& namespace_) {
  WSIM_ASSERT(!workspace.empty());
  WSIM_ASSERT(!namespace_.empty());
  if (options_.versions.shared()) {
    violate(kS5, workspace, "namespace delete issued in shared mode: " + namespace_);
    return;
  }
  const WorkspaceRow* row = table_.find_by_namespace(namespace_);
  if (row == nullptr || row->desired_state != State::kTerminated) {
    violate(kS6, workspace, "DeleteNamespace(" + namespace_ + ") without a desired-Terminated row");
  }
}

void Checker::on_apply(const std::string& workspace, const std::vector<kube::Object>& objects,
                       bool termination) {
  WSIM_ASSERT(!workspace.empty());
  // Only A3's destroy alternative applies to terminate (termination_handler.cc destroy_by_apply).
  if (termination) WSIM_ASSERT(options_.versions.agent_inventory_termination());
  if (terminated_received_.count(workspace) == 0) return;
  for (const kube::Object& object : objects) {
    const bool inventory =
        object.kind == "ConfigMap" && object.meta.labels.count(std::string(kInventoryIdLabel)) > 0;
    // The A3 destroy alternative applies bare inventories to prune: not a resurrection.
    if (termination && inventory) continue;
    violate(
        kS4, workspace,
        "apply of " + kube::ObjectRef::of(object).to_string() + " issued after desired Terminated");
    return;
  }
}

void Checker::on_object_delete(const std::string& workspace, const kube::ObjectRef& ref) {
  WSIM_ASSERT(!ref.name.empty());
  WSIM_ASSERT(!workspace.empty());
  // Only A3 deletes single objects (the inventory-based termination, §5.8).
  WSIM_ASSERT(options_.versions.agent_inventory_termination());
  if (!options_.versions.shared()) return;
  if (!owned_by(workspace, ref)) {
    violate(kS5, workspace, "deleted " + ref.to_string() + " which is not in its inventories");
  }
}

void Checker::on_tracker_erase(const WorkspaceKey& key, State rails_actual) {
  WSIM_ASSERT(!key.name.empty());
  if (options_.versions.agent_pre_fix()) return;  // S7 is an A1+ property.
  if (rails_actual != State::kTerminated) {
    violate(kS7, key.name, "tracker entry removed while Rails said " + name_of(rails_actual));
  }
}

// S18, error delivery (the design doc of the error tracker, docs/systems/gitlab.md §5.3): the error
// of the latest operation of a workspace stays in the tracker, and so in every request the same
// reconciler builds, until a newer rails info for the workspace supersedes it (the response to a
// request that carried it proves delivery and deletes it only then). An error that vanishes
// earlier never reaches Rails, or reaches it once and is then dropped while Rails still shows it.
// A new reconciler starts with an empty tracker (§9.5): the check is per generation.
void Checker::check_errors_reported(std::uint64_t generation, const BuiltRequest& built) {
  WSIM_ASSERT(options_.versions.agent_reports_errors());
  for (const auto& [pending_key, version] : unreported_error_) {
    // on_reconciler_reset drops older generations' entries; a newer one cannot exist yet.
    WSIM_ASSERT_LE(pending_key.first, generation);
    if (pending_key.first != generation) continue;
    const WorkspaceKey& key = pending_key.second;
    auto sent = built.error_versions.find(key);
    if (sent != built.error_versions.end() && sent->second == version) continue;
    violate(kS18, key.name,
            "the error of operation " + std::to_string(version) + " is missing from request " +
                std::to_string(built.request.request_id) +
                (sent == built.error_versions.end()
                     ? std::string(" (no error reported)")
                     : " (error of operation " + std::to_string(sent->second) + " instead)") +
                " although no newer operation superseded it");
  }
}

void Checker::on_operation_started(std::uint64_t generation, const WorkspaceKey& key,
                                   std::uint64_t version) {
  WSIM_ASSERT_GT(generation, 0u);
  WSIM_ASSERT(!key.name.empty());
  std::uint64_t& latest = latest_version_[{generation, key}];
  WSIM_ASSERT_GT(version, latest);
  latest = version;
  unreported_error_.erase({generation, key});
}

void Checker::on_operation_done(std::uint64_t generation, const WorkspaceKey& key,
                                std::uint64_t version, bool ok) {
  // Pairs with on_operation_started: versions come from the error tracker's next_version().
  WSIM_ASSERT_GT(generation, 0u);
  WSIM_ASSERT_GT(version, 0u);
  auto latest = latest_version_.find({generation, key});
  // An operation ends after it started: the latest started version is at least this one.
  if (latest != latest_version_.end()) WSIM_ASSERT_LE(version, latest->second);
  if (!ok && latest != latest_version_.end() && latest->second == version) {
    unreported_error_[{generation, key}] = version;
  }
  if (!ok) return;
  std::uint64_t& best = ok_version_[{generation, key}];
  if (version > best) best = version;
  WSIM_ASSERT_GE(best, version);
}

void Checker::on_cycle_done(std::uint64_t generation, bool full, bool ok) {
  WSIM_ASSERT_GT(generation, 0u);
  if (!heal_ms_ || !ok) return;
  note_vanished_namespaces();
  track_convergence();
  if (!full) return;
  for (const WorkspaceRow& row : table_.rows()) {
    int& streak = limbo_full_streak_[row.name];
    streak = in_limbo(row) ? streak + 1 : 0;
    WSIM_ASSERT_GE(streak, 0);
  }
}

// --- Liveness -------------------------------------------------------------------------------

void Checker::on_heal(TimeMs now_ms) {
  WSIM_ASSERT(!heal_ms_.has_value());  // A run heals once.
  WSIM_ASSERT_GE(now_ms, 0);
  heal_ms_ = now_ms;
  limbo_full_streak_.clear();
  converged_since_ms_.reset();
  last_disturbance_ms_.reset();
  namespace_gone_.clear();
  partials_since_full_.reset();
}

// §9.4: a namespace of a live workspace deleted by kubectl before heal can finish terminating
// after heal (slow termination) and even after the first FULL after heal; partial cycles never
// report the vanished workspace, so only the next FULL repairs it. That is a disturbance taking
// effect after heal: it restarts the L6 clock when a cycle first sees the namespace gone.
void Checker::note_vanished_namespaces() {
  WSIM_ASSERT(heal_ms_.has_value());
  if (options_.versions.shared()) return;
  for (const WorkspaceRow& row : table_.rows()) {
    const bool live = row.desired_state != State::kTerminated;
    const bool gone =
        live && api_.peek(kube::ObjectRef{"Namespace", "", row.namespace_}) == nullptr;
    if (!gone) {
      namespace_gone_.erase(row.name);
    } else if (namespace_gone_.insert(row.name).second) {
      last_disturbance_ms_ = sim_.now_ms();
    }
  }
}

bool Checker::in_limbo(const WorkspaceRow& row) const {
  WSIM_ASSERT(heal_ms_.has_value());  // L2 counts FULL cycles after heal.
  if (row.desired_state != State::kTerminated || row.actual_state == State::kTerminated)
    return false;
  if (api_.peek(kube::ObjectRef{"Deployment", row.namespace_, row.name}) != nullptr) return false;
  const ReconcilerState* state = agent_.state ? agent_.state() : nullptr;
  const WorkspaceKey key{row.name, row.namespace_};
  if (state != nullptr && state->termination.contains(key)) return false;
  if (state != nullptr && state->errors.has_error(key)) return false;
  if (!row.responded_to_agent_at) return false;
  return row.desired_state_updated_at < *row.responded_to_agent_at;
}

bool Checker::converged() const {
  WSIM_ASSERT(heal_ms_.has_value());  // Convergence is judged after heal only.
  for (const WorkspaceRow& row : table_.rows()) {
    if (!at_desired(row)) return false;
  }
  const ReconcilerState* state = agent_.state ? agent_.state() : nullptr;
  return state == nullptr || state->termination.size() == 0;
}

void Checker::track_convergence() {
  WSIM_ASSERT(heal_ms_.has_value());
  if (!converged()) {
    converged_since_ms_.reset();
  } else if (!converged_since_ms_) {
    converged_since_ms_ = sim_.now_ms();
  }
  if (converged_since_ms_) WSIM_ASSERT_GE(*converged_since_ms_, *heal_ms_);
}

std::vector<run::Violation> Checker::check_liveness() const {
  std::vector<run::Violation> out;
  auto add = [&](std::string_view id, const std::string& object, std::string message) {
    out.push_back(run::Violation{std::string(id), object, std::move(message)});
  };
  for (const WorkspaceRow& row : table_.rows()) {
    const std::string states =
        "desired " + name_of(row.desired_state) + ", actual " + name_of(row.actual_state);
    if (row.desired_state == State::kTerminated && row.actual_state != State::kTerminated) {
      add(kL1, row.name, "termination never completed: " + states);
    }
    auto streak = limbo_full_streak_.find(row.name);
    if (streak != limbo_full_streak_.end() && streak->second >= 2) {
      add(kL2, row.name,
          "limbo across " + std::to_string(streak->second) + " FULL cycles: " + states +
              ", no Deployment, no tracker entry, "
              "no error, desired_state_updated_at < responded_to_agent_at");
    }
    if (row.desired_state != State::kTerminated && !at_desired(row)) {
      add(kL3, row.name, "desired state not reached: " + states);
    }
  }
  const ReconcilerState* state = agent_.state ? agent_.state() : nullptr;
  if (state != nullptr) {
    for (const auto& [key, entry] : state->termination.entries()) {
      add(kL4, key.name,
          std::string("termination tracker entry never removed (progress ") +
              std::string(progress_name(entry.progress)) + ")");
    }
  }
  if (options_.versions.agent_has_synced_flag() && saw_partial_after_heal_ &&
      last_partial_nonempty_ && out.empty()) {
    const bool echo = partials_since_full_ && *partials_since_full_ <= kPartialsEchoingAFull;
    if (!echo) add(kL5, "agentk", "partial exchanges still carry workspaces after convergence");
  }
  if (out.empty() && heal_ms_ && converged_since_ms_) {
    const DurationMs bound_ms =
        options_.full_interval_ms + kL6SlackPartialIntervals * options_.partial_interval_ms;
    const bool after_change = last_disturbance_ms_ && *last_disturbance_ms_ > *heal_ms_;
    const TimeMs from_ms = after_change ? *last_disturbance_ms_ : *heal_ms_;
    WSIM_ASSERT_GE(*converged_since_ms_, *heal_ms_);
    WSIM_ASSERT_GT(bound_ms, 0);
    if (*converged_since_ms_ - from_ms > bound_ms) {
      add(kL6, "system",
          "converged " + std::to_string(*converged_since_ms_ - from_ms) + " ms after " +
              (after_change ? "the last disturbance after heal" : "heal") + " (bound " +
              std::to_string(bound_ms) + " ms)");
    }
  }
  for (const run::Violation& violation : out) WSIM_ASSERT(!violation.object.empty());
  return out;
}

}  // namespace wsim::gitlab
