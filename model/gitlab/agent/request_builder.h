// Building the reconcile request: `generateWorkspaceAgentInfos` (docs/systems/gitlab.md §5.4;
// agent `reconciler.go` @ ea4641ad (A0a), 93f7dd8a (A0b), 9743dcf6 (A1)).
//
//   deployments = informer.List(); present = names of cached Deployments
//   for d in deployments: skip if stateTracker.isPersisted(d.Name, d.ResourceVersion);
//                         else info{name, namespace, latest_k8s_deployment_info = d}
//   for (name, ns) in terminationTracker: progress = present ? Terminating : Terminated
//   A0b+: for snapshot entries with an error: error_details{applier, err}
//   update_type = hasFullSyncRunBefore ? partial : full
//
// Version differences:
//   A0a: infos is a LIST — a tracker entry is appended as a second info even when the informer
//        already produced one for the same name (Rails keeps the later one, §2.2).
//   A0b/A1: one info per (name, namespace), merged (sorted by key here; Go map order is random
//        and Rails treats infos independently).
//   A2: the progress is recomputed as in A1; when it differs from the stored one the entry is
//        updateOrSet (flag cleared); entries whose flag is set are not sent.
//   A3 [reconstructed]: the builder does not touch the tracker (seed 001: "Deleted the code in
//        enrichRailsPayloadWithWorkspaceTerminationProgress to not update the terminationTracker")
//        and sends the stored progress of entries not yet synced — except with the
//        kDeploymentAbsence alternative, which keeps the A2 informer rule.
// A workspace absent from the cache, the tracker and the error snapshot is never reported.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/gitlab/agent/error_tracker.h"
#include "model/gitlab/agent/persisted_state_tracker.h"
#include "model/gitlab/agent/termination_tracker.h"
#include "model/gitlab/versions.h"
#include "model/gitlab/wire.h"
#include "sim/kube/object.h"

namespace wsim::gitlab {

struct BuiltRequest {
  RailsRequest request;
  // Tracker entries carried by the request with the progress sent (for A2 mark_synced).
  std::vector<std::pair<WorkspaceKey, TerminationProgress>> sent_progress;
  // Names of Deployments in the informer cache when the request was built (invariant S3).
  std::set<std::string> present;
  // Error tracker version of every error_details sent (invariant S8).
  std::map<WorkspaceKey, std::uint64_t> error_versions;
};

// REQUIRES: `deployments` sorted by namespace/name (informer order). May update `termination`
// (A2 only). `errors` is the snapshot taken at the start of the cycle (empty before A0b).
BuiltRequest build_request(const Versions& versions, const std::vector<kube::Object>& deployments,
                           const PersistedStateTracker& persisted, TerminationTracker& termination,
                           const ErrorTracker::Snapshot& errors, bool has_full_sync_run_before);
// The same over the informer's shared const views (Informer::list_shared), without copies.
BuiltRequest build_request_from_views(
    const Versions& versions, const std::vector<std::shared_ptr<const kube::Object>>& deployments,
    const PersistedStateTracker& persisted, TerminationTracker& termination,
    const ErrorTracker::Snapshot& errors, bool has_full_sync_run_before);

}  // namespace wsim::gitlab
