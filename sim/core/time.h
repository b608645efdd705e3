// Virtual time. The simulation never reads a wall clock: time is an integer count of virtual
// milliseconds that moves only when the event loop pops the next event (docs/architecture.md §2).
#pragma once

#include <cstdint>

namespace wsim {

// A point in virtual time, in milliseconds since the start of the run.
using TimeMs = std::int64_t;
// A span of virtual time in milliseconds.
using DurationMs = std::int64_t;

inline constexpr DurationMs kSecondMs = 1000;
inline constexpr DurationMs kMinuteMs = 60 * kSecondMs;
inline constexpr DurationMs kHourMs = 60 * kMinuteMs;

}  // namespace wsim
