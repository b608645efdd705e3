// Workspace states, identical strings in R0..R3 `States` (docs/systems/gitlab.md §3).
//
// One enum for desired and actual states; which values are valid where is a predicate (S1).
// The agent only ever interprets desired Terminated and actual Terminated (§3, read A0/A1).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <optional>
#include <string_view>

namespace wsim::gitlab {

enum class State {
  kCreationRequested,  // actual only: row created, agent has not reported yet
  kStarting,           // actual only
  kRestartRequested,   // desired only: flipped to Running once actual Stopped is reported
  kRunning,
  kStopping,  // actual only
  kStopped,
  kTerminating,  // actual only
  kTerminated,
  kFailed,   // actual only: ProgressDeadlineExceeded
  kError,    // actual only: error_details reported (R1+)
  kUnknown,  // actual only: deployment info missing or unparseable
};

std::string_view state_name(State state);
std::optional<State> parse_state(std::string_view text);

// §3 table, column "valid desired?": Running, RestartRequested, Stopped, Terminated.
bool is_valid_desired(State state);
// §3 table, column "valid actual?": everything except RestartRequested.
bool is_valid_actual(State state);

// Wire-only termination progress reported by the agent (§2.2); not a DB state.
enum class TerminationProgress { kNone, kTerminating, kTerminated };
std::string_view progress_name(TerminationProgress progress);

}  // namespace wsim::gitlab
