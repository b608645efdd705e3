// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/rails/config_builder.h"

#include <string>

#include "model/gitlab/names.h"
#include "model/gitlab/rails/workspaces_finder.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

kube::Object workspace_object(const std::string& kind, const std::string& name,
                              const WorkspaceRow& row) {
  WSIM_ASSERT(!name.empty());
  WSIM_ASSERT(!row.namespace_.empty());
  kube::Object object;
  object.kind = kind;
  object.meta.name = name;
  object.meta.namespace_ = row.namespace_;
  object.meta.labels[std::string(kAgentIdLabel)] = std::string(kAgentId);
  object.meta.labels[std::string(kWorkspaceIdLabel)] = row.name;
  return object;
}

kube::Object inventory(const std::string& name, const WorkspaceRow& row) {
  // One of the row's two inventories (names.h): the agent and the checker map it back.
  WSIM_ASSERT(workspace_of_inventory(name) == row.name);
  kube::Object object = workspace_object("ConfigMap", name, row);
  object.meta.labels[std::string(kInventoryIdLabel)] = name;
  return object;
}

kube::Object owned(const std::string& kind, const std::string& name, const std::string& owner,
                   const WorkspaceRow& row, bool in_partial) {
  WSIM_ASSERT(workspace_of_inventory(owner) == row.name);  // S5 reads ownership by this name.
  kube::Object object = workspace_object(kind, name, row);
  object.meta.annotations[std::string(kOwningInventoryAnnotation)] = owner;
  if (in_partial) object.meta.annotations[std::string(kIncludeInPartialAnnotation)] = "true";
  return object;
}

int replicas_for(RailsVersion version, State desired) {
  if (version >= RailsVersion::kR3) return desired == State::kRunning ? 1 : 0;
  // R0–R2: 1 iff desired ∈ {CreationRequested, Running}; desired is never CreationRequested.
  return desired == State::kRunning || desired == State::kCreationRequested ? 1 : 0;
}

// The inventory ConfigMap, Deployment, Service, PVC and NetworkPolicy.
constexpr std::size_t kWorkspaceGroupSize = 5;

void append_workspace_group(std::vector<kube::Object>& out, RailsVersion version,
                            const WorkspaceRow& row) {
  const std::size_t size_before = out.size();
  const std::string inv = workspace_inventory_name(row.name);
  out.push_back(inventory(inv, row));
  out.back().meta.annotations[std::string(kIncludeInPartialAnnotation)] = "true";
  kube::Object deployment = owned("Deployment", row.name, inv, row, true);
  deployment.spec["replicas"] = std::to_string(replicas_for(version, row.desired_state));
  deployment.spec["template.labels." + std::string(kWorkspaceIdLabel)] = row.name;
  out.push_back(std::move(deployment));
  kube::Object service = owned("Service", row.name, inv, row, true);
  service.spec["selector." + std::string(kWorkspaceIdLabel)] = row.name;
  out.push_back(std::move(service));
  kube::Object pvc =
      owned("PersistentVolumeClaim", row.name + "-gl-workspace-data", inv, row, true);
  pvc.spec["storage"] = "50Gi";
  out.push_back(std::move(pvc));
  kube::Object policy = owned("NetworkPolicy", row.name, inv, row, true);
  policy.spec["podSelector." + std::string(kWorkspaceIdLabel)] = row.name;
  out.push_back(std::move(policy));
  WSIM_ASSERT_EQ(out.size(), size_before + kWorkspaceGroupSize);
}

void append_secrets_group(std::vector<kube::Object>& out, const WorkspaceRow& row) {
  // After the workspace group: the secrets group never comes alone (build_config_to_apply).
  WSIM_ASSERT_GE(out.size(), kWorkspaceGroupSize);
  const std::string inv = secrets_inventory_name(row.name);
  out.push_back(inventory(inv, row));
  kube::Object secret = owned("Secret", row.name + "-env-var", inv, row, false);
  secret.data["GIT_AUTHOR"] = "user";
  out.push_back(std::move(secret));
}

}  // namespace

