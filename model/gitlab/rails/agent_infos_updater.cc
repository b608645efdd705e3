// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/rails/agent_infos_updater.h"

#include <optional>

#include "model/gitlab/rails/actual_state_calculator.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

// §2.2: deployment_resource_version = latest_k8s_deployment_info.metadata.resourceVersion or nil.
// R0 AgentInfoParser drops it for Terminating/Terminated/Unknown.
std::optional<std::string> resource_version_of(RailsVersion version, const WorkspaceAgentInfo& info,
                                               State actual) {
  if (version == RailsVersion::kR0 && (actual == State::kTerminating ||
                                       actual == State::kTerminated || actual == State::kUnknown)) {
    return std::nullopt;
  }
  if (!info.latest_k8s_deployment_info) return std::nullopt;
  return std::to_string(info.latest_k8s_deployment_info->meta.resource_version);
}

}  // namespace

std::map<std::string, WorkspaceAgentInfo> infos_by_name(
    const std::vector<WorkspaceAgentInfo>& infos) {
  std::map<std::string, WorkspaceAgentInfo> out;
  for (const WorkspaceAgentInfo& info : infos) {
    WSIM_ASSERT(!info.name.empty());
    out.insert_or_assign(info.name, info);
  }
  WSIM_ASSERT_LE(out.size(), infos.size());
  return out;
}

std::vector<std::int64_t> update_workspaces_from_agent_infos(
    WorkspacesTable& table, const std::vector<WorkspaceAgentInfo>& infos, TimeMs now_ms) {
  const RailsVersion version = table.version();
  const std::map<std::string, WorkspaceAgentInfo> by_name = infos_by_name(infos);
  std::vector<std::int64_t> updated;
  // `agent.workspaces.where(name: ...)`: rows in id order.
  const std::vector<WorkspaceRow> rows = table.rows();
  for (const WorkspaceRow& stored : rows) {
    auto it = by_name.find(stored.name);
    if (it == by_name.end()) continue;
    const WorkspaceAgentInfo& info = it->second;
    WorkspaceRow row = stored;
    const State actual = calculate_actual_state(version, info);
    if (row.desired_state == State::kRestartRequested && actual == State::kStopped) {
      row.desired_state = State::kRunning;
    }
    if (version <= RailsVersion::kR1 &&
        row.created_at + row.max_hours_before_termination * kHourMs < now_ms) {
      row.desired_state = State::kTerminated;
    }
    row.actual_state = actual;
    if (auto rv = resource_version_of(version, info, actual)) row.deployment_resource_version = *rv;
    const bool saved = table.save(row, now_ms);
    WSIM_ASSERT_MSG(saved, "save! of " << row.name << " failed validation");
    updated.push_back(row.id);
  }
  return updated;
}

}  // namespace wsim::gitlab
