// One agentk reconciler (docs/systems/gitlab.md §5.1–§5.5; agent `reconciler.go` @ 9743dcf6):
// an informer over the agent's Deployments plus the trackers of ReconcilerState.
//
// run() is one reconciliation cycle:
//   snapshot errors → build request (§5.4) → POST over the link → on 201: for each rails info in
//   response order, applyWorkspaceChanges (§5.5):
//     recordVersion; A0b+: deleteErrorIfVersion(snapshot version) if the snapshot had an error;
//     desired Terminated → handleDesiredStateIsTerminated (config_to_apply IGNORED before A3);
//     else (unique mode) NamespaceExists → CreateNamespace if absent; then Apply(config) if any,
//     asynchronously (a separate actor: the next cycle can start while it runs, §8 item 7).
//   A0a only logs errors; A0b+ route every error channel into the error tracker with the version
//   allocated for that info (watchForLatestErrors).
// Any failure of the exchange (timeout, non-201) ends the cycle with no tracker change and
// without setting hasFullSyncRunBefore (§2.1).
// Single-threaded; every API call and the link call are interleaving points.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/gitlab/agent/agent_context.h"
#include "model/gitlab/agent/reconciler_state.h"
#include "sim/core/task.h"
#include "sim/kube/informer.h"

namespace wsim::gitlab {

class Reconciler {
 public:
  Reconciler(AgentContext& ctx, std::uint64_t generation);
  ~Reconciler();
  Reconciler(const Reconciler&) = delete;
  Reconciler& operator=(const Reconciler&) = delete;

  // Starts the informer and waits for its cache to sync (the factory does this, §5.1).
  Task<void> start();
  // Stops the informer (full sync replaces the reconciler, §5.1).
  void stop();
  // One cycle. Returns true if a 201 response arrived and was processed.
  Task<bool> run();

  const std::shared_ptr<ReconcilerState>& state() const { return state_; }
  // The informer's const views (no copies; the checker reads them after every request).
  std::vector<std::shared_ptr<const kube::Object>> cached_deployments() const {
    return informer_.list_shared();
  }

 private:
  // REQUIRES: `info` and `snap` outlive the task (run() co_awaits it at once, over its own
  // response).
  Task<void> apply_workspace_changes(const WorkspaceRailsInfo& info,
                                     const ErrorTracker::Snapshot& snap);
  Task<std::vector<std::string>> ensure_namespace_and_apply(const WorkspaceRailsInfo& info,
                                                            std::uint64_t version);
  // watchForLatestErrors for errors that are already known (synchronous channels).
  void report(const WorkspaceKey& key, std::uint64_t version, const std::vector<std::string>& e);
  void process_settings(const RailsResponse& response);

  AgentContext& ctx_;
  std::shared_ptr<ReconcilerState> state_;
  kube::Informer informer_;
};

}  // namespace wsim::gitlab
