// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/rails/rails_service.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "model/gitlab/names.h"
#include "model/gitlab/rails/agent_infos_updater.h"
#include "model/gitlab/rails/config_builder.h"
#include "model/gitlab/rails/workspaces_finder.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

// "<infos> infos in, <returned> returned", the reconcile record's detail, written into `out`
// (no std::string per request). REQUIRES: `out` holds 64 chars.
std::string_view exchange_detail(char (&out)[64], std::size_t infos, std::size_t returned) {
  char* end = out + sizeof(out);
  char* at = std::to_chars(out, end, infos).ptr;
  constexpr std::string_view kMiddle = " infos in, ";
  at = std::copy(kMiddle.begin(), kMiddle.end(), at);
  at = std::to_chars(at, end, returned).ptr;
  constexpr std::string_view kTail = " returned";
  WSIM_ASSERT_LE(kTail.size(), static_cast<std::size_t>(end - at));
  at = std::copy(kTail.begin(), kTail.end(), at);
  return std::string_view(out, static_cast<std::size_t>(at - out));
}

}  // namespace

const char* user_action_result_name(UserActionResult result) {
  switch (result) {
    case UserActionResult::kOk:
      return "ok";
    case UserActionResult::kNotFound:
      return "NotFound";
    case UserActionResult::kAlreadyExists:
      return "AlreadyExists";
    case UserActionResult::kInvalid:
      return "Invalid";
  }
  WSIM_ASSERT_MSG(false, "user action result " << static_cast<int>(result) << " has no name");
  return "?";
}

RailsService::RailsService(Sim& sim, RailsOptions options, const GitlabProbes* probes)
    : sim_(sim),
      options_(options),
      probes_(probes),
      table_(options.versions.rails, options.versions.desired_compare_version()),
      config_memo_(options.versions),
      touch_gap_(sim.stream("gitlab.rails.touch_gap")) {
  WSIM_ASSERT_GE(options_.touch_gap_max_ms, 0);
}

std::string RailsService::namespace_for(const std::string& workspace) const {
  WSIM_ASSERT(!workspace.empty());
  if (options_.versions.shared()) return std::string(kSharedNamespace);
  return unique_namespace_for(workspace);
}

UserActionResult RailsService::create_workspace(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  if (table_.find_by_name(name) != nullptr) return UserActionResult::kAlreadyExists;
  table_.insert(name, namespace_for(name), rails_now());
  WSIM_ASSERT(table_.find_by_name(name) != nullptr);
  return UserActionResult::kOk;
}

UserActionResult RailsService::set_desired_state(const std::string& name, State desired) {
  const WorkspaceRow* stored = table_.find_by_name(name);
  if (stored == nullptr) return UserActionResult::kNotFound;
  if (!is_valid_desired(desired)) return UserActionResult::kInvalid;
  if (probes_ != nullptr && selected_not_touched_.count(stored->id) > 0 &&
      stored->desired_state != desired) {
    sim_.probes().hit(probes_->desired_change_between_select_and_touch);
  }
  WorkspaceRow row = *stored;
  row.desired_state = desired;
  if (!table_.save(row, rails_now())) return UserActionResult::kInvalid;
  WSIM_ASSERT(table_.find_by_id(row.id)->desired_state == desired);
  return UserActionResult::kOk;
}

UserActionResult RailsService::update_agent_config() {
  if (!options_.versions.rails_has_settings()) return UserActionResult::kInvalid;
  // R2 and R3 save only a new WorkspacesAgentConfig version; no workspace row is written, so
  // force_include_all_resources stays as it was (docs/fidelity.md, "admin agent-config update"):
  // R2 ee/lib/remote_development/agent_config_operations/updater.rb@0582d2cdb488 Updater.update
  // :10-32 (the only write is workspaces_agent_config.save, :25); R3 same file@420121856e80
  // Updater.update :10-33 (save at :26). Existing workspaces keep their pinned
  // workspaces_agent_config_version (R2 workspace.rb set_workspaces_agent_config_version), so the
  // change reaches only workspaces created later. An earlier, unpinned R2-era updater set
  // force_include_all_resources on every non-terminated row; no modelled pin has it.
  WSIM_ASSERT(table_.version() >= RailsVersion::kR2);
  return UserActionResult::kOk;
}

