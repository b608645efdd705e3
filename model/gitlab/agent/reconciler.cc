// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/agent/reconciler.h"

#include "model/gitlab/agent/applier.h"
#include "model/gitlab/agent/request_builder.h"
#include "model/gitlab/agent/termination_handler.h"
#include "model/gitlab/names.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

kube::InformerOptions informer_options(const AgentContext& ctx) {
  kube::InformerOptions options;
  options.identity = std::string(kAgentIdentity);
  options.kind = "Deployment";
  // §5.2: all namespaces; A3 shared mode watches only the shared namespace (gitlab#519262).
  options.namespace_ = ctx.shared_namespace;
  options.selector.match_labels[std::string(kAgentIdLabel)] = std::string(kAgentId);
  options.resync_ms = 5 * kMinuteMs;
  // Shared mode is A3, which fetched the prerequisites (the shared namespace) before any sync.
  if (ctx.versions.shared()) WSIM_ASSERT(!options.namespace_.empty());
  return options;
}

std::string joined(const std::vector<std::string>& errors) {
  std::string out;
  for (const std::string& error : errors) {
    if (!out.empty()) out += "; ";
    out += error;
  }
  return out;
}

// The errors of one Apply's inventory groups, gathered until the last group's applier ends.
struct ApplyJoin {
  std::size_t pending = 0;          // Groups whose applier has not ended.
  std::vector<std::string> errors;  // In the order the appliers reported them.
};

// watchForLatestErrors' end (error_tracker.go@9743dcf6 :90-105): once every channel is drained,
// save the joined error or delete the entry, if the version still matches. A0a only logs.
void report_apply_errors(AgentContext& ctx, ReconcilerState& state, const WorkspaceKey& key,
                         std::uint64_t version, const std::vector<std::string>& errors) {
  if (!ctx.versions.agent_reports_errors()) return;  // A0a: logged only.
  if (errors.empty()) {
    state.errors.delete_error_if_version(key, version);
  } else {
    state.errors.save_error_if_version(key, version, joined(errors));
  }
  WSIM_ASSERT_GT(version, 0u);  // apply_workspace_changes took one from next_version().
  ctx.observe().on_operation_done(state.generation, key, version, errors.empty());
}

// The asynchronous half of Apply for one inventory group. Agent k8s/client.go@9743dcf6 Apply
// :122-147 starts one cli-utils applier.Run per group (each runs on its own goroutine) before any
// event is read, and combines their event channels; so the groups of one config apply
// concurrently, and the error channel closes when the last applier ends. Each group is its own
// actor here; the one that ends last reports. Holds the state alive: it may outlive its
// reconciler.
Task<void> apply_group_and_join(AgentContext& ctx, std::shared_ptr<ReconcilerState> state,
                                std::shared_ptr<ApplyJoin> join, WorkspaceKey key,
                                std::uint64_t version, InventoryGroup group) {
  std::vector<std::string> errors = co_await apply_group(ctx.k8s.client(), std::move(group));
  join->errors.insert(join->errors.end(), errors.begin(), errors.end());
  WSIM_ASSERT(join->pending > 0);
  if (--join->pending > 0) co_return;
  report_apply_errors(ctx, *state, key, version, join->errors);
}

}  // namespace

Reconciler::Reconciler(AgentContext& ctx, std::uint64_t generation)
    : ctx_(ctx),
      state_(std::make_shared<ReconcilerState>(generation, ctx.versions.synced_flag)),
      informer_(ctx.sim, ctx.api, informer_options(ctx)) {
  // Generations count from 1 (AgentContext::next_generation); the checker keys operations by them.
  WSIM_ASSERT_GT(generation, 0u);
  WSIM_ASSERT_LT(generation, ctx.next_generation);
}

Reconciler::~Reconciler() { informer_.stop(); }

Task<void> Reconciler::start() {
  // Started once, before its first (FULL) cycle (Agent::full_sync).
  WSIM_ASSERT(!state_->has_full_sync_run_before);
  informer_.start();
  co_await informer_.wait_synced();
  WSIM_ASSERT(informer_.synced());  // run() lists the cache: it must hold the initial list.
}

void Reconciler::stop() { informer_.stop(); }

Task<bool> Reconciler::run() {
  const ErrorTracker::Snapshot snapshot =
      ctx_.versions.agent_reports_errors() ? state_->errors.snapshot() : ErrorTracker::Snapshot{};
  BuiltRequest built =
      build_request_from_views(ctx_.versions, informer_.list_shared(), state_->persisted,
                               state_->termination, snapshot, state_->has_full_sync_run_before);
  built.request.request_id = ctx_.next_request_id++;
  WSIM_ASSERT(built.request.endpoint == RailsRequest::Endpoint::kReconcile);
  // §5.1: the first exchange of a reconciler is FULL.
  if (!state_->has_full_sync_run_before)
    WSIM_ASSERT(built.request.update_type == UpdateType::kFull);
  ctx_.observe().on_request_built(state_->generation, built);
  const bool full = built.request.update_type == UpdateType::kFull;
  const net::LinkResult<RailsResponse> result = co_await ctx_.link.call(built.request);
  const bool ok = result.ok() && result.response.http_status == 201;
  ctx_.observe().on_exchange(state_->generation, built.request, ok, result.response);
  if (!ok) {
    ctx_.sim.record("agentk", "reconcile", full ? "full" : "partial", "failed");
    ctx_.observe().on_cycle_done(state_->generation, full, false);
    co_return false;
  }
  for (const auto& [key, progress] : built.sent_progress)
    state_->termination.mark_synced(key, progress);
  process_settings(result.response);
  for (const WorkspaceRailsInfo& info : result.response.workspace_rails_infos) {
    co_await apply_workspace_changes(info, snapshot);
  }
  state_->has_full_sync_run_before = true;
  ctx_.observe().on_cycle_done(state_->generation, full, true);
  co_return true;
}

