// Not a port: the data oracle [invented] (a model of user content, not upstream code).
//
// The data oracle (docs/architecture.md §4 "Data"; docs/systems/gitpod.md §11.1 S2): "no data loss"
// means the last content version a user wrote is recoverable — from an intact backup in remote
// storage, or from an intact session on a live node whose instance the system still manages (and
// will therefore still back up). When it stops being recoverable, that is a loss:
//   - acknowledged: the loss was made explicit and visible for the instance that wrote last
//     (BackupFailure, Aborted; mk1: the PLIS finalBackupFailure / disposalStatus backupFailure
//     / abort request), reported as gitpod.acknowledged_loss;
//   - silent otherwise, gitpod.no_silent_loss.
// A loss caused by a node deletion (external, the kubectl actor) waits for the marker until the
// instance is no longer managed or the run ends (mk2 #17599 writes BackupFailure *after* the
// node is gone); any other loss is classified at once.
//
// Incremental: causes mark workspace ids dirty; evaluate() looks only at those.
// Single-threaded. Owns no model state; reads ContentStore and asks `managed(instance)`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/gitpod/world/content.h"
#include "sim/core/time.h"

namespace wsim::gitpod {

struct DataLoss {
  std::string workspace_id;
  std::string instance;  // The instance that wrote the lost version.
  std::int64_t lost_version = 0;
  std::string cause;  // destroy_cause_name(), or "orphaned" (instance no longer managed).
  TimeMs at_ms = 0;
  bool acknowledged = false;
  std::string marker;  // The visible marker, when acknowledged.
};

class DataLedger {
 public:
  DataLedger(const ContentStore& content, std::function<bool(const std::string&)> managed);

  // Hooks.
  void on_destroy(DestroyCause cause, const std::string& instance);
  void on_write(const std::string& workspace_id, const std::string& instance);
  void on_unmanaged(const std::string& instance);  // Its CR / pod+PLIS are gone.
  void on_marker(const std::string& instance, const std::string& marker);
  void touch(const std::string& workspace_id) { dirty_.insert(workspace_id); }

  // Re-evaluates the dirty workspace ids; returns the losses classified now (silent or
  // acknowledged), in order.
  std::vector<DataLoss> evaluate(TimeMs now_ms);
  // Nothing dirty and nothing pending: evaluate() would return no loss and change nothing (the
  // per-event caller asks this first, inline, instead of calling evaluate()).
  bool idle() const { return pending_.empty() && dirty_.empty(); }
  // End of the run: every loss still waiting for a marker is silent.
  std::vector<DataLoss> finish(TimeMs now_ms);

  bool recoverable(const std::string& workspace_id) const;
  const std::vector<DataLoss>& losses() const { return losses_; }

 private:
  std::string cause_of(const std::string& workspace_id) const;

  const ContentStore& content_;
  std::function<bool(const std::string&)> managed_;
  std::set<std::string> dirty_;
  std::map<std::string, bool> lost_;                // By workspace id: currently unrecoverable.
  std::map<std::string, std::string> last_writer_;  // Workspace id → instance.
  std::map<std::string, std::string> instance_ws_;  // Instance → workspace id.
  std::map<std::string, std::string> last_cause_;   // Workspace id → cause text.
  std::map<std::string, std::string> markers_;      // Instance → first visible marker.
  std::vector<DataLoss> pending_;                   // Node-deletion losses awaiting a marker.
  std::vector<DataLoss> losses_;                    // Classified.
};

}  // namespace wsim::gitpod
