// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/agent/request_builder.h"

#include <map>

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

// Progress as A0..A2 compute it: from the informer only (§5.4).
TerminationProgress informer_progress(const std::set<std::string>& present,
                                      const std::string& name) {
  WSIM_ASSERT(!name.empty());
  return present.count(name) > 0 ? TerminationProgress::kTerminating
                                 : TerminationProgress::kTerminated;
}

bool builder_recomputes_progress(const Versions& versions) {
  return !versions.agent_inventory_termination() ||
         versions.a3_termination == A3Termination::kDeploymentAbsence;
}

// The progress to send for a tracker entry, or kNone when the entry is not sent this cycle.
TerminationProgress progress_to_send(const Versions& versions, const std::set<std::string>& present,
                                     const WorkspaceKey& key, TerminationTracker& termination) {
  WSIM_ASSERT(termination.contains(key));  // The builder walks the tracker's own entries.
  if (!versions.agent_has_synced_flag()) return informer_progress(present, key.name);
  if (builder_recomputes_progress(versions)) {
    const TerminationProgress computed = informer_progress(present, key.name);
    const auto entry = termination.find(key);
    WSIM_ASSERT(entry.has_value());
    if (entry->progress != computed) termination.update_or_set(key, computed);
  }
  const auto entry = termination.find(key);
  WSIM_ASSERT(entry.has_value());
  return entry->synced ? TerminationProgress::kNone : entry->progress;
}

WorkspaceAgentInfo deployment_info(const kube::Object& deployment) {
  WSIM_ASSERT(!deployment.meta.name.empty());
  WSIM_ASSERT(!deployment.meta.namespace_.empty());
  WorkspaceAgentInfo info;
  info.name = deployment.meta.name;
  info.namespace_ = deployment.meta.namespace_;
  info.latest_k8s_deployment_info = deployment;
  return info;
}

const kube::Object& deref(const kube::Object& object) { return object; }
const kube::Object& deref(const std::shared_ptr<const kube::Object>& object) {
  WSIM_ASSERT(object != nullptr);  // Informer::list_shared holds live views only.
  return *object;
}

// build_request over copies (tests) or over the informer's shared views (the agent: no copy of
// every cached Deployment per cycle).
template <typename Item>
BuiltRequest build_request_of(const Versions& versions, const std::vector<Item>& deployments,
                              const PersistedStateTracker& persisted,
                              TerminationTracker& termination, const ErrorTracker::Snapshot& errors,
                              bool has_full_sync_run_before) {
  BuiltRequest built;
  built.request.endpoint = RailsRequest::Endpoint::kReconcile;
  built.request.update_type = has_full_sync_run_before ? UpdateType::kPartial : UpdateType::kFull;
  for (const Item& item : deployments) built.present.insert(deref(item).meta.name);
  const bool as_list = versions.agent == AgentVersion::kA0a;
  std::vector<WorkspaceAgentInfo> list;               // A0a
  std::map<WorkspaceKey, WorkspaceAgentInfo> merged;  // A0b+
  for (const Item& item : deployments) {
    const kube::Object& d = deref(item);
    WSIM_ASSERT_EQ(d.kind, std::string("Deployment"));
    if (persisted.is_persisted(d.meta.name, std::to_string(d.meta.resource_version))) continue;
    if (as_list) {
      list.push_back(deployment_info(d));
    } else {
      merged[WorkspaceKey{d.meta.name, d.meta.namespace_}] = deployment_info(d);
    }
  }
  const auto entries = termination.entries();  // Copy: A2 may update entries while iterating.
  for (const auto& [key, entry] : entries) {
    const TerminationProgress progress =
        progress_to_send(versions, built.present, key, termination);
    if (progress == TerminationProgress::kNone) continue;
    built.sent_progress.emplace_back(key, progress);
    WorkspaceAgentInfo* info = nullptr;
    if (as_list) {
      info = &list.emplace_back();
    } else {
      info = &merged[key];
    }
    info->name = key.name;
    info->namespace_ = key.namespace_;
    info->termination_progress = progress;
  }
  WSIM_ASSERT_LE(built.sent_progress.size(), entries.size());
  if (versions.agent_reports_errors()) {
    for (const auto& [key, entry] : errors) {
      if (!entry.error) continue;
      WorkspaceAgentInfo& info = merged[key];
      info.name = key.name;
      info.namespace_ = key.namespace_;
      info.error_details = ErrorDetails{"applier", *entry.error};
      built.error_versions[key] = entry.version;
    }
  }
  // A0a reports no errors (agent_reports_errors): only the merged form carries error_details.
  if (as_list) WSIM_ASSERT(built.error_versions.empty());
  if (!as_list) {
    WSIM_ASSERT(list.empty());
    for (auto& [key, info] : merged) list.push_back(std::move(info));
  }
  // At most one error per workspace, each from the tracker's snapshot.
  WSIM_ASSERT_LE(built.error_versions.size(), errors.size());
  built.request.workspace_agent_infos = std::move(list);
  return built;
}

}  // namespace

BuiltRequest build_request(const Versions& versions, const std::vector<kube::Object>& deployments,
                           const PersistedStateTracker& persisted, TerminationTracker& termination,
                           const ErrorTracker::Snapshot& errors, bool has_full_sync_run_before) {
  BuiltRequest built = build_request_of(versions, deployments, persisted, termination, errors,
                                        has_full_sync_run_before);
  WSIM_ASSERT_LE(built.present.size(), deployments.size());
  return built;
}

BuiltRequest build_request_from_views(
    const Versions& versions, const std::vector<std::shared_ptr<const kube::Object>>& deployments,
    const PersistedStateTracker& persisted, TerminationTracker& termination,
    const ErrorTracker::Snapshot& errors, bool has_full_sync_run_before) {
  BuiltRequest built = build_request_of(versions, deployments, persisted, termination, errors,
                                        has_full_sync_run_before);
  WSIM_ASSERT_LE(built.present.size(), deployments.size());
  return built;
}

}  // namespace wsim::gitlab
