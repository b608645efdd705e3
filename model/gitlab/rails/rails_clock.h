// The Rails wall clock, derived from virtual time: `now` truncated to `granularity_ms`.
//
// Real Rails stores microseconds; the default, 1 ms, is the finest unit of virtual time. A coarse
// clock (the amplifier gitlab.rails_clock_granularity_ms, e.g. 1000: docs/fidelity.md
// "Amplifiers") lets a user action and a touch in the same Rails request carry equal timestamps,
// which is what separates R0–R2 (`>=`) from R3 (`>`) in the finder (docs/systems/gitlab.md §4.4,
// §9.3); in production such ties are all but impossible.
#pragma once

#include "sim/core/assert.h"
#include "sim/core/time.h"

namespace wsim::gitlab {

struct RailsClock {
  DurationMs granularity_ms = 1;  // Production (see above).

  // REQUIRES: virtual_now_ms >= 0, granularity_ms > 0.
  TimeMs now(TimeMs virtual_now_ms) const {
    WSIM_ASSERT_GT(granularity_ms, 0);
    WSIM_ASSERT_GE(virtual_now_ms, 0);
    return virtual_now_ms - virtual_now_ms % granularity_ms;
  }
};

}  // namespace wsim::gitlab
