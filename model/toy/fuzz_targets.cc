// The toy's declarations at the seam (sim/run/system.h): its libFuzzer targets and actor lanes.
#include "model/toy/system.h"

namespace wsim::toy {

std::vector<run::FuzzTarget> ToySystem::fuzz_targets() const {
  std::vector<run::FuzzTarget> targets(2);
  targets[0].name = "toy_canary";
  targets[0].canary = true;
  targets[0].fields = {{"version", "buggy"}};
  targets[0].bugs = {"toy.S1"};
  targets[0].reference = "planted lost update (model/toy/system.h)";
  targets[0].in_ci_gate = true;
  targets[1].name = "toy_guard";
  targets[1].fields = {{"version", "T1"}};
  targets[1].reference = "toy T1 (correct)";
  targets[1].in_ci_gate = true;
  return targets;
}

// The toy's actors think 30 ms at least: a 2 min fault phase is ~360 000 events.
std::vector<std::pair<std::string, std::string>> ToySystem::fast_phase_fields() const {
  return {{"fault_phase_ms", "10s"}};
}

// The toy's actors are plain clients of the fake API: all of them are "users".
std::vector<run::ActorLane> ToySystem::actor_lanes() const {
  return {{"toy", run::ActorRole::kUser}};
}

}  // namespace wsim::toy
