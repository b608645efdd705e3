// The fake world's own oracles (sim/kube/conformance.h, docs/world-invariants.md) in the run
// layer's terms, for every system whose world is a kube::Cluster: its invariants() append
// world_invariants(), its check_safety() asks world_safety_violation() first and its
// check_liveness() appends world_liveness_violations(). A kube.* finding names a rule of the
// fake Kubernetes that was broken, not a bug of the system under test.
#pragma once

#include <optional>
#include <vector>

#include "sim/kube/cluster.h"
#include "sim/run/system.h"

namespace wsim::run {

// The kube.* invariants, safety first, in id order.
std::vector<InvariantInfo> world_invariants();

// `system_invariants` followed by world_invariants().
std::vector<InvariantInfo> with_world_invariants(std::vector<InvariantInfo> system_invariants);

// The next kube.* safety violation the cluster's monitor saw, if any.
std::optional<Violation> world_safety_violation(kube::Cluster& cluster);

// Appends every kube.* liveness violation (after heal + settle) to `violations`.
void append_world_liveness(kube::Cluster& cluster, std::vector<Violation>& violations);

}  // namespace wsim::run
