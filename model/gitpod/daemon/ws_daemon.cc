// Upstream: gitpod-io/gitpod @ 4f45d02eac95
// components/ws-daemon/pkg/controller/workspace_controller.go and workspace_operations.go (see
// ws_daemon.h; docs/fidelity.md D1–D13).
#include "model/gitpod/daemon/ws_daemon.h"

#include "model/gitpod/conditions.h"
#include "model/gitpod/names.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"
#include "sim/kube/retry.h"

namespace wsim::gitpod {
namespace {

constexpr const char* kFaultBackupFailure = "gitpod.daemon.backup_failure";
constexpr const char* kFaultInitFailure = "gitpod.daemon.init_failure";
constexpr int kWorkers = 4;

// workspace_controller.go retryParams: wait.Backoff{Steps: 10, Duration: 10ms, Factor: 2,
// Jitter: 0.2}.
kube::Backoff retry_params() { return kube::Backoff(10, 10, 2.0, 0.2); }

}  // namespace

const char* rpc_code_name(RpcCode code) {
  switch (code) {
    case RpcCode::kOk:
      return "OK";
    case RpcCode::kUnavailable:
      return "Unavailable";
    case RpcCode::kNotFound:
      return "NotFound";
    case RpcCode::kDataLoss:
      return "DataLoss";
    case RpcCode::kFailedPrecondition:
      return "FailedPrecondition";
    case RpcCode::kInternal:
      return "Internal";
  }
  WSIM_ASSERT_MSG(false, "rpc code " << static_cast<int>(code) << " has no name");
  return "?";
}

WsDaemon::WsDaemon(GitpodWorld& world, std::string node)
    : world_(world),
      node_(std::move(node)),
      client_(world.sim(), world.api(), "ws-daemon/" + node_),
      stream_(world.sim().stream("gitpod.daemon")) {
  WSIM_ASSERT(!node_.empty());
  Faults& faults = world.sim().faults();
  backup_fault_ =
      faults.declare(kFaultBackupFailure, "ws-daemon fails to upload a backup", {1, 4}, {1, 10});
  crash_fault_ = faults.declare("gitpod.daemon.crash_mid_delete",
                                "ws-daemon crashes while deleting local content", {1, 6}, {1, 4});
  wipe_fault_ = faults.declare("gitpod.daemon.wipe_failure", "ws-daemon fails to wipe a session",
                               {1, 6}, {1, 4});
  init_fault_ = faults.declare(kFaultInitFailure, "ws-daemon content init fails", {1, 8}, {1, 20});
}

WsDaemon::~WsDaemon() { stop(); }

DurationMs WsDaemon::draw_ms(DurationMs lo_ms, DurationMs hi_ms) {
  WSIM_ASSERT_LE(lo_ms, hi_ms);
  return stream_.range(lo_ms, hi_ms);
}

void WsDaemon::start() {
  if (up_) return;
  up_ = true;
  world_.sim().record(actor(), "start", "", "ok");
  if (!world_.versions().mk2()) return;  // mk1: RPCs only.
  queue_ = std::make_shared<WorkQueue>(world_.sim());
  kube::InformerOptions options;
  options.identity = actor();
  options.kind = kWorkspaceKind;
  options.namespace_ = kNamespace;
  options.trace_changes = false;
  informer_ = std::make_unique<kube::Informer>(world_.sim(), world_.api(), options);
  std::shared_ptr<WorkQueue> queue = queue_;
  const std::string node = node_;
  // §5.1: create/update events of CRs on this node; delete events are ignored.
  informer_->on_change([queue, node](const kube::Object& ws, bool deleted) {
    if (!deleted && ws.status_or(kStatusNodeName, "") == node) queue->add(ws.meta.name);
  });
  informer_->start();
  client_.share(kWorkspaceKind, informer_.get());
  for (int i = 0; i < kWorkers; ++i) {
    actors_.push_back(world_.sim().loop().spawn(actor() + "/worker", worker(queue_)));
  }
  WSIM_ASSERT_EQ(actors_.size(), static_cast<std::size_t>(kWorkers));  // stop() cleared them.
}

void WsDaemon::stop() {
  if (!up_) return;
  up_ = false;
  const RpcReply gone{RpcCode::kUnavailable, "ws-daemon went away"};
  for (auto& [instance, disposal] : disposals_) {  // The process and its handlers go with it.
    world_.sim().loop().cancel(disposal.actor);
    OneShot<RpcReply> reply = disposal.reply;
    if (!reply.ready()) reply.set(gone);
  }
  disposals_.clear();
  std::vector<std::string> waiting;
  for (const auto& [instance, waiters] : waiters_) waiting.push_back(instance);
  for (const std::string& instance : waiting) wake_waiters(instance, gone);
  WSIM_ASSERT(waiters_.empty());
  world_.sim().record(actor(), "stop", "", "ok");
  for (ActorId id : actors_) world_.sim().loop().cancel(id);
  actors_.clear();
  if (queue_) queue_->shutdown();
  queue_.reset();
  client_.share(kWorkspaceKind, nullptr);
  if (informer_) informer_->stop();
  informer_.reset();
}

Task<void> WsDaemon::worker(std::shared_ptr<WorkQueue> queue) {
  if (informer_) co_await informer_->wait_synced();
  while (true) {
    std::optional<std::string> key = co_await queue->next();
    if (!key.has_value()) co_return;
    WSIM_ASSERT(!key->empty());
    const ReconcileResult result = co_await reconcile(*key);
    queue->finish(*key, result);
  }
}

Task<ReconcileResult> WsDaemon::reconcile(std::string name) {
  WSIM_ASSERT(!name.empty());
  if (!informer_) co_return ReconcileResult::done();
  // A const view; copied only when this daemon acts on it (every daemon sees every workspace).
  kube::Informer::ObjectView cached = informer_->get_shared(kNamespace, name);
  if (!cached || cached->status_or(kStatusNodeName, "") != node_) {
    co_return ReconcileResult::done();
  }
  WSIM_ASSERT_EQ(cached->meta.name, name);
  const std::string p = phase(*cached);
  if (p == kPhaseCreating || p == kPhaseInitializing) {
    if (cond_present(*cached, kCondContentReady)) co_return ReconcileResult::done();
    co_return co_await init_content(kube::Object(*cached));
  }
  if (p == kPhaseStopping) co_return co_await handle_stop(kube::Object(*cached));
  co_return ReconcileResult::done();
}

Task<bool> WsDaemon::refresh(const kube::Object& ws) {
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  kube::Object copy = ws;
  set_cond(copy, kCondRefresh, true, "", "", world_.sim().now_ms());
  kube::Result<kube::Object> r = co_await client_.update(copy, kube::Subresource::kStatus);
  co_return r.ok();
}

Task<kube::Status> WsDaemon::set_condition_once(std::string name, std::string type, bool status,
                                                std::string reason, std::string message) {
  kube::Result<kube::Object> got =
      co_await client_.get(kube::ObjectRef(kWorkspaceKind, kNamespace, name));
  if (!got.ok()) co_return got.status;
  WSIM_ASSERT_EQ(got.value.meta.name, name);
  set_cond(got.value, type, status, reason, message, world_.sim().now_ms());
  kube::Result<kube::Object> r =
      co_await client_.update(std::move(got.value), kube::Subresource::kStatus);
  co_return r.status;
}

Task<bool> WsDaemon::write_condition(std::string name, std::string type, bool status,
                                     std::string reason, std::string message) {
  WSIM_ASSERT(!name.empty());
  WSIM_ASSERT(!type.empty());
  // Named, not temporaries inside the co_await expression (g++ 12, sim/kube/README.md).
  const kube::Backoff backoff = retry_params();
  std::function<Task<kube::Status>()> attempt = [this, name, type, status, reason, message] {
    return set_condition_once(name, type, status, reason, message);
  };
  const kube::Status written =
      co_await kube::retry_on_conflict(world_.sim(), stream_, backoff, attempt);
  if (!written.ok()) {
    world_.sim().record(actor(), "write-condition", name, kube::code_name(written.code),
                        type + " not written");
  }
  co_return written.ok();
}

// §5.2 Creating / Initializing.
Task<ReconcileResult> WsDaemon::init_content(kube::Object ws) {
  // reconcile() routes here only a workspace of this node, Creating or Initializing, whose
  // content is not yet ready.
  WSIM_ASSERT_EQ(ws.status_view(kStatusNodeName), node_);
  WSIM_ASSERT(phase(ws) == kPhaseCreating || phase(ws) == kPhaseInitializing);
  WSIM_ASSERT(!cond_present(ws, kCondContentReady));
  if (!co_await refresh(ws)) co_return ReconcileResult::after(100);
  const std::string instance = ws.meta.name;
  const std::string workspace = workspace_id(ws);
  co_await world_.sim().loop().sleep(draw_ms(500, 5000));
  // ws-daemon InitWorkspace (pkg/controller/workspace_operations.go@4f45d02eac95 :133-197):
  // WorkspaceProvider.NewWorkspace (workspace_provider.go :35-57) has no existence check (mk1's
  // Store.NewWorkspace and its ErrAlreadyExists were removed by #17924, c4f9a428aa);
  // ensureCleanSlate (:178, :392-409) removes everything in the location; RunInitializer (:183)
  // restores the last backup or runs the initializer; Persist (:189) writes the state file.
  // Before #17002 (b84a256400, so at 2cfe264c1236^ too) the initializer's own clean slate did
  // the same (content/initializer.go RunInitializerChild → InitializeWorkspace WithCleanSlate).
  // handleWorkspaceInit (workspace_controller.go :169) calls it whenever ContentReady is absent,
  // so a ContentReady write that failed after a successful init (or a crash before it) makes
  // the next reconcile wipe what the user wrote since the first init: "content re-initialized".
  const Session* existing = world_.content().session(node_, instance);
  if (existing != nullptr && existing->state_file && !world_.versions().has(Fix::k16622)) {
    // Before #16823 (c64c4f3530, 2023-03-23; modelled as the versions without #16622, merged
    // 2023-03-02) InitWorkspaceContent went through mk1's session store: Store.NewWorkspace
    // answered ErrAlreadyExists for a known session and handleWorkspaceInit returned at once,
    // without writing ContentReady (workspace_operations.go and workspace_controller.go @
    // c64c4f3530^ :96-98, :165-167): the content stays, ContentReady never comes.
    world_.sim().record(actor(), "init", instance, "ok",
                        "already initialized, version " + std::to_string(existing->version));
    co_return ReconcileResult::done();
  }
  const std::int64_t wiped_version = existing != nullptr ? existing->version : 0;
  WSIM_ASSERT_GE(wiped_version, 0);  // Content versions only count up (world/content.h).
  if (existing != nullptr) {
    world_.content().destroy_session(node_, instance, DestroyCause::kReinit);  // ensureCleanSlate
  }
  const bool failed = world_.sim().faults().fires(init_fault_, stream_);  // RunInitializer.
  if (!failed) {
    Session& session = world_.content().create_session(node_, instance, workspace);
    session.initialized = true;
    world_.sim().record(
        actor(), "init", instance, "ok",
        "version " + std::to_string(session.version) +
            (existing != nullptr ? ", clean slate over version " + std::to_string(wiped_version)
                                 : std::string()));
    WSIM_ASSERT(world_.content().session(node_, instance) != nullptr);
  }
  // The supervisor reports ready once the content is on disk (the initializer's ready file),
  // whether or not ContentReady reaches the CR.
  if (!failed) world_.content_initialized(node_, instance);
  if (!failed && crash_after_init_ms_.has_value()) {
    crash_and_restart(*crash_after_init_ms_);
    crash_after_init_ms_.reset();
    // The process is gone: nothing after this point runs. (Returning instead of relying on the
    // next await: the Get of the ContentReady write now reads the cache without suspending, so
    // the Update would be sent before the crash lands.)
    co_return ReconcileResult::done();
  }
  // No conditional expressions around co_await: g++ 12 mis-destroys their temporaries.
  bool written = false;
  if (failed) {
    written = co_await write_condition(instance, kCondContentReady, false, kReasonInitFailure,
                                       "content initializer failed");
  } else {
    written = co_await write_condition(instance, kCondContentReady, true, kReasonInitSuccess, "");
  }
  co_return written ? ReconcileResult::done() : ReconcileResult::failed();
}

Task<ReconcileResult> WsDaemon::handle_stop(kube::Object ws) {
  WSIM_ASSERT(phase(ws) == kPhaseStopping);                // reconcile() routes only Stopping here.
  WSIM_ASSERT_EQ(ws.status_view(kStatusNodeName), node_);  // Of this node only.
  if (world_.versions().has(Fix::k20243) && cond_true(ws, kCondPodRejected)) {
    co_return co_await wipe(std::move(ws));
  }
  co_return co_await backup(std::move(ws));
}

// §5.3: stop path A, wipe.
Task<ReconcileResult> WsDaemon::wipe(kube::Object ws) {
  WSIM_ASSERT(world_.versions().has(Fix::k20243));  // Path A exists since #20243 only.
  WSIM_ASSERT(cond_true(ws, kCondPodRejected));     // handle_stop's route to path A.
  if (cond_present(ws, kCondStateWiped)) co_return ReconcileResult::done();
  if (cond_true(ws, kCondContainerRunning)) co_return ReconcileResult::after(500);
  if (!co_await refresh(ws)) co_return ReconcileResult::after(100);
  const std::string instance = ws.meta.name;
  const bool wiped = co_await wipe_content(instance);
  ++wipes_;
  // doWipeWorkspace: a failed wipe writes StateWiped=False and returns the error (the retry then
  // stops at step 1 if the write landed: presence counts, B10); a successful wipe writes
  // StateWiped=True and returns success even when that write failed (logged, no requeue).
  if (!wiped) {
    co_await write_condition(instance, kCondStateWiped, false, "WipeFailed",
                             "cannot wipe workspace state");
    co_return ReconcileResult::failed();
  }
  co_await write_condition(instance, kCondStateWiped, true, "", "");
  co_return ReconcileResult::done();
}

Task<std::optional<ReconcileResult>> WsDaemon::wait_for_container(const kube::Object& ws) {
  if (!world_.versions().has(Fix::k19411) || !cond_true(ws, kCondContainerRunning)) {
    co_return std::nullopt;
  }
  const TimeMs now_ms = world_.sim().now_ms();
  const std::optional<TimeMs> stopping_ms = status_time(ws, kStatusPodStoppingMs);
  // Before #20382 the wait is unbounded (B7).
  if (!world_.versions().has(Fix::k20382) || !stopping_ms.has_value() ||
      now_ms < *stopping_ms + 5 * kMinuteMs) {
    co_return ReconcileResult::after(500);
  }
  // ws-manager stamped podStoppingTime with its own virtual now, which has passed.
  WSIM_ASSERT_LE(*stopping_ms, now_ms);
  const kube::Condition* killed = ws.condition(kCondForceKilledTask);
  if (killed == nullptr) {
    const kube::Status s = world_.cluster().exit_container(
        kube::ObjectRef{"Pod", kNamespace, pod_name(ws.meta.name)}, 137, "SIGKILL by ws-daemon");
    world_.sim().record(actor(), "force-kill", ws.meta.name,
                        s.ok() ? "ok" : kube::code_name(s.code));
    // A failed write returns the error (rate-limited requeue), else Requeue after 2 s.
    const bool written = co_await write_condition(ws.meta.name, kCondForceKilledTask, true, "", "");
    if (!written) co_return ReconcileResult::failed();
    co_return ReconcileResult::after(2000);
  }
  WSIM_ASSERT_LE(killed->last_transition_ms, now_ms);
  if (now_ms < killed->last_transition_ms + 2000) co_return ReconcileResult::after(2000);
  co_return std::nullopt;  // Proceed even though ContainerRunning may still be True.
}

// §5.4: stop path B, backup.
Task<ReconcileResult> WsDaemon::backup(kube::Object ws) {
  WSIM_ASSERT(phase(ws) == kPhaseStopping);  // handle_stop's path B.
  if (world_.versions().has(Fix::k20243)) WSIM_ASSERT(!cond_true(ws, kCondPodRejected));
  if (!cond_true(ws, kCondContentReady)) co_return ReconcileResult::failed();  // Never ready.
  if (cond_true(ws, kCondBackupComplete) || cond_true(ws, kCondBackupFailure)) {
    co_return ReconcileResult::done();
  }
  if (cond_true(ws, kCondAborted) || is_image_build(ws)) co_return ReconcileResult::done();
  std::optional<ReconcileResult> wait = co_await wait_for_container(ws);
  if (wait.has_value()) co_return *wait;
  if (!co_await refresh(ws)) co_return ReconcileResult::after(100);
  const std::string instance = ws.meta.name;
  WSIM_ASSERT(!workspace_id(ws).empty());  // The backup is stored under the workspace id.
  const bool uploaded = co_await upload(instance, workspace_id(ws));
  const bool condition_first = world_.versions().has(Fix::k16997);
  // Before #16997, DisposeWorkspace (workspace_operations.go@2cfe264c1236^ :174-220) returns
  // the upload's error (:192-194) before ws.Dispose (:210): a failed backup keeps the content.
  // B0: a successful one deletes it before the condition is written.
  if (!condition_first && uploaded) co_await delete_content(instance);
  bool written = false;
  if (uploaded) {
    written = co_await write_condition(instance, kCondBackupComplete, true, "", "");
  } else {
    written = co_await write_condition(instance, kCondBackupFailure, true, "BackupFailed",
                                       "cannot upload workspace content");
  }
  if (!condition_first) {
    // Before #16997 the condition write's error is the reconcile's error (retried).
    co_return written ? ReconcileResult::done() : ReconcileResult::failed();
  }
  // #16997+: a failed condition write is only logged; the local content is deleted anyway and
  // the reconcile succeeds (doWorkspaceContentBackup).
  if (!written && world_.settings().daemon_keep_content_until_recorded) {
    // [invented] counterfactual switch of N4 (docs/fidelity.md D13): no release keeps it.
    world_.sim().record(actor(), "backup-condition", instance, "failed", "keeping local content");
    co_return ReconcileResult::failed();
  }
  if (!written) {
    world_.sim().record(actor(), "backup-condition", instance, "failed",
                        "deleting local content anyway");
  }
  // DeleteWorkspace (workspace_operations.go@4f45d02eac95 :280-299) fails when GetAndConnect
  // finds no session ("cannot find workspace"): doWorkspaceContentBackup returns that error
  // (workspace_controller.go :522-526), and the requeued reconcile stops at the condition.
  const bool deleted = co_await delete_content(instance);
  co_return deleted ? ReconcileResult::done() : ReconcileResult::failed();
}

Task<bool> WsDaemon::upload(const std::string& instance, const std::string& workspace_id,
                            std::shared_ptr<const RpcContext> cancelled) {
  WSIM_ASSERT(!instance.empty());
  WSIM_ASSERT(!workspace_id.empty());  // The backup's key in the content store.
  co_await world_.sim().loop().sleep(draw_ms(1000, 10000));
  // BackupWorkspace's GetAndConnect (workspace_operations.go@4f45d02eac95 :237-240; provider.Get
  // @2cfe264c1236^ :175-178) finds only a session with a state file.
  const Session* session = known_session(instance);
  if (session == nullptr || world_.sim().faults().fires(backup_fault_, stream_)) {
    world_.sim().record(actor(), "backup", instance, "failed",
                        session == nullptr ? "no session" : "fault");
    co_return false;
  }
  if (cancelled != nullptr && cancelled->cancelled) {
    // mk1: uploadWorkspaceContent(ctx) with the RPC's context (content/service.go@724ed7a92a^
    // :379): the caller went away, the upload is cancelled.
    world_.sim().record(actor(), "backup", instance, "failed", "context canceled");
    co_return false;
  }
  if (!session->intact && world_.settings().daemon_partial_backup_guard) {
    // [invented] counterfactual switch of B0 (docs/fidelity.md D12): no release refuses this.
    world_.sim().record(actor(), "backup", instance, "failed", "content partially deleted");
    co_return false;
  }
  WSIM_ASSERT(session->state_file);  // known_session() finds sessions with a state file only.
  WSIM_ASSERT_EQ(session->workspace_id, workspace_id);  // The instance's own workspace.
  world_.content().upload(workspace_id, *session);
  ++backups_;
  world_.sim().record(
      actor(), "backup", instance, "ok",
      "version " + std::to_string(session->version) + (session->intact ? "" : " (partial)"));
  co_return true;
}

Task<bool> WsDaemon::delete_content(const std::string& instance) {
  WSIM_ASSERT(!instance.empty());
  Session* session = known_session(instance);
  if (session == nullptr) {
    world_.sim().record(actor(), "delete-content", instance, "failed", "no session");
    co_return false;
  }
  // Workspace.Dispose (session/workspace.go@4f45d02eac95 :106-136; @724ed7a92a^ :200-230): the
  // state file goes first, then the content. A crash from here on leaves content that the
  // restarted ws-daemon cannot find: it never uploads it again.
  session->state_file = false;
  session->intact = false;  // Files are being removed from here on.
  if (crash_restart_ms_.has_value() || world_.sim().faults().fires(crash_fault_, stream_)) {
    crash_and_restart(crash_restart_ms_.value_or(draw_ms(1000, 30000)));
    crash_restart_ms_.reset();
  }
  co_await world_.sim().loop().sleep(draw_ms(100, 2000));
  world_.content().destroy_session(node_, instance, DestroyCause::kDaemonDelete);
  world_.sim().record(actor(), "delete-content", instance, "ok");
  co_return true;
}

Task<bool> WsDaemon::wipe_content(const std::string& instance) {
  WSIM_ASSERT(!instance.empty());
  co_await world_.sim().loop().sleep(draw_ms(100, 1000));
  // WipeWorkspace (workspace_operations.go@4f45d02eac95 :301-308): no session found → success.
  if (known_session(instance) == nullptr) {
    world_.sim().record(actor(), "wipe", instance, "ok", "no session");
    co_return true;
  }
  if (wipe_fail_armed_ || world_.sim().faults().fires(wipe_fault_, stream_)) {
    wipe_fail_armed_ = false;
    world_.sim().record(actor(), "wipe", instance, "failed");
    co_return false;
  }
  world_.content().destroy_session(node_, instance, DestroyCause::kDaemonWipe);
  world_.sim().record(actor(), "wipe", instance, "ok");
  co_return true;
}

void WsDaemon::crash_and_restart(DurationMs restart_after_ms) {
  WSIM_ASSERT_GE(restart_after_ms, 0);  // Scheduled from now, never in the past.
  // From inside a worker: the crash lands after this event; the worker dies at its next await.
  GitpodWorld& world = world_;
  const std::string node = node_;
  world_.sim().record(actor(), "crash", "", "ok",
                      "restart in " + std::to_string(restart_after_ms) + " ms");
  world_.sim().loop().schedule(0, [&world, node] { world.daemon_down(node); });
  world_.sim().loop().schedule(restart_after_ms, [&world, node] { world.daemon_up(node); });
}

bool WsDaemon::has_session(const std::string& instance) const {
  return known_session(instance) != nullptr;
}

Session* WsDaemon::known_session(const std::string& instance) const {
  WSIM_ASSERT(!instance.empty());
  Session* session = world_.content().session(node_, instance);
  return session != nullptr && session->state_file ? session : nullptr;
}

Task<RpcReply> WsDaemon::init_workspace(std::string instance, std::string workspace_id) {
  WSIM_ASSERT(!instance.empty());
  WSIM_ASSERT(!workspace_id.empty());
  if (!up_) co_return RpcReply{RpcCode::kUnavailable, "ws-daemon is down"};
  co_await world_.sim().loop().sleep(draw_ms(500, 5000));
  if (!up_) co_return RpcReply{RpcCode::kUnavailable, "ws-daemon went away"};
  // mk1 InitWorkspace (content/service.go@724ed7a92a^ :179-182): Store.NewWorkspace answers
  // ErrAlreadyExists for a session it knows → AlreadyExists, which the mk1 manager takes as
  // success (manager/monitor.go@724ed7a92a^ :977-979); answered OK here.
  if (known_session(instance) == nullptr) {
    // Content left behind without a state file is not a session: the init runs over it.
    world_.content().destroy_session(node_, instance, DestroyCause::kReinit);
    Session& session = world_.content().create_session(node_, instance, workspace_id);
    session.initialized = true;
  }
  WSIM_ASSERT(known_session(instance) != nullptr);
  world_.content_initialized(node_, instance);
  co_return RpcReply{};
}

Task<RpcReply> WsDaemon::dispose_workspace(std::string instance, bool backup) {
  WSIM_ASSERT(!instance.empty());
  if (!up_) co_return RpcReply{RpcCode::kUnavailable, "ws-daemon is down"};
  // mk1 DisposeWorkspace (components/ws-daemon pkg/content/service.go@724ed7a92a^ :332-416; the
  // same at c8c4c3bda92c :395-480).
  Session* session = known_session(instance);
  if (session == nullptr) co_return RpcReply{RpcCode::kNotFound, "workspace does not exist"};
  // :350: a backup of a session that is not "ready" is refused before anything else; a session
  // marked disposing (by a call that is running, was cancelled, or ran before a ws-daemon
  // restart: the mark is in the state file) is not ready.
  if (backup && session->disposing) {
    co_return RpcReply{RpcCode::kFailedPrecondition, "workspace content was never ready"};
  }
  // :356 Session.WaitOrMarkForDisposal (session/workspace.go@724ed7a92a^ :164-197): a session
  // already disposing makes the call wait on the session's condition variable, which only
  // Dispose signals (a disposal that failed or was cancelled never does: the caller then waits
  // until its deadline, or until ws-daemon goes away). Otherwise it marks the session disposing
  // and persists the mark.
  if (session->disposing) co_return co_await wait_disposed(instance);
  // One disposal per instance at a time: a second call waits above (WaitOrMarkForDisposal).
  WSIM_ASSERT_EQ(disposals_.count(instance), 0u);
  session->disposing = true;
  // The handler runs in ws-daemon, with the RPC's context: when the caller goes away (a
  // ws-manager restart cancels its gRPC calls) the context is cancelled, which the upload sees
  // (:379); the daemon's crash ends the handler.
  auto context = std::make_shared<RpcContext>();
  OneShot<RpcReply> reply(world_.sim().loop());
  const std::string workspace = session->workspace_id;
  auto [it, inserted] = disposals_.emplace(instance, Disposal{kNoActor, reply});
  WSIM_ASSERT(inserted);
  it->second.actor = world_.sim().loop().spawn(
      actor() + "/dispose", dispose_actor(instance, workspace, backup, context, reply));
  CallerGuard guard(context);
  RpcReply result = co_await reply;
  guard.answered = true;
  co_return result;
}

WsDaemon::CallerGuard::~CallerGuard() {
  // The caller's frame is destroyed without an answer: its actor was cancelled (ws-manager
  // restarted), which cancels the RPC's context.
  WSIM_ASSERT(context != nullptr);
  if (!answered) context->cancelled = true;
}

Task<void> WsDaemon::dispose_actor(std::string instance, std::string workspace, bool backup,
                                   std::shared_ptr<RpcContext> context, OneShot<RpcReply> reply) {
  const RpcReply result = co_await dispose_now(instance, workspace, backup, context);
  auto it = disposals_.find(instance);
  WSIM_ASSERT(it != disposals_.end());
  disposals_.erase(it);
  if (!reply.ready()) reply.set(result);
}

Task<RpcReply> WsDaemon::dispose_now(std::string instance, std::string workspace, bool backup,
                                     std::shared_ptr<RpcContext> context) {
  WSIM_ASSERT(context != nullptr);
  WSIM_ASSERT(disposals_.count(instance) > 0);  // dispose_actor runs while its entry exists.
  if (backup) {
    const bool uploaded = co_await upload(instance, workspace, context);
    if (!uploaded) {
      // :379-383: DataLoss; nothing is deleted and the session stays disposing.
      world_.sim().record(actor(), "dispose", instance, "DataLoss", "session stays disposing");
      co_return RpcReply{RpcCode::kDataLoss, "final backup failed"};
    }
  }
  // :387 UpdateGitStatus(ctx) runs git with the RPC's context: cancelled, it fails and the
  // handler returns before store.Delete (:408). [simplified: git status takes no time]
  if (context->cancelled) {
    world_.sim().record(actor(), "dispose", instance, "Internal", "cannot get git status");
    co_return RpcReply{RpcCode::kInternal, "cannot get git status"};
  }
  // store.Delete → Workspace.Dispose: the state file goes, the state becomes disposed and the
  // waiters are woken (done), then the content is removed.
  wake_waiters(instance, RpcReply{});
  co_await delete_content(instance);
  co_return RpcReply{};
}

void WsDaemon::wake_waiters(const std::string& instance, const RpcReply& result) {
  WSIM_ASSERT(!instance.empty());
  auto it = waiters_.find(instance);
  if (it == waiters_.end()) return;
  const std::vector<OneShot<RpcReply>> waiters = std::move(it->second);
  waiters_.erase(it);
  for (OneShot<RpcReply> waiter : waiters) {
    if (!waiter.ready()) waiter.set(result);
  }
}

// A later call waits on the session's condition variable (operatingCondition.Wait, not aware of
// the caller's context). [simplified: the caller's deadline is not modelled; the mk1 manager's
// ContentFinalization deadline (≥ 15 min) times 24 attempts outlasts every run.]
Task<RpcReply> WsDaemon::wait_disposed(std::string instance) {
  WSIM_ASSERT(!instance.empty());
  world_.sim().record(actor(), "dispose", instance, "waiting", "already disposing");
  OneShot<RpcReply> waiter(world_.sim().loop());
  waiters_[instance].push_back(waiter);
  co_return co_await waiter;
}

}  // namespace wsim::gitpod
