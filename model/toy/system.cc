// Not a port: the toy system (system.h) [invented]: its axes, invariants, actions, config
// normalisation and the factory of ToyRun (run.h).
#include "model/toy/system.h"

#include "model/toy/run.h"
#include "sim/core/assert.h"
#include "sim/run/world_oracles.h"

namespace wsim::toy {

// ---- ToySystem -----------------------------------------------------------------------------

std::string ToySystem::description() const {
  return "toy: randomized actors over the fake Kubernetes API (counters, deployments, namespace "
         "deletion); version buggy plants a lost update (the canary)";
}

std::vector<run::VersionAxis> ToySystem::axes() const {
  return {run::VersionAxis{"version", {kVersionBuggy, kVersionT1}, kVersionT1}};
}

std::vector<run::InvariantInfo> ToySystem::invariants() const {
  return run::with_world_invariants({
      {"toy.S1", run::InvariantKind::kSafety, "a counter (one object, by uid) never decreases",
       "optimistic concurrency on resourceVersion; planted lost update in version buggy"},
      {"toy.S2", run::InvariantKind::kSafety,
       "every counter keeps the label app.kubernetes.io/managed-by=toy",
       "merge patches keep keys they do not name"},
      {"toy.L1", run::InvariantKind::kLiveness,
       "after heal every namespace exists, is Active and holds all its counters",
       "docs/architecture.md §5 heal-then-converge"},
  });
}

std::vector<run::ActionInfo> ToySystem::actions() const {
  return {
      {"kubectl", "delete_namespace", "delete namespace <target> (toy-N)"},
      {"kubectl", "delete_counter", "delete counter <target> (toy-N/counter-M)"},
      {"user", "increment", "increment counter <target> (toy-N/counter-M) once"},
      {"toy", "crash_actor", "restart random actor <target> (actor-N) at once"},
  };
}

bool ToySystem::normalize(proto::Scenario& scenario, std::string& error) const {
  proto::ToyConfig* config = scenario.mutable_toy();
  if (config->version().empty()) config->set_version(kVersionT1);
  if (config->version() != kVersionT1 && config->version() != kVersionBuggy) {
    error = "version \"" + config->version().substr(0, 64) + "\" is not one of: buggy, T1";
    return false;
  }
  if (config->namespaces() == 0) config->set_namespaces(3);
  if (config->actors() == 0) config->set_actors(3);
  if (config->counters() == 0) config->set_counters(1);
  if (config->namespaces() > 8) {
    error = "namespaces " + std::to_string(config->namespaces()) + " is out of range 1..8";
    return false;
  }
  if (config->actors() > 8) {
    error = "actors " + std::to_string(config->actors()) + " is out of range 1..8";
    return false;
  }
  if (config->counters() > 4) {
    error = "counters " + std::to_string(config->counters()) + " is out of range 1..4";
    return false;
  }
  return true;
}

std::unique_ptr<run::SystemRun> ToySystem::create(Sim& sim, const proto::Scenario& scenario) const {
  WSIM_ASSERT(scenario.has_toy());
  ToyOptions options;
  options.buggy = scenario.toy().version() == kVersionBuggy;
  options.namespaces = static_cast<int>(scenario.toy().namespaces());
  options.actors = static_cast<int>(scenario.toy().actors());
  options.counters = static_cast<int>(scenario.toy().counters());
  options.scripted_only = scenario.scripted_only();
  return std::make_unique<ToyRun>(sim, options);
}

}  // namespace wsim::toy
