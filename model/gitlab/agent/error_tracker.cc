// errorTracker (docs/systems/gitlab.md §5.3; agent error_tracker.go@9743dcf6): versioned error
// entries per workspace. The contract is in error_tracker.h.
#include "model/gitlab/agent/error_tracker.h"

#include "sim/core/assert.h"

namespace wsim::gitlab {

void ErrorTracker::mark_entry_with_version(const WorkspaceKey& key, std::uint64_t version) {
  WSIM_ASSERT_GT(version, 0u);
  WSIM_ASSERT_LE(version, counter_);
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.version > version) return;
  entries_[key] = Entry{version, std::nullopt};
  WSIM_ASSERT(!entries_.at(key).error.has_value());
}

bool ErrorTracker::save_error_if_version(const WorkspaceKey& key, std::uint64_t version,
                                         std::string error) {
  WSIM_ASSERT(!error.empty());
  WSIM_ASSERT_GT(version, 0u);
  WSIM_ASSERT_LE(version, counter_);  // Versions come from next_version().
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.version != version) return false;
  it->second.error = std::move(error);
  return true;
}

void ErrorTracker::delete_error_if_version(const WorkspaceKey& key, std::uint64_t version) {
  // Versions come from next_version(), which starts at 1 (pairs with save_error_if_version).
  WSIM_ASSERT_GT(version, 0u);
  WSIM_ASSERT_LE(version, counter_);
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.version == version) entries_.erase(it);
}

std::optional<ErrorTracker::Entry> ErrorTracker::find(const WorkspaceKey& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  WSIM_ASSERT_LE(it->second.version, counter_);
  return it->second;
}

bool ErrorTracker::has_error(const WorkspaceKey& key) const {
  auto it = entries_.find(key);
  if (it != entries_.end()) WSIM_ASSERT_LE(it->second.version, counter_);
  return it != entries_.end() && it->second.error.has_value();
}

}  // namespace wsim::gitlab
