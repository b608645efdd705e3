// Not a port: harness declarations [invented] of values that are upstream's.
//
// GitLab's parameters with a production value and its source, and its amplifiers (sim/run/system.h
// Amplifier; docs/fidelity.md "Amplifiers"). Every default is the production value; the two
// settings that made the S14 races common are amplifiers, drawn by `wsim hunt`.
#include "model/gitlab/run.h"
#include "model/gitlab/system.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {

std::vector<run::Amplifier> GitlabSystem::amplifiers() const {
  std::vector<run::Amplifier> amplifiers = {
      {"gitlab.rails_clock_granularity_ms",
       std::to_string(kRailsClockProductionMs),
       {"1000"},
       "Rails stores timestamps in microseconds, so a user action and a touch in the same "
       "clock tick (a timestamp tie) are all but impossible; a 1 s clock makes them common "
       "(docs/systems/gitlab.md §9.3)",
       "PostgreSQL timestamp(6) columns of the workspaces table (microseconds); 1 ms is the "
       "model's finest time unit"},
      {"gitlab.rails_touch_gap_max_ms",
       std::to_string(kRailsTouchGapProductionMs),
       {"2000"},
       "the finder's SELECT and touch_all run milliseconds apart in one Rails request, so a user "
       "action between them is rare; a gap of up to 2 s makes the swallowed-action race common "
       "(docs/systems/gitlab.md §9.3)",
       "[reconstructed] one reconcile request: find, build the response, touch_all "
       "(ee/lib/remote_development reconcile service), a few to tens of milliseconds"},
  };
  // sim/run/system.h Amplifier: a `--set` key of this system, at least one amplified value.
  for (const run::Amplifier& amplifier : amplifiers) {
    WSIM_ASSERT(amplifier.name.rfind("gitlab.", 0) == 0);
    WSIM_ASSERT(!amplifier.amplified.empty());
  }
  return amplifiers;
}

std::vector<run::ParameterInfo> GitlabSystem::parameters() const {
  return {
      {"gitlab.partial_interval_ms", "10s",
       "agentk config remote_development.partial_sync_interval default 10s; R2+ "
       "settings partial_reconciliation_interval_seconds 10"},
      {"gitlab.full_interval_ms", "1h",
       "agentk config remote_development.full_sync_interval default 1h; R2+ "
       "settings full_reconciliation_interval_seconds 3600"},
      {"gitlab.rails_clock_granularity_ms", std::to_string(kRailsClockProductionMs) + "ms",
       "Rails timestamps are microseconds (timestamp(6)); 1 ms is the model's finest unit "
       "(amplifier)"},
      {"gitlab.rails_touch_gap_max_ms", std::to_string(kRailsTouchGapProductionMs) + "ms",
       "[reconstructed] finder SELECT → touch_all inside one Rails request (amplifier)"},
      {"agent informer resync", "5m",
       "[invented] agentk's informer has no resync upstream; "
       "a periodic re-delivery of unchanged Deployments only"},
      {"agent ⇄ Rails latency", "1ms..50ms", "[invented] one HTTPS round trip inside a region"},
      {"agent ⇄ Rails request timeout", "30s", "[invented] the agent's HTTP client deadline"},
      {"R3 max_active_hours_before_stop", "36", "R3 DefaultSettings"},
      {"R3 max_stopped_hours_before_termination", "744", "R3 DefaultSettings"},
      {"R2 max_hours_before_termination", "120", "[invented] not read in R3 settings"},
  };
}

}  // namespace wsim::gitlab
