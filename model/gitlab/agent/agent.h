// Agent: the agentk remote_development module of one agent (docs/systems/gitlab.md §5.1).
//
// The worker actor: A3 first calls the prerequisites API (§2.4) until it succeeds; then
//   fullSyncTimer = 0 (fires at once), partialSyncTimer = partial interval;
//   full tick: stop the active reconciler, build a NEW one (new informer, cache-synced, all
//              trackers empty), Run once, reset the full timer after Run returns;
//   partial tick: Run on the active reconciler, reset the partial timer after Run returns.
//   When both are due Go's select picks one at random (worker.go StartReconciliation, commit
//   074ae5ee): a choice point (stream "gitlab.agent.select"); the other runs next.
// Errors from Run are only logged; the loop continues.
// restart(): agent restart or leader change (agentk is a leader module) — the worker and its
// applier actors are cancelled and a fresh worker starts (empty state, §9.5). A Rails request
// already sent is not recalled: Rails handles it in its own actor.
// Single-threaded; state() is for the invariants (read-only).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "model/gitlab/agent/agent_context.h"
#include "model/gitlab/agent/reconciler.h"
#include "sim/core/task.h"

namespace wsim::gitlab {

enum class Cycle { kFull, kPartial };
// The worker's select over its two timers (worker.go StartReconciliation, commit 074ae5ee): with
// both ready Go picks one uniformly at random (drawn from `choices`); before the first full sync
// there is no reconciler, so only the full tick can run. REQUIRES: full_due || partial_due.
Cycle select_cycle(bool full_due, bool partial_due, bool has_reconciler, ChoiceStream& choices);

class Agent {
 public:
  Agent(Sim& sim, kube::ApiServer& api, RailsLink& link, Versions versions, AgentTimers timers,
        AgentObserver* observer, const GitlabProbes* probes);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Spawns the worker. REQUIRES: not started.
  void start();
  // Cancels the worker and the appliers, then spawns a new worker.
  void restart();

  // The active reconciler's state, or null before the first full sync.
  const ReconcilerState* state() const;
  // The active reconciler's informer cache (empty before the first full sync).
  std::vector<std::shared_ptr<const kube::Object>> cached_deployments() const;  // Const views.
  const AgentTimers& timers() const { return ctx_.timers; }
  std::uint64_t cycles() const { return cycles_; }

 private:
  Task<void> worker();
  Task<void> fetch_prerequisites();
  Task<void> full_sync();

  AgentContext ctx_;
  ActorId worker_ = kNoActor;
  std::unique_ptr<Reconciler> active_;
  // Reconcilers of cancelled workers: their frames may reference them until they unwind.
  std::vector<std::unique_ptr<Reconciler>> retired_;
  ActorId retired_worker_ = kNoActor;
  std::uint64_t cycles_ = 0;
  ChoiceStream select_;  // Which of two due timers Go's select takes.
};

}  // namespace wsim::gitlab
