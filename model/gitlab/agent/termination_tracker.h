// The termination tracker of every agent version (docs/systems/gitlab.md §5.3).
//   A0 (persistedTerminatingWorkspacesTracker): a set of (name, namespace): add/delete/contains.
//      Entries are only added after a successful DeleteNamespace (§5.5 A0) — the limbo bug.
//   A1 (terminationTracker): map (name, namespace) → progress; add overwrites. The stored
//      progress is NOT used to build the report: the request builder recomputes it from the
//      informer every cycle.
//   A2 [reconstructed, MR !1158]: entries also remember whether the current progress was synced to
//      Rails (isReconciled) and synced entries are not re-sent. Two rules (versions.h
//      SyncedFlagRule): kAfterExchange — update_or_set clears the flag when the progress changes,
//      mark_synced after a successful exchange carrying the entry; kOnRepeatedSet — seed 001
//      literally: update_or_set with the stored progress sets the flag.
//   A3 [reconstructed]: as A2, and the progress is decided by the termination handler only.
// One class for all versions: A0 entries simply carry progress Terminating and synced=false.
// Lives as long as one reconciler; a reset drops everything (§9.5).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "model/gitlab/agent/workspace_key.h"
#include "model/gitlab/states.h"
#include "model/gitlab/versions.h"

namespace wsim::gitlab {

class TerminationTracker {
 public:
  struct Entry {
    TerminationProgress progress = TerminationProgress::kTerminating;
    bool synced = false;  // A2+ isReconciled.
  };

  explicit TerminationTracker(SyncedFlagRule rule = SyncedFlagRule::kAfterExchange) : rule_(rule) {}

  // A0/A1 `add`: insert or overwrite; clears the synced flag.
  // REQUIRES: progress != kNone.
  void add(const WorkspaceKey& key, TerminationProgress progress);
  // A2+ `updateOrSet` (see the header comment for the two flag rules).
  void update_or_set(const WorkspaceKey& key, TerminationProgress progress);
  // A2+ (kAfterExchange): the exchange that carried `key` with `progress` succeeded.
  void mark_synced(const WorkspaceKey& key, TerminationProgress progress);
  void erase(const WorkspaceKey& key) { entries_.erase(key); }

  bool contains(const WorkspaceKey& key) const { return entries_.count(key) > 0; }
  std::optional<Entry> find(const WorkspaceKey& key) const;
  bool contains_name(const std::string& name) const;
  const std::map<WorkspaceKey, Entry>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }
  SyncedFlagRule rule() const { return rule_; }

 private:
  SyncedFlagRule rule_;
  std::map<WorkspaceKey, Entry> entries_;
};

}  // namespace wsim::gitlab
