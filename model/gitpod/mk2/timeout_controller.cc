// The mk2 timeout controller: gitpod-io/gitpod @ 4f45d02eac95
// components/ws-manager-mk2/controllers/timeout_controller.go (docs/fidelity.md G18)
// (docs/systems/gitpod.md §4.4).
#include <cstdio>

#include "model/gitpod/conditions.h"
#include "model/gitpod/mk2/manager.h"
#include "model/gitpod/names.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"
#include "sim/kube/retry.h"

namespace wsim::gitpod::mk2 {

TimeoutDeadlines timeout_deadlines(const kube::Object& ws, const ManagerOptions& o) {
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  TimeoutDeadlines out;
  const auto add = [&out](TimeMs from_ms, DurationMs limit_ms, const char* reason) {
    WSIM_ASSERT_LT(out.count, static_cast<int>(out.deadlines.size()));
    WSIM_ASSERT_GT(limit_ms, 0);  // Every timeout of ManagerOptions (or the CR's own) is positive.
    out.deadlines[out.count++] = {from_ms + limit_ms, reason, from_ms};
  };
  const TimeMs created_ms = ws.meta.creation_ms;
  const std::string_view p = ws.status_view(kStatusPhase);  // phase(ws), not copied.
  if (p == kPhasePending) {
    add(created_ms, o.initialization_ms, "initialization");
  } else if (p == kPhaseCreating) {
    add(created_ms, o.total_startup_ms, "creating containers");
  } else if (p == kPhaseInitializing) {
    add(created_ms, o.total_startup_ms, "startup");
  } else if (p == kPhaseRunning) {
    add(created_ms, o.max_lifetime_ms, "maximum lifetime");
    const std::optional<TimeMs> activity_ms = status_time(ws, kStatusLastActivityMs);
    if (!activity_ms.has_value()) {
      // "The workspace is up and running, but the user has never produced any activity": the
      // activity is activityNone, the same words as an inactivity timeout.
      add(created_ms, o.total_startup_ms, "period of inactivity");
    } else if (cond_true(ws, kCondClosed)) {
      add(*activity_ms, o.after_close_ms, "after being closed");
    } else {
      const DurationMs custom_ms = kube::int_field(ws.spec, kSpecTimeoutMs, 0);
      const DurationMs limit_ms = custom_ms > 0 ? custom_ms : o.regular_ms;
      add(*activity_ms, limit_ms, "period of inactivity");
    }
  } else if (p == kPhaseStopping && ws.meta.deletion_ms.has_value()) {
    // Only when the CR itself is being deleted; and even then nothing acts on it (B12).
    if (!cond_true(ws, kCondBackupComplete)) {
      add(*ws.meta.deletion_ms, o.content_finalization_ms, "backup");
    } else {
      add(*ws.meta.deletion_ms, kHourMs, "stopping");
    }
  }
  // Only Running has two timeouts (lifetime and activity); every other phase at most one.
  if (p != kPhaseRunning) WSIM_ASSERT_LE(out.count, 1);
  return out;
}

const char* TimeoutDeadlines::expired(TimeMs now_ms) const {
  WSIM_ASSERT_LE(count, static_cast<int>(deadlines.size()));
  for (int i = 0; i < count; ++i) {
    if (now_ms >= deadlines[i].at_ms) return deadlines[i].reason;
  }
  return "";
}

namespace {

// timeout_controller.go formatDuration: rounded to the minute, "%02dh%02dm".
std::string format_duration(DurationMs d_ms) {
  WSIM_ASSERT_GE(d_ms, 0);
  const DurationMs minutes = (d_ms + kMinuteMs / 2) / kMinuteMs;
  char out[32];
  std::snprintf(out, sizeof(out), "%02lldh%02lldm", static_cast<long long>(minutes / 60),
                static_cast<long long>(minutes % 60));
  return out;
}

}  // namespace

std::string TimeoutDeadlines::message(TimeMs now_ms) const {
  WSIM_ASSERT_LE(count, static_cast<int>(deadlines.size()));
  for (int i = 0; i < count; ++i) {
    const Deadline& d = deadlines[i];
    if (now_ms < d.at_ms) continue;
    return std::string("workspace timed out after ") + d.reason + " (" +
           format_duration(now_ms - d.from_ms) + ") took longer than " +
           format_duration(d.at_ms - d.from_ms);
  }
  return "";
}

std::string expired_timeout(const kube::Object& ws, TimeMs now_ms, const ManagerOptions& o) {
  WSIM_ASSERT_GE(now_ms, 0);
  return timeout_deadlines(ws, o).expired(now_ms);
}

Task<void> Mk2Manager::timeout_worker(std::shared_ptr<WorkQueue> queue) {
  co_await wait_for_caches();
  while (true) {
    std::optional<std::string> key = co_await queue->next();
    if (!key.has_value()) co_return;
    WSIM_ASSERT(!key->empty());
    const ReconcileResult result = co_await reconcile_timeout(*key);
    queue->finish(*key, result);
  }
}

Task<ReconcileResult> Mk2Manager::reconcile_timeout(std::string name) {
  WSIM_ASSERT(!name.empty());
  if (!workspaces_) co_return ReconcileResult::done();
  const TimeoutCheck* check = timeout_check(name);  // The cached CR, as deadlines.
  if (check == nullptr) co_return ReconcileResult::done();
  if (check->timed_out) co_return ReconcileResult::done();  // Never again.
  if (maintenance_) co_return ReconcileResult::after(kMinuteMs);
  const std::string expired = check->deadlines.message(world_.sim().now_ms());
  // A check that is not yet due comes back: RequeueAfter 0 would drop the workspace for good.
  WSIM_ASSERT_GT(options_.timeout_check_ms, 0);
  if (expired.empty()) co_return ReconcileResult::after(options_.timeout_check_ms);
  // retry.RetryOnConflict(retry.DefaultBackoff, Get (cache) → SetCondition(Timeout) →
  // Status().Update); any error, NotFound included, is the reconcile's error.
  // Named, not temporaries inside the co_await expression (g++ 12, sim/kube/README.md).
  const kube::Backoff backoff = kube::default_backoff();
  std::function<Task<kube::Status>()> attempt = [this, name, expired] {
    return set_timeout_once(name, expired);
  };
  const kube::Status s =
      co_await kube::retry_on_conflict(world_.sim(), retry_stream_, backoff, attempt);
  world_.sim().record(kActor, "timeout", name, s.ok() ? "ok" : kube::code_name(s.code), expired);
  co_return s.ok() ? ReconcileResult::done() : ReconcileResult::failed();
}

const Mk2Manager::TimeoutCheck* Mk2Manager::timeout_check(const std::string& name) {
  WSIM_ASSERT(workspaces_ != nullptr);
  if (auto it = timeout_checks_.find(name); it != timeout_checks_.end()) return &it->second;
  const kube::Informer::ObjectView cached = workspaces_->get_shared(kNamespace, name);
  if (!cached) return nullptr;
  WSIM_ASSERT_EQ(cached->meta.name, name);
  TimeoutCheck check;
  check.timed_out = cond_true(*cached, kCondTimeout);
  check.deadlines = timeout_deadlines(*cached, options_);
  return &timeout_checks_.emplace(name, check).first->second;
}

Task<kube::Status> Mk2Manager::set_timeout_once(std::string name, std::string expired) {
  WSIM_ASSERT(!expired.empty());  // reconcile_timeout writes only an expired timeout.
  kube::Result<kube::Object> got =
      co_await client_.get(kube::ObjectRef(kWorkspaceKind, kNamespace, name));
  if (!got.ok()) co_return got.status;
  WSIM_ASSERT_EQ(got.value.meta.name, name);
  set_cond(got.value, kCondTimeout, true, kReasonTimedOut, expired, world_.sim().now_ms());
  kube::Result<kube::Object> r =
      co_await client_.update(std::move(got.value), kube::Subresource::kStatus);
  co_return r.status;
}

}  // namespace wsim::gitpod::mk2
