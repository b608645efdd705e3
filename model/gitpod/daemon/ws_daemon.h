// ws-daemon, one per node.
//
// Upstream (gitpod-io/gitpod): mk2 components/ws-daemon/pkg/controller/workspace_controller.go
// (Reconcile, latestWorkspace, handleWorkspaceInit, handleWorkspaceStop, doWipeWorkspace,
// doWorkspaceContentBackup) and workspace_operations.go (InitWorkspace, BackupWorkspace,
// DeleteWorkspace, WipeWorkspace) at 4f45d02eac95, with the pre-fix behaviour of #16997
// (2cfe264c1236^), #19411 (c5ba13cdf28f^) and #20382 (b77f6874929e^); mk1 RPC surface
// (InitWorkspace, DisposeWorkspace) as the mk1 manager at 724ed7a92a^ / c8c4c3bda92c calls it.
// docs/fidelity.md lists every decision point and its test.
//
// Reads go through the manager's cache (controller-runtime mgr.GetClient(), sim/kube
// CachedClient): the Get inside every RetryOnConflict reads the informer, so a lagging cache
// makes the retries conflict. Condition writes use retry.RetryOnConflict(retryParams): 10 steps,
// 10 ms, factor 2, jitter 0.2 (jitter drawn from the "gitpod.daemon" stream).
//
// mk2: a Workspace controller over an informer of Workspace CRs, taking only CRs whose
// status runtime.nodeName is this node, serialised per key by a WorkQueue (§5.1):
//   Creating / Initializing → content init (Refresh write, InitWorkspace, ContentReady) whenever
//     ContentReady is absent; InitWorkspace has no existence check and starts from a clean slate,
//     so an instance that already has content on this node is initialised again and what the
//     user wrote since is gone (upstream handleWorkspaceInit + InitWorkspace @ 4f45d02eac95);
//   Stopping → wipe (PodRejected, #20243) or backup (§5.3, §5.4).
// mk1: InitWorkspace / DisposeWorkspace RPCs answered while the daemon is up; Unavailable when
// it is down. DisposeWorkspace works with the RPC's context: a caller that goes away cancels its
// upload, and the session stays "disposing" (content/service.go @ 724ed7a92a^).
//
// The content lives on the node's disk (ContentStore), not in the daemon: a restart (down+up)
// loses the daemon's in-memory state and its running operations, never the disk. The daemon
// knows a session only while its state file exists (Session::state_file); deleting a session
// removes the state file first (Workspace.Dispose), so a crash mid-delete leaves content that no
// ws-daemon finds again. Every disk step is an interleaving point, so a crash between
// DeleteWorkspace and the condition write (B0) is reachable.
//
// Fault points: gitpod.daemon.backup_failure (an upload fails → BackupFailure),
// gitpod.daemon.init_failure (content init fails → ContentReady=False),
// gitpod.daemon.crash_mid_delete, gitpod.daemon.wipe_failure.
// Not modelled: throttling to 5 concurrent backups, the dispatch loop (§5.5), snapshots, git
// status, image info, log upload, mk1 callers' RPC deadlines.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/gitpod/work_queue.h"
#include "model/gitpod/world/content.h"
#include "sim/core/assert.h"
#include "sim/core/sim.h"
#include "sim/core/sync.h"
#include "sim/kube/cached_client.h"
#include "sim/kube/informer.h"

namespace wsim::gitpod {

class GitpodWorld;

// The answer of an mk1 ws-daemon RPC (gRPC codes the mk1 manager branches on).
enum class RpcCode { kOk, kUnavailable, kNotFound, kDataLoss, kFailedPrecondition, kInternal };
const char* rpc_code_name(RpcCode code);

struct RpcReply {
  RpcCode code = RpcCode::kOk;
  std::string message;
  bool ok() const { return code == RpcCode::kOk; }
};

class WsDaemon {
 public:
  WsDaemon(GitpodWorld& world, std::string node);
  ~WsDaemon();
  WsDaemon(const WsDaemon&) = delete;
  WsDaemon& operator=(const WsDaemon&) = delete;

  const std::string& node() const { return node_; }
  std::string actor() const { return "ws-daemon/" + node_; }
  bool up() const { return up_; }
  // Start (mk2: informer + workers). Idempotent while up.
  void start();
  // Crash / delete: every actor is cancelled, the informer stops; the disk stays.
  void stop();

  // --- mk1 RPCs (§7.7 step 4, §8.4). Unavailable while down. ---
  Task<RpcReply> init_workspace(std::string instance, std::string workspace_id);
  // backup=false: only delete the local content. NotFound if no session exists;
  // FailedPrecondition for a backup of a session already marked disposing. A caller whose actor
  // is cancelled while it waits cancels the RPC's context (its upload fails).
  Task<RpcReply> dispose_workspace(std::string instance, bool backup);
  // ws-daemon knows a session for `instance` (content with a state file) on its node.
  bool has_session(const std::string& instance) const;

  // Scripted: the next wipe of an existing session fails (B10).
  void arm_wipe_failure() { wipe_fail_armed_ = true; }

