// See world_oracles.h.
#include "sim/run/world_oracles.h"

#include <utility>

#include "sim/core/assert.h"

namespace wsim::run {

namespace {

// The message says whose rule broke: a kube.* finding is a bug of the fake world (or of a patch
// planted in it), not of the system under test, and the reader should know before triaging it.
Violation to_violation(kube::ConformanceViolation found) {
  WSIM_ASSERT(!found.invariant_id.empty());  // A stable id, as Sim::record_violation requires.
  return Violation{std::move(found.invariant_id),
                   std::move(found.object),
                   std::move(found.message) +
                       " (a rule of the fake Kubernetes, not of the system under test: "
                       "docs/world-invariants.md)",
                   {}};
}

}  // namespace

std::vector<InvariantInfo> world_invariants() {
  std::vector<InvariantInfo> out;
  for (kube::ConformanceInvariant& rule : kube::ConformanceMonitor::invariants()) {
    WSIM_ASSERT(!rule.id.empty());
    out.push_back({std::move(rule.id),
                   rule.liveness ? InvariantKind::kLiveness : InvariantKind::kSafety,
                   std::move(rule.description), std::move(rule.reference)});
  }
  return out;
}

std::vector<InvariantInfo> with_world_invariants(std::vector<InvariantInfo> system_invariants) {
  const std::size_t own = system_invariants.size();
  for (InvariantInfo& rule : world_invariants()) system_invariants.push_back(std::move(rule));
  WSIM_ASSERT_GT(system_invariants.size(), own);  // The fake world has rules of its own.
  return system_invariants;
}

std::optional<Violation> world_safety_violation(kube::Cluster& cluster) {
  std::optional<kube::ConformanceViolation> found = cluster.conformance().take_safety_violation();
  if (!found) return std::nullopt;
  return to_violation(std::move(*found));
}

void append_world_liveness(kube::Cluster& cluster, std::vector<Violation>& violations) {
  for (kube::ConformanceViolation& found : cluster.conformance().check_liveness()) {
    violations.push_back(to_violation(std::move(found)));
  }
}

}  // namespace wsim::run
