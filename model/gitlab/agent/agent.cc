// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/agent/agent.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace wsim::gitlab {

Cycle select_cycle(bool full_due, bool partial_due, bool has_reconciler, ChoiceStream& choices) {
  WSIM_ASSERT(full_due || partial_due);
  if (!has_reconciler) return Cycle::kFull;  // Only the full tick creates one (timer 0 at start).
  if (full_due && partial_due) return choices.below(2) == 0 ? Cycle::kFull : Cycle::kPartial;
  const Cycle cycle = full_due ? Cycle::kFull : Cycle::kPartial;
  if (cycle == Cycle::kPartial) WSIM_ASSERT(partial_due);
  return cycle;
}

Agent::Agent(Sim& sim, kube::ApiServer& api, RailsLink& link, Versions versions, AgentTimers timers,
             AgentObserver* observer, const GitlabProbes* probes)
    : ctx_{sim,    api,
           link,   versions,
           timers, observer,
           probes, K8sOps(sim, api.client(std::string(kAgentIdentity)), versions, probes),
           "",     1,
           1,      {}},
      select_(sim.stream("gitlab.agent.select")) {
  WSIM_ASSERT_GT(timers.partial_interval_ms, 0);
  WSIM_ASSERT_GT(timers.full_interval_ms, 0);
}

Agent::~Agent() = default;

void Agent::start() {
  WSIM_ASSERT(worker_ == kNoActor);
  worker_ = ctx_.sim.loop().spawn("agentk/worker", worker());
}

void Agent::restart() {
  WSIM_ASSERT(worker_ != kNoActor);
  ctx_.sim.loop().cancel(worker_);
  for (ActorId id : ctx_.apply_actors) ctx_.sim.loop().cancel(id);
  ctx_.apply_actors.clear();
  if (active_) {
    active_->stop();
    if (active_->state()->termination.size() > 0)
      ctx_.hit(&GitlabProbes::tracker_entry_dropped_by_reset);
    ctx_.observe().on_reconciler_reset(ctx_.next_generation, /*restart=*/true);
  }
  // The cancelled worker unwinds at its next interleaving point and may still reference the old
  // reconciler until then: keep it alive (full_sync frees it once the worker is gone).
  retired_.push_back(std::move(active_));
  retired_worker_ = worker_;
  ctx_.sim.record("agentk", "restart", "", "ok");
  worker_ = ctx_.sim.loop().spawn("agentk/worker", worker());
}

const ReconcilerState* Agent::state() const { return active_ ? active_->state().get() : nullptr; }

std::vector<std::shared_ptr<const kube::Object>> Agent::cached_deployments() const {
  return active_ ? active_->cached_deployments()
                 : std::vector<std::shared_ptr<const kube::Object>>{};
}

Task<void> Agent::fetch_prerequisites() {
  // §2.4: GET prerequisites before starting informers; retry every partial interval.
  for (int attempt = 0;; ++attempt) {
    WSIM_ASSERT_LT(attempt, 1000000);
    RailsRequest request;
    request.endpoint = RailsRequest::Endpoint::kPrerequisites;
    request.request_id = ctx_.next_request_id++;
    const net::LinkResult<RailsResponse> result = co_await ctx_.link.call(request);
    if (result.ok() && result.response.http_status == 201) {
      ctx_.shared_namespace = result.response.shared_namespace;
      // Rails answers from the same versions (RailsService::prerequisites).
      WSIM_ASSERT_EQ(ctx_.shared_namespace.empty(), !ctx_.versions.shared());
      co_return;
    }
    co_await ctx_.sim.loop().sleep(ctx_.timers.partial_interval_ms);
  }
}

Task<void> Agent::full_sync() {
  if (active_) {
    active_->stop();
    if (active_->state()->termination.size() > 0)
      ctx_.hit(&GitlabProbes::tracker_entry_dropped_by_reset);
    active_.reset();  // Not referenced by any frame: full_sync runs between cycles.
  }
  if (!retired_.empty() && !ctx_.sim.loop().alive(retired_worker_)) retired_.clear();
  const std::uint64_t generation = ctx_.next_generation++;
  ctx_.observe().on_reconciler_reset(generation, /*restart=*/false);
  active_ = std::make_unique<Reconciler>(ctx_, generation);
  WSIM_ASSERT_EQ(active_->state()->generation, generation);
  WSIM_ASSERT(!active_->state()->has_full_sync_run_before);  // A new reconciler starts FULL.
  Reconciler* reconciler = active_.get();
  co_await reconciler->start();
  co_await reconciler->run();
}

Task<void> Agent::worker() {
  if (ctx_.versions.agent_reads_settings()) {
    co_await fetch_prerequisites();
    // MR !1495: initially full interval 0 (a full reconciliation first), partial 10 s.
  }
  EventLoop& loop = ctx_.sim.loop();
  TimeMs next_full_ms = loop.now_ms();
  TimeMs next_partial_ms = loop.now_ms() + ctx_.timers.partial_interval_ms;
  for (;;) {
    const TimeMs wake_ms = std::min(next_full_ms, next_partial_ms);
    if (wake_ms > loop.now_ms()) co_await loop.sleep(wake_ms - loop.now_ms());
    WSIM_ASSERT_GE(loop.now_ms(), wake_ms);
    ++cycles_;
    const bool full_due = loop.now_ms() >= next_full_ms;
    const bool partial_due = loop.now_ms() >= next_partial_ms;
    if (select_cycle(full_due, partial_due, active_ != nullptr, select_) == Cycle::kFull) {
      co_await full_sync();
      next_full_ms = loop.now_ms() + ctx_.timers.full_interval_ms;
      continue;
    }
    WSIM_ASSERT(active_ != nullptr);  // select_cycle picks FULL while there is no reconciler.
    co_await active_->run();
    next_partial_ms = loop.now_ms() + ctx_.timers.partial_interval_ms;
  }
}

}  // namespace wsim::gitlab