  // Scripted crash point (buggify-style): the daemon crashes right after DeleteWorkspace started
  // removing files (the B0 window of §5.4 step 8) and restarts `restart_after_ms` later.
  void arm_crash_during_delete(DurationMs restart_after_ms) {
    WSIM_ASSERT_GE(restart_after_ms, 0);
    crash_restart_ms_ = restart_after_ms;
  }
  // Scripted crash point: the daemon crashes right after the next content init created the
  // session, before ContentReady is written (§5.2), and restarts `restart_after_ms` later.
  void arm_crash_after_init(DurationMs restart_after_ms) {
    WSIM_ASSERT_GE(restart_after_ms, 0);
    crash_after_init_ms_ = restart_after_ms;
  }

  std::uint64_t backups() const { return backups_; }
  std::uint64_t wipes() const { return wipes_; }

 private:
  Task<void> worker(std::shared_ptr<WorkQueue> queue);
  Task<ReconcileResult> reconcile(std::string name);
  Task<ReconcileResult> init_content(kube::Object ws);
  Task<ReconcileResult> handle_stop(kube::Object ws);
  Task<ReconcileResult> wipe(kube::Object ws);
  Task<ReconcileResult> backup(kube::Object ws);
  // Waits for the workspace container to stop (#19411 / #20382); nullopt = proceed.
  Task<std::optional<ReconcileResult>> wait_for_container(const kube::Object& ws);
  // Writes the Refresh condition on the cached object; false on Conflict (stale cache).
  Task<bool> refresh(const kube::Object& ws);
  // retry.RetryOnConflict(retryParams, Get (cache) + SetCondition + Status().Update); false when
  // the write failed (logged in the trace).
  Task<bool> write_condition(std::string name, std::string type, bool status, std::string reason,
                             std::string message);
  // One attempt of write_condition.
  Task<kube::Status> set_condition_once(std::string name, std::string type, bool status,
                                        std::string reason, std::string message);
  // The cancellation of an mk1 RPC's context (the caller went away).
  struct RpcContext {
    bool cancelled = false;
  };
  // Lives in the RPC caller's frame: destroyed without an answer (the caller's actor was
  // cancelled), it cancels the context.
  struct CallerGuard {
    explicit CallerGuard(std::shared_ptr<RpcContext> c) : context(std::move(c)) {}
    CallerGuard(const CallerGuard&) = delete;
    CallerGuard& operator=(const CallerGuard&) = delete;
    ~CallerGuard();
    std::shared_ptr<RpcContext> context;
    bool answered = false;
  };
  // The session ws-daemon can find (state file present), or nullptr.
  Session* known_session(const std::string& instance) const;
  // The disk operations (§5.3 step 4, §5.4 steps 6 and 8). Each step is an interleaving point.
  // upload fails when `cancelled` (an mk1 RPC's context) was cancelled during it.
  Task<bool> upload(const std::string& instance, const std::string& workspace_id,
                    std::shared_ptr<const RpcContext> cancelled = nullptr);
  // false: no session found (nothing deleted).
  Task<bool> delete_content(const std::string& instance);
  // dispose_workspace's two halves: the backup and delete of the call that marked the session
  // disposing, and a later call's wait for it (WaitOrMarkForDisposal).
  Task<RpcReply> dispose_now(std::string instance, std::string workspace, bool backup,
                             std::shared_ptr<RpcContext> context);
  Task<RpcReply> wait_disposed(std::string instance);
  Task<void> dispose_actor(std::string instance, std::string workspace, bool backup,
                           std::shared_ptr<RpcContext> context, OneShot<RpcReply> reply);
  void wake_waiters(const std::string& instance, const RpcReply& result);
  Task<bool> wipe_content(const std::string& instance);  // false: the wipe failed.
  DurationMs draw_ms(DurationMs lo_ms, DurationMs hi_ms);

  GitpodWorld& world_;
  std::string node_;
  kube::CachedClient client_;  // Shares informer_ for Workspace reads while up.
  ChoiceStream stream_;
  bool up_ = false;
  std::unique_ptr<kube::Informer> informer_;
  std::shared_ptr<WorkQueue> queue_;
  std::vector<ActorId> actors_;
  // mk1 DisposeWorkspace handlers running, by instance: the handler's actor and its caller's
  // reply (in memory only: stop() cancels them and answers Unavailable).
  struct Disposal {
    ActorId actor = kNoActor;
    OneShot<RpcReply> reply;
  };
  std::map<std::string, Disposal> disposals_;
  // Calls waiting for a session's disposal (the condition variable), by instance.
  std::map<std::string, std::vector<OneShot<RpcReply>>> waiters_;
  void crash_and_restart(DurationMs restart_after_ms);

  FaultId backup_fault_ = 0;
  FaultId crash_fault_ = 0;
  FaultId wipe_fault_ = 0;
  bool wipe_fail_armed_ = false;
  std::optional<DurationMs> crash_restart_ms_;
  std::optional<DurationMs> crash_after_init_ms_;
  FaultId init_fault_ = 0;
  std::uint64_t backups_ = 0;
  std::uint64_t wipes_ = 0;
};

}  // namespace wsim::gitpod