ConfigDecision decide_config(RailsVersion version, UpdateType update_type,
                             const WorkspaceRow& row) {
  return decide_config(version, update_type, row, version);
}

ConfigDecision decide_config(RailsVersion version, UpdateType update_type, const WorkspaceRow& row,
                             RailsVersion desired_compare_version) {
  const bool full = update_type == UpdateType::kFull;
  const bool force = version >= RailsVersion::kR2 && row.force_include_all_resources;
  const bool desired_updated = desired_updated_since_response(desired_compare_version, row);
  ConfigDecision decision;
  if (version <= RailsVersion::kR1) {
    decision.include = full || desired_updated;
    WSIM_ASSERT(!decision.all_resources);  // R0/R1 have no resource selection.
    return decision;
  }
  if (version == RailsVersion::kR2) {
    decision.include = full || force || desired_updated;
    decision.all_resources = full || force || row.actual_state == State::kCreationRequested;
    return decision;
  }
  const bool actual_updated = actual_updated_since_response(version, row);
  const bool terminating =
      row.desired_state == State::kTerminated && row.actual_state != State::kTerminated;
  decision.include = full || force || desired_updated || actual_updated || terminating;
  decision.all_resources = full || force || actual_updated;
  if (!decision.include) WSIM_ASSERT(!decision.all_resources);
  return decision;
}

std::vector<kube::Object> inventory_config_maps(const WorkspaceRow& row) {
  std::vector<kube::Object> out;
  out.push_back(inventory(workspace_inventory_name(row.name), row));
  out.push_back(inventory(secrets_inventory_name(row.name), row));
  return out;
}

std::vector<kube::Object> build_config_to_apply(const Versions& versions, const WorkspaceRow& row,
                                                const ConfigDecision& decision) {
  WSIM_ASSERT(decision.include);
  const RailsVersion version = versions.rails;
  if (version >= RailsVersion::kR3 && row.desired_state == State::kTerminated) {
    return inventory_config_maps(row);  // §4.5: select_only_configmaps.
  }
  std::vector<kube::Object> out;
  append_workspace_group(out, version, row);
  if (version >= RailsVersion::kR2 && decision.all_resources) append_secrets_group(out, row);
  WSIM_ASSERT_GE(out.size(), kWorkspaceGroupSize);
  return out;
}

std::vector<kube::Object> ConfigMemo::build(const WorkspaceRow& row,
                                            const ConfigDecision& decision) {
  WSIM_ASSERT(decision.include);
  WSIM_ASSERT_GT(row.id, 0);
  const std::size_t index = static_cast<std::size_t>(row.id - 1);
  if (index >= by_id_.size()) by_id_.resize(index + 1);
  Entry& entry = by_id_[index];
  if (row.desired_state == State::kTerminated) {
    entry = Entry{};  // A row being terminated keeps nothing: the memo holds live rows only.
    return build_config_to_apply(versions_, row, decision);
  }
  if (entry.name != row.name || entry.namespace_ != row.namespace_) {
    entry = Entry{};
    entry.name = row.name;
    entry.namespace_ = row.namespace_;
  }
  const RailsVersion version = versions_.rails;
  std::vector<kube::Object>& objects =
      entry.by_replicas[static_cast<std::size_t>(replicas_for(version, row.desired_state))];
  if (objects.empty()) {
    append_workspace_group(objects, version, row);
    WSIM_ASSERT_EQ(objects.size(), kWorkspaceGroupSize);
    if (version >= RailsVersion::kR2) append_secrets_group(objects, row);
  }
  const bool secrets = version >= RailsVersion::kR2 && decision.all_resources;
  const std::size_t count = secrets ? objects.size() : kWorkspaceGroupSize;
  WSIM_ASSERT_LE(count, objects.size());
  return std::vector<kube::Object>(objects.begin(),
                                   objects.begin() + static_cast<std::ptrdiff_t>(count));
}

}  // namespace wsim::gitlab
