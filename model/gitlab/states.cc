// Workspace state names, identical strings in R0..R3 `States` (docs/systems/gitlab.md §3).
#include "model/gitlab/states.h"

#include <array>
#include <utility>

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

constexpr std::array<std::pair<State, std::string_view>, 11> kNames = {{
    {State::kCreationRequested, "CreationRequested"},
    {State::kStarting, "Starting"},
    {State::kRestartRequested, "RestartRequested"},
    {State::kRunning, "Running"},
    {State::kStopping, "Stopping"},
    {State::kStopped, "Stopped"},
    {State::kTerminating, "Terminating"},
    {State::kTerminated, "Terminated"},
    {State::kFailed, "Failed"},
    {State::kError, "Error"},
    {State::kUnknown, "Unknown"},
}};

}  // namespace

std::string_view state_name(State state) {
  for (const auto& [value, name] : kNames) {
    if (value == state) return name;
  }
  WSIM_ASSERT_MSG(false, "state " << static_cast<int>(state) << " has no name");
  return "?";
}

std::optional<State> parse_state(std::string_view text) {
  for (const auto& [value, name] : kNames) {
    if (name != text) continue;
    WSIM_ASSERT_EQ(state_name(value), text);  // The inverse of state_name.
    return value;
  }
  return std::nullopt;
}

bool is_valid_desired(State state) {
  // A State outside the enum is a corrupted value, not an invalid state (S1 judges those).
  WSIM_ASSERT_LE(static_cast<int>(state), static_cast<int>(State::kUnknown));
  return state == State::kRunning || state == State::kRestartRequested ||
         state == State::kStopped || state == State::kTerminated;
}

bool is_valid_actual(State state) {
  WSIM_ASSERT_LE(static_cast<int>(state), static_cast<int>(State::kUnknown));
  return state != State::kRestartRequested;
}

std::string_view progress_name(TerminationProgress progress) {
  switch (progress) {
    case TerminationProgress::kNone:
      return "";
    case TerminationProgress::kTerminating:
      return "Terminating";
    case TerminationProgress::kTerminated:
      return "Terminated";
  }
  WSIM_ASSERT_MSG(false, "termination progress " << static_cast<int>(progress) << " has no name");
  return "?";
}

}  // namespace wsim::gitlab