void Reconciler::process_settings(const RailsResponse& response) {
  // MR !1495 (A3-era agents): apply the intervals fetched from Rails; keep the old ones otherwise.
  if (!ctx_.versions.agent_reads_settings() || !response.settings) return;
  const RailsSettings& settings = *response.settings;
  WSIM_ASSERT_GT(settings.partial_reconciliation_interval_s, 0);
  WSIM_ASSERT_GT(settings.full_reconciliation_interval_s, 0);
  // Rails sends its normalized settings (system.cc check_config: full >= partial).
  WSIM_ASSERT_LE(settings.partial_reconciliation_interval_s,
                 settings.full_reconciliation_interval_s);
  ctx_.timers.partial_interval_ms = settings.partial_reconciliation_interval_s * kSecondMs;
  ctx_.timers.full_interval_ms = settings.full_reconciliation_interval_s * kSecondMs;
}

Task<void> Reconciler::apply_workspace_changes(const WorkspaceRailsInfo& info,
                                               const ErrorTracker::Snapshot& snapshot) {
  WSIM_ASSERT(!info.name.empty());
  WSIM_ASSERT(!info.namespace_.empty());
  ctx_.observe().on_rails_info(state_->generation, info);
  const WorkspaceKey key{info.name, info.namespace_};
  state_->persisted.record_version(info.name, info.deployment_resource_version);
  std::uint64_t version = 0;
  if (ctx_.versions.agent_reports_errors()) {
    auto delivered = snapshot.find(key);
    if (delivered != snapshot.end() && delivered->second.error) {
      // The error reached Rails: this response is the proof (§5.3).
      state_->errors.delete_error_if_version(key, delivered->second.version);
    }
    version = state_->errors.next_version();
    WSIM_ASSERT_GT(version, 0u);
    state_->errors.mark_entry_with_version(key, version);
    ctx_.observe().on_operation_started(state_->generation, key, version);
  }
  if (info.desired_state == State::kTerminated) {
    const std::vector<std::string> errors =
        co_await handle_desired_state_is_terminated(ctx_, *state_, info);
    report(key, version, errors);
    co_return;
  }
  const std::vector<std::string> errors = co_await ensure_namespace_and_apply(info, version);
  if (!errors.empty()) report(key, version, errors);
}

Task<std::vector<std::string>> Reconciler::ensure_namespace_and_apply(
    const WorkspaceRailsInfo& info, std::uint64_t version) {
  // The desired-Terminated path is handle_desired_state_is_terminated (apply_workspace_changes).
  WSIM_ASSERT(info.desired_state != State::kTerminated);
  if (ctx_.versions.agent_reports_errors()) WSIM_ASSERT_GT(version, 0u);
  const WorkspaceKey key{info.name, info.namespace_};
  if (!ctx_.versions.shared()) {
    const NamespaceCheck check = co_await ctx_.k8s.namespace_exists(info.namespace_);
    if (check.error) co_return std::vector<std::string>{*check.error};
    if (!check.exists) {
      ctx_.observe().on_namespace_create(info.name, info.namespace_);
      if (auto error = co_await ctx_.k8s.create_namespace(info.namespace_)) {
        co_return std::vector<std::string>{*error};
      }
    }
  }
  if (info.config_to_apply.empty()) {
    report(key, version, {});
    co_return std::vector<std::string>{};
  }
  Grouping grouping = group_config(info.config_to_apply);
  if (!grouping.errors.empty()) co_return grouping.errors;
  ctx_.observe().on_apply(info.name, info.config_to_apply, /*termination=*/false);
  if (grouping.groups.empty()) {  // Nothing to apply: the combined channel closes at once.
    report_apply_errors(ctx_, *state_, key, version, {});
    co_return std::vector<std::string>{};
  }
  auto join = std::make_shared<ApplyJoin>();
  join->pending = grouping.groups.size();
  WSIM_ASSERT_GT(join->pending, 0u);
  for (InventoryGroup& group : grouping.groups) {
    ctx_.apply_actors.push_back(ctx_.sim.loop().spawn(
        "agentk/apply/" + info.name,
        apply_group_and_join(ctx_, state_, join, key, version, std::move(group))));
  }
  co_return std::vector<std::string>{};
}

void Reconciler::report(const WorkspaceKey& key, std::uint64_t version,
                        const std::vector<std::string>& errors) {
  if (!errors.empty()) {
    ctx_.sim.record("agentk", "error", key.name, "logged", joined(errors));
  }
  if (!ctx_.versions.agent_reports_errors()) return;  // A0a: errors are only logged.
  WSIM_ASSERT_GT(version, 0u);  // apply_workspace_changes took one from next_version().
  if (errors.empty()) {
    state_->errors.delete_error_if_version(key, version);
  } else {
    state_->errors.save_error_if_version(key, version, joined(errors));
  }
  ctx_.observe().on_operation_done(state_->generation, key, version, errors.empty());
}

}  // namespace wsim::gitlab
