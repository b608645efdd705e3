// The only wall clock of wsim: the time budget and the progress rate of `wsim hunt`.
//
// It lives in cli/, outside the deterministic world (sim/, model/) that scripts/tidy lints, and
// reaches the hunt only as callbacks (run::HuntClock): nothing a run computes can depend on it.
#pragma once

#include <optional>

#include "sim/core/time.h"
#include "sim/search/hunt.h"

namespace wsim::cli {

// A clock started now: elapsed_seconds() counts from here; deadline_reached() turns true once
// `budget_ms` have passed (never, without a budget).
run::HuntClock make_hunt_clock(std::optional<DurationMs> budget_ms);

}  // namespace wsim::cli
