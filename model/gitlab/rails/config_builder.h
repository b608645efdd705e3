// Step 9: what goes into `config_to_apply` for one returned row (docs/systems/gitlab.md §4.5;
// R0/R1 `desired_config_generator.rb`, R3 `output/config_to_apply_builder.rb`,
// `old_desired_config_generator.rb`).
//
// Whether to include config:
//   R0/R1: FULL ∨ desired updated since the last response (`>=`, old RTA);
//   R2:    + force_include_all_resources;
//   R3:    FULL ∨ force ∨ desired updated (`>`) ∨ actual updated (`>`) ∨ (desired Terminated ∧
//          actual ≠ Terminated).
// What the config contains (objects stand for the YAML stream, in stream order):
//   `<name>-workspace-inventory` ConfigMap (labels inventory-id, agent id), then Deployment,
//   Service, PVC, NetworkPolicy, each annotated `config.k8s.io/owning-inventory`;
//   R2+: also `<name>-secrets-inventory` + a Secret, only when "all resources" are due
//   (R2: FULL ∨ force ∨ actual CreationRequested — the include_secrets rule of 0b0a0cceaaf4;
//   R3: FULL ∨ force ∨ actual updated — objects without include-in-partial-reconciliation).
//   Deployment replicas: R0–R2 1 iff desired ∈ {CreationRequested, Running}; R3 1 iff Running.
//   Desired Terminated: R0–R2 still send the full config (replicas 0; the agent ignores it);
//   R3 sends only the two inventory ConfigMaps (select_only_configmaps).
// Inventory ConfigMaps are sent without `data` (§5.7): the data lives only in the cluster.
// Not modelled: devfile parsing failures, ResourceQuota, ServiceAccount, scripts ConfigMap.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <string>
#include <vector>

#include "model/gitlab/rails/workspace_row.h"
#include "model/gitlab/versions.h"
#include "model/gitlab/wire.h"
#include "sim/kube/object.h"

namespace wsim::gitlab {

struct ConfigDecision {
  bool include = false;        // Send a non-empty config_to_apply.
  bool all_resources = false;  // Also the secrets inventory group (R2+).
};

// REQUIRES: `row` as it is after steps 5–7 but with the OLD responded_to_agent_at.
ConfigDecision decide_config(RailsVersion version, UpdateType update_type, const WorkspaceRow& row);
// The same with the desired_state_updated_at comparison of `desired_compare_version`
// (Versions::desired_compare_version).
ConfigDecision decide_config(RailsVersion version, UpdateType update_type, const WorkspaceRow& row,
                             RailsVersion desired_compare_version);

// The objects of the config for `row`. REQUIRES: decision.include.
std::vector<kube::Object> build_config_to_apply(const Versions& versions, const WorkspaceRow& row,
                                                const ConfigDecision& decision);

// The two inventory ConfigMaps alone (R3 Terminated). Exposed for tests and A3.
std::vector<kube::Object> inventory_config_maps(const WorkspaceRow& row);

// build_config_to_apply with the objects of each live row remembered (docs/performance.md
// §14.1). Outside R3's Terminated case a config is a function of the version, the row's name and
// namespace, the Deployment's replicas (its only part that depends on the desired state) and the
// decision's all_resources; the workspace group is the same with or without the secrets group
// after it, so per row and replica count one list (both groups, built once) answers both.
// Copying an Object shares its maps (sim/kube/fields.h); building one allocates every map anew.
// A desired Terminated config is built directly and frees the row's entry, so the memo holds at
// most two lists per row not being terminated. Single-threaded.
class ConfigMemo {
 public:
  explicit ConfigMemo(const Versions& versions) : versions_(versions) {}
  // Equal to build_config_to_apply(versions, row, decision).
  // REQUIRES: decision.include, row.id > 0.
  std::vector<kube::Object> build(const WorkspaceRow& row, const ConfigDecision& decision);

 private:
  struct Entry {
    std::string name;  // The row the lists were built for ("" = none yet).
    std::string namespace_;
    // By Deployment replicas (0, 1): the workspace group, then (R2+) the secrets group; empty
    // until first built.
    std::vector<kube::Object> by_replicas[2];
  };

  Versions versions_;
  std::vector<Entry> by_id_;  // Index row.id - 1 (ids are dense from 1).
};

}  // namespace wsim::gitlab
