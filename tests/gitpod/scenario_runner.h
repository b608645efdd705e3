// Test helper: runs a Gitpod scenario through GitpodRun the way the run layer's driver does
// (docs/architecture.md §5): fault overrides → swarm (unless scripted_only) → start → scripted
// events at their times → fault phase → heal → settle → liveness. Safety is checked after every
// event. With `keep_going`, safety violations are collected and the run continues (to see what else
// breaks after the first violation).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/core/trace.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/system.h"

namespace wsim::gitpod::testing {

struct Outcome {
  proto::Verdict verdict = proto::PASS;
  std::optional<run::Violation> violation;  // The deciding one.
  std::vector<run::Violation> safety;       // Every safety violation (keep_going).
  std::vector<run::Violation> liveness;
  std::string state;
  std::vector<TraceEvent> trace;
  std::uint64_t fingerprint = 0;
  std::string describe() const;                  // Verdict, violations, state (for failures).
  bool has(const std::string& invariant) const;  // In safety or liveness.
};

// REQUIRES: scenario.has_gitpod(). Normalises a copy of it.
Outcome run_gitpod(proto::Scenario scenario, bool keep_going = false);

// As run_gitpod, with `setup` called once the run has started (before any scripted event), e.g.
// to schedule a test's own step that writes through the world's API like an external actor.
Outcome run_gitpod_with(proto::Scenario scenario, bool keep_going,
                        const std::function<void(Sim&, run::SystemRun&)>& setup);

// Parses a text-format scenario (ADD_FAILURE on a parse error).
proto::Scenario parse_scenario_text(const std::string& text);
proto::Scenario load_scenario(const std::string& path);

// The expectation that applies to the scenario's config (first whose `when` all match).
std::optional<proto::Expectation> expectation_for(const proto::Scenario& scenario);

}  // namespace wsim::gitpod::testing