Task<RailsResponse> RailsService::handle(RailsRequest request) {
  if (request.endpoint == RailsRequest::Endpoint::kPrerequisites) {
    // §2.4: only the A3-era agents (MR !1495) ask for the prerequisites.
    WSIM_ASSERT(options_.versions.agent_reads_settings());
    co_return prerequisites();
  }
  StepOneResult step = update_select_and_build(request);
  for (std::int64_t id : step.returned_ids) selected_not_touched_.insert(id);
  // §9.3: the finder's SELECT and the touch are separate statements; user actions interleave.
  co_await sim_.loop().sleep(touch_gap_.range(0, options_.touch_gap_max_ms));
  for (std::int64_t id : step.returned_ids) {
    auto selected = selected_not_touched_.find(id);
    WSIM_ASSERT(selected != selected_not_touched_.end());  // Inserted above, before the gap.
    selected_not_touched_.erase(selected);
  }
  touch(step.returned_ids);
  WSIM_ASSERT_EQ(step.response.workspace_rails_infos.size(), step.returned_ids.size());
  co_return std::move(step.response);
}

RailsService::StepOneResult RailsService::update_select_and_build(const RailsRequest& request) {
  const Versions& versions = options_.versions;
  WSIM_ASSERT(request.endpoint == RailsRequest::Endpoint::kReconcile);  // handle() routed it.
  const TimeMs now = rails_now();
  if (hooks_.begin) hooks_.begin(request);
  std::vector<std::int64_t> updated =
      update_workspaces_from_agent_infos(table_, request.workspace_agent_infos, now);
  if (versions.rails_has_lifecycle_manager()) {
    manage_workspace_lifecycles(table_, updated, options_.limits, now);
  }
  StepOneResult result;
  result.returned_ids = find_workspaces_to_return(table_, request.update_type, updated);
  for (std::int64_t id : result.returned_ids) {
    const WorkspaceRow* row = table_.find_by_id(id);
    WSIM_ASSERT(row != nullptr);
    WorkspaceRailsInfo info;
    info.name = row->name;
    info.namespace_ = row->namespace_;
    info.desired_state = row->desired_state;
    info.actual_state = row->actual_state;
    info.deployment_resource_version = row->deployment_resource_version;
    const ConfigDecision decision = decide_config(versions.rails, request.update_type, *row,
                                                  versions.desired_compare_version());
    if (decision.include) info.config_to_apply = config_memo_.build(*row, decision);
    if (versions.rails_has_settings()) info.image_pull_secrets = {"registry-credentials"};
    result.response.workspace_rails_infos.push_back(std::move(info));
  }
  WSIM_ASSERT_LE(result.returned_ids.size(), table_.rows().size());
  if (versions.rails_has_settings()) result.response.settings = options_.settings;
  result.response.http_status = 201;
  char detail[64];
  sim_.record(
      "rails", "reconcile", request.update_type == UpdateType::kFull ? "full" : "partial", "201",
      exchange_detail(detail, request.workspace_agent_infos.size(), result.returned_ids.size()));
  if (hooks_.response) hooks_.response(request, result.response);
  if (hooks_.end) hooks_.end();
  return result;
}

void RailsService::touch(const std::vector<std::int64_t>& ids) {
  const TimeMs now = rails_now();
  table_.touch_returned(ids, now);
  if (probes_ == nullptr) return;
  for (std::int64_t id : ids) {
    const WorkspaceRow* row = table_.find_by_id(id);
    WSIM_ASSERT(row != nullptr);
    WSIM_ASSERT(row->responded_to_agent_at == now);  // touch_returned stamped every returned row.
    if (row->desired_state_updated_at == now) sim_.probes().hit(probes_->timestamp_tie);
  }
}

RailsResponse RailsService::prerequisites() const {
  RailsResponse response;
  response.http_status = 201;
  // §2.4: `shared_namespace` from the agent's workspaces config; "" = unique mode.
  if (options_.versions.shared()) response.shared_namespace = std::string(kSharedNamespace);
  // Pairs with Agent::fetch_prerequisites: a namespace exactly in shared mode.
  WSIM_ASSERT_EQ(response.shared_namespace.empty(), !options_.versions.shared());
  return response;
}

}  // namespace wsim::gitlab
