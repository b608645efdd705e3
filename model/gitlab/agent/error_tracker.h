// errorTracker (A0b+; docs/systems/gitlab.md §5.3, agent `error_tracker.go` @ 9743dcf6 and the
// design doc 20230810_tracking_applier_errors.md): map (name, namespace) → {version, err}.
//   - next_version(): `++counter`, monotone over the reconciler's lifetime;
//   - mark_entry_with_version: write {version, nil} unless an entry with a HIGHER version exists;
//   - save_error_if_version / delete_error_if_version: only if the entry has exactly that version;
//   - snapshot(): taken at the start of every cycle; entries with err != nil are reported.
// `watchForLatestErrors` (mark, then drain the async error channel) is done by the reconciler,
// which owns the coroutines; this class is the pure map. Not persisted across reconcilers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "model/gitlab/agent/workspace_key.h"

namespace wsim::gitlab {

class ErrorTracker {
 public:
  struct Entry {
    std::uint64_t version = 0;
    std::optional<std::string> error;
  };
  using Snapshot = std::map<WorkspaceKey, Entry>;

  std::uint64_t next_version() { return ++counter_; }
  void mark_entry_with_version(const WorkspaceKey& key, std::uint64_t version);
  // Returns true if the error was stored.
  bool save_error_if_version(const WorkspaceKey& key, std::uint64_t version, std::string error);
  void delete_error_if_version(const WorkspaceKey& key, std::uint64_t version);
  Snapshot snapshot() const { return entries_; }
  std::optional<Entry> find(const WorkspaceKey& key) const;
  bool has_error(const WorkspaceKey& key) const;
  std::size_t size() const { return entries_.size(); }

 private:
  std::uint64_t counter_ = 0;
  std::map<WorkspaceKey, Entry> entries_;
};

}  // namespace wsim::gitlab
