// Not a port: workspace content as data [invented] (what the data oracle needs).
//
// Workspace content as data (docs/architecture.md §4 "Data"): a version counter per workspace that
// the user bumps while the workspace runs, the sessions holding it on the nodes' disks, and the
// remote storage holding backups.
//
// Invariants kept here (asserted):
//  1. A session's version never decreases; a backup's version is a version some session had.
//  2. latest_written(ws) is the highest version any session of `ws` reached by a user write.
// Destroying a session or overwriting a backup is reported to the Observer (the data-loss
// oracle, invariants/data_ledger.h) *before* it happens, with who did it.
//
// Single-threaded. Not modelled: content size, partial uploads (an upload is atomic: a crash
// before it completes leaves the old backup), the "full" vs snapshot naming (one slot per
// workspace id).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace wsim::gitpod {

struct Session {
  std::string workspace_id;
  std::string instance;
  std::int64_t version = 0;
  // False once DeleteWorkspace started removing files: a backup of it is partial (B0, §5.4).
  bool intact = true;
  bool initialized = false;  // Content init finished (the supervisor may report ready).
  // ws-daemon's session state file (<instance>.workspace.json beside the content) exists. Upstream
  // Workspace.Dispose removes it *before* the content (ws-daemon pkg/internal/session/
  // workspace.go@4f45d02eac95 Dispose :113 before :130; @724ed7a92a^ :207 before :223), and a
  // restarted ws-daemon knows only the sessions that have one (mk2 WorkspaceProvider.GetAndConnect,
  // mk1 NewStore). False: content left on disk that no ws-daemon will find again.
  bool state_file = true;
  // mk1: the state file says "disposing" (Workspace.WaitOrMarkForDisposal persists it before the
  // backup, session/workspace.go@724ed7a92a^ :174-177), so it survives a ws-daemon restart.
  bool disposing = false;
};

struct Backup {
  std::int64_t version = 0;
  bool intact = true;
  std::string instance;  // Which instance uploaded it.
};

enum class DestroyCause {
  kDaemonDelete,  // ws-daemon DeleteWorkspace after a backup (or its failure).
  kDaemonWipe,    // ws-daemon WipeWorkspace (PodRejected).
  kNodeDeleted,   // The node and its disk are gone.
  kOverwrite,     // A backup upload replaced the previous backup.
  kReinit,        // Content init again over an existing location: a clean slate (§5.2).
};
const char* destroy_cause_name(DestroyCause cause);

// Sessions on every node's disk plus remote storage. Disks survive ws-daemon restarts; a node's
// disk goes with the node.
class ContentStore {
 public:
  // Called before a session is destroyed / a backup replaced. `node` is "" for storage.
  using Observer =
      std::function<void(DestroyCause cause, const std::string& node, const std::string& instance)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }

  // --- Disks. ---
  void add_node(const std::string& node);
  bool has_node(const std::string& node) const { return disks_.count(node) > 0; }
  // Content init: a fresh session restored from the latest backup of the workspace.
  // REQUIRES: the instance has no session on `node` (callers wipe an existing one first,
  // DestroyCause::kReinit, or answer "already exists" as mk1's Store.NewWorkspace does).
  Session& create_session(const std::string& node, const std::string& instance,
                          const std::string& workspace_id);
  Session* session(const std::string& node, const std::string& instance);
  const Session* session(const std::string& node, const std::string& instance) const;
  void destroy_session(const std::string& node, const std::string& instance, DestroyCause cause);
  void delete_node(const std::string& node);
  // Every session of a workspace on any node, in (node, instance) order.
  std::vector<std::pair<std::string, const Session*>> sessions_of(
      const std::string& workspace_id) const;

  // --- The user writes (REQUIRES the session exists, is initialized and intact). ---
  std::int64_t write(const std::string& node, const std::string& instance);
  std::int64_t latest_written(const std::string& workspace_id) const;

  // --- Remote storage. ---
  void upload(const std::string& workspace_id, const Session& session);
  std::optional<Backup> backup(const std::string& workspace_id) const;
  std::uint64_t uploads() const { return uploads_; }

  // Workspace ids with content or a backup, sorted.
  std::vector<std::string> workspace_ids() const;

 private:
  using Disk = std::map<std::string, Session>;  // By instance.
  std::map<std::string, Disk> disks_;           // By node.
  // (node, instance) of every session by workspace id: sessions_of() without a scan of every
  // disk (the data-loss oracle asks after every event; quadratic at scale).
  std::map<std::string, std::set<std::pair<std::string, std::string>>> sessions_by_workspace_;
  std::map<std::string, Backup> storage_;  // By workspace id.
  std::map<std::string, std::int64_t> latest_written_;
  std::uint64_t uploads_ = 0;
  Observer observer_;
};

}  // namespace wsim::gitpod
