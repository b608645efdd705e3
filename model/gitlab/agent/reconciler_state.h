// The in-memory state of one agentk reconciler (docs/systems/gitlab.md §5.3, §9.5): the
// trackers and hasFullSyncRunBefore. A full sync or an agent restart replaces it with an empty
// one. Shared (shared_ptr) with the asynchronous apply actors started by this reconciler, which
// may outlive it and still report into its error tracker, as the Go goroutines do.
#pragma once

#include <cstdint>

#include "sim/core/assert.h"

#include "model/gitlab/agent/error_tracker.h"
#include "model/gitlab/agent/persisted_state_tracker.h"
#include "model/gitlab/agent/termination_tracker.h"

namespace wsim::gitlab {

struct ReconcilerState {
  explicit ReconcilerState(std::uint64_t gen, SyncedFlagRule rule)
      : generation(gen), termination(rule) {
    WSIM_ASSERT_GT(generation, 0u);  // AgentContext::next_generation counts from 1.
  }
  std::uint64_t generation;
  bool has_full_sync_run_before = false;
  PersistedStateTracker persisted;
  TerminationTracker termination;
  ErrorTracker errors;  // Unused before A0b.
};

}  // namespace wsim::gitlab
