// The termination tracker of every agent version (docs/systems/gitlab.md §5.3), with the two
// A2 synced-flag rules. The contract is in termination_tracker.h.
#include "model/gitlab/agent/termination_tracker.h"

#include "sim/core/assert.h"

namespace wsim::gitlab {

void TerminationTracker::add(const WorkspaceKey& key, TerminationProgress progress) {
  WSIM_ASSERT(progress != TerminationProgress::kNone);
  WSIM_ASSERT(!key.name.empty());
  entries_[key] = Entry{progress, false};
}

void TerminationTracker::update_or_set(const WorkspaceKey& key, TerminationProgress progress) {
  WSIM_ASSERT(progress != TerminationProgress::kNone);
  WSIM_ASSERT(!key.name.empty());
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    entries_.emplace(key, Entry{progress, false});
    return;
  }
  if (it->second.progress != progress) {
    it->second = Entry{progress, false};
    return;
  }
  // Seed 001: "if the incoming progress is equal to the existing progress value in the tracker,
  // then set isReconciled = true".
  if (rule_ == SyncedFlagRule::kOnRepeatedSet) it->second.synced = true;
}

void TerminationTracker::mark_synced(const WorkspaceKey& key, TerminationProgress progress) {
  WSIM_ASSERT(progress != TerminationProgress::kNone);  // The builder never sends kNone.
  WSIM_ASSERT(!key.name.empty());
  if (rule_ != SyncedFlagRule::kAfterExchange) return;
  auto it = entries_.find(key);
  // Only if the progress is still the one that was sent: a change since then must be re-sent.
  if (it != entries_.end() && it->second.progress == progress) it->second.synced = true;
}

std::optional<TerminationTracker::Entry> TerminationTracker::find(const WorkspaceKey& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  WSIM_ASSERT(it->second.progress != TerminationProgress::kNone);  // Pairs with add/update.
  return it->second;
}

bool TerminationTracker::contains_name(const std::string& name) const {
  WSIM_ASSERT(!name.empty());
  for (const auto& [key, entry] : entries_) {
    if (key.name == name) return true;
  }
  return false;
}

}  // namespace wsim::gitlab
