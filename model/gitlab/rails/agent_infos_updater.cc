// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/rails/agent_infos_updater.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "model/gitlab/rails/actual_state_calculator.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

// §2.2: deployment_resource_version = latest_k8s_deployment_info.metadata.resourceVersion or nil.
// R0 AgentInfoParser drops it for Terminating/Terminated/Unknown.
std::optional<std::string> resource_version_of(RailsVersion version, const WorkspaceAgentInfo& info,
                                               State actual) {
  WSIM_ASSERT(is_valid_actual(actual));  // calculate_actual_state's result.
  if (version == RailsVersion::kR0 && (actual == State::kTerminating ||
                                       actual == State::kTerminated || actual == State::kUnknown)) {
    return std::nullopt;
  }
  if (!info.latest_k8s_deployment_info) return std::nullopt;
  return std::to_string(info.latest_k8s_deployment_info->meta.resource_version);
}

}  // namespace

std::map<std::string_view, const WorkspaceAgentInfo*> infos_by_name(
    const std::vector<WorkspaceAgentInfo>& infos) {
  std::map<std::string_view, const WorkspaceAgentInfo*> out;
  for (const WorkspaceAgentInfo& info : infos) {
    WSIM_ASSERT(!info.name.empty());
    out.insert_or_assign(info.name, &info);
  }
  WSIM_ASSERT_LE(out.size(), infos.size());
  return out;
}

std::vector<std::int64_t> update_workspaces_from_agent_infos(
    WorkspacesTable& table, const std::vector<WorkspaceAgentInfo>& infos, TimeMs now_ms) {
  std::vector<std::int64_t> updated;
  if (infos.empty()) return updated;  // An idle partial request: no row to read or write.
  const RailsVersion version = table.version();
  const std::map<std::string_view, const WorkspaceAgentInfo*> by_name = infos_by_name(infos);
  // `agent.workspaces.where(name: ...)`: rows in id order. save() writes a row in place and never
  // adds or removes one, so the rows are walked by index and each is copied only when it is saved.
  const std::size_t row_count = table.rows().size();
  for (std::size_t index = 0; index < row_count; ++index) {
    WSIM_ASSERT_EQ(table.rows().size(), row_count);
    auto it = by_name.find(table.rows()[index].name);
    if (it == by_name.end()) continue;
    const WorkspaceAgentInfo& info = *it->second;
    WorkspaceRow row = table.rows()[index];
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
  WSIM_ASSERT_LE(updated.size(), by_name.size());
  // Rows walked in id order: the finder binary-searches these ids (find_workspaces_to_return).
  WSIM_ASSERT(std::is_sorted(updated.begin(), updated.end()));
  return updated;
}

}  // namespace wsim::gitlab
