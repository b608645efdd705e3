// Not a port: the toy is a simulation device [invented].
//
// The toy system: randomized actors over the fake Kubernetes API (docs/architecture.md §5
// "canary").
//
// World: namespaces toy-0..toy-(N-1), each with counter ConfigMaps counter-0..counter-(C-1)
// (data "count") and a few Deployments web-0..web-2.
//
// Actors (toy/actor-i), each on its own choice stream, loop during the fault phase: think for a
// while, then one operation —
//   increment a counter  get → count+1 → update with the read resourceVersion; on 409 Conflict
//                        re-read and retry (at most 5 attempts);
//   relabel a counter    merge patch of a label (never conflicts);
//   create / scale / delete a Deployment (replicas 0 or 1; the cluster runs the pods);
//   delete a counter or, rarely, a whole namespace.
// A keeper (toy/keeper) reconciles the desired world every few seconds: it recreates missing
// namespaces (once a Terminating one is gone) and missing counters. It keeps running after heal.
//
// Versions: T1 is correct. `buggy` (test-only: the canary) plants a lost update — on Conflict it
// does not re-read but writes its stale count+1 with a blind merge patch, so a counter can go
// backwards when two other increments landed meanwhile.
//
// Invariants:
//   toy.S1 (safety)   a counter (one object, by uid) never decreases;
//   toy.S2 (safety)   every counter carries the label app.kubernetes.io/managed-by=toy;
//   toy.L1 (liveness) after heal and settle every namespace exists, is Active and holds all of
//                     its counters.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/run/system.h"

namespace wsim::toy {

class ToySystem : public run::System {
 public:
  std::string name() const override { return "toy"; }
  std::string description() const override;
  std::vector<run::VersionAxis> axes() const override;
  std::vector<run::InvariantInfo> invariants() const override;
  std::vector<run::ActionInfo> actions() const override;
  DurationMs default_fault_phase_ms() const override { return 2 * kMinuteMs; }
  // Longer than kube.namespace.slow_termination's longest stretch (5 min): a step delayed just
  // before heal still lands inside the settle time.
  DurationMs default_settle_ms() const override { return 6 * kMinuteMs; }
  bool normalize(proto::Scenario& scenario, std::string& error) const override;
  std::unique_ptr<run::SystemRun> create(Sim& sim, const proto::Scenario& scenario) const override;
  // The seam's declarations (sim/run/system.h): fuzz targets, their short phases, actor lanes.
  std::vector<run::FuzzTarget> fuzz_targets() const override;
  std::vector<std::pair<std::string, std::string>> fast_phase_fields() const override;
  std::vector<run::ActorLane> actor_lanes() const override;
};

}  // namespace wsim::toy
