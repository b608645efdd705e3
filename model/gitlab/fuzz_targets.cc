// Not a port: harness wiring [invented].
//
// GitLab's declarations at the seam (sim/run/system.h): its libFuzzer targets, their short
// phases and the lanes of its actors.
#include "model/gitlab/system.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {

namespace {

run::FuzzTarget limbo_canary() {
  run::FuzzTarget target;
  target.name = "gitlab_limbo_canary";
  target.canary = true;
  target.fields = {{"agent", "A0a"}, {"rails", "R1"}};
  target.bugs = {"gitlab.L1", "gitlab.L2"};
  target.reference = "gitlab#411205 (seed 000): corpus/regressions/gitlab/limbo-411205.textproto";
  target.in_ci_gate = true;
  return target;
}

// The guards keep the known Rails race out of reach (a 1 ms finder-to-touch gap and Rails
// clock): a user action between a finder and its touch, or in the same clock tick, is swallowed
// by the partial protocol in every version (gitlab.S14; corpus swallowed-user-action,
// timestamp-tie, tie-after-full-sync), as in the scenario properties
// (tests/run/scenario_prop_test.cc). Everything else stays in reach.
run::FuzzTarget guard(const std::string& name, const std::string& namespace_mode) {
  WSIM_ASSERT(namespace_mode == "unique" || namespace_mode == "shared");
  run::FuzzTarget target;
  target.name = name;
  target.fields = {{"agent", "A3"},
                   {"rails", "R3"},
                   {"namespace_mode", namespace_mode},
                   {"rails_touch_gap_max_ms", "1"},
                   {"rails_clock_granularity_ms", "1"}};
  return target;
}

}  // namespace

std::vector<run::FuzzTarget> GitlabSystem::fuzz_targets() const {
  run::FuzzTarget unique = guard("gitlab_guard", "unique");
  unique.reference = "latest agent and Rails, unique namespaces";
  unique.in_ci_gate = true;
  // Known bugs of shared mode (kubectl deleting inventory ConfigMaps: gitlab.S11, corpus
  // shared-missing-inventory / shared-partial-inventory-loss) are corpus signatures; they are
  // found within seconds, so the target stays out of the CI gate.
  run::FuzzTarget shared = guard("gitlab_shared_guard", "shared");
  shared.reference = "latest agent and Rails, one shared namespace";
  std::vector<run::FuzzTarget> targets = {limbo_canary(), unique, shared};
  for (const run::FuzzTarget& target : targets) {
    WSIM_ASSERT(target.name.rfind("gitlab_", 0) == 0);     // libFuzzer binary names (STYLE.md §2).
    if (target.canary) WSIM_ASSERT(!target.bugs.empty());  // A canary names the bug it finds.
  }
  return targets;
}

// The targets also shrink the full-sync interval (1 h → 10 min; the settle is 3 full + 10
// partial intervals, so it still spans the FULL cycles L2 needs, and costs a sixth). The guards
// ran with the real 1 h interval until 2026-11-22: with 10 min they had tripped gitlab.L5 in 4
// of 400 seeds, a checker flaw since fixed (eae60cd, corpus/README.md); re-checked with 10 min:
// A3+R3 unique 3,000 runs clean, shared 2,000 runs with only the known S11. 2.2× the
// executions/s.
std::vector<std::pair<std::string, std::string>> GitlabSystem::fast_phase_fields() const {
  return {{"fault_phase_ms", "20m"}, {"full_interval_ms", "10m"}};
}

std::vector<run::ActorLane> GitlabSystem::actor_lanes() const {
  return {{"rails", run::ActorRole::kControlPlane},
          {"gitlab", run::ActorRole::kControlPlane},
          {"agent", run::ActorRole::kAgent},
          {"agentk", run::ActorRole::kAgent}};
}

}  // namespace wsim::gitlab
