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

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/cluster.h"
#include "sim/run/system.h"

namespace wsim::toy {

struct ToyOptions {
  bool buggy = false;
  int namespaces = 3;
  int actors = 3;
  int counters = 1;
  bool scripted_only = false;
};

class ToyRun : public run::SystemRun {
 public:
  ToyRun(Sim& sim, ToyOptions options);
  ~ToyRun() override;

  void start() override;
  bool perform(const proto::ScriptedEvent& event, std::string& error) override;
  std::optional<run::Violation> check_safety() override;
  void heal() override;
  std::vector<run::Violation> check_liveness() override;
  std::string describe_state() const override;
  std::vector<std::pair<std::string, std::string>> swarm_parameters() const override;

 private:
  // Operation weights of the random workload, drawn per run (swarm testing of the workload).
  struct Mix {
    DurationMs think_max_ms = 0;
    int increment = 0;
    int relabel = 0;
    int deployment = 0;
    int delete_counter = 0;
    int delete_namespace = 0;
  };
  enum class Op { kIncrement, kRelabel, kDeployment, kDeleteCounter, kDeleteNamespace };

  // Coroutines take only named values or scalars: g++ 12 destroys a brace-initialised temporary
  // passed by value to a coroutine inside a co_await expression twice (see sim/kube/client.cc).
  Task<void> actor(int index);
  Task<void> keeper();
  Task<void> increment(kube::Client client, std::string namespace_, std::string name,
                       ChoiceStream stream);
  Task<void> relabel(kube::Client client, std::string namespace_, std::string name,
                     ChoiceStream stream);
  Task<void> deployment_op(kube::Client client, std::string namespace_, ChoiceStream stream);
  Op pick(ChoiceStream& stream) const;
  std::string namespace_name(int index) const;
  std::string counter_name(int index) const;
  bool valid_namespace(const std::string& name) const;
  bool valid_counter(const std::string& namespace_, const std::string& name) const;
  void restart_actor(int index);

  Sim& sim_;
  ToyOptions options_;
  std::unique_ptr<kube::Cluster> cluster_;
  Mix mix_;
  FaultId crash_fault_ = 0;
  ProbeId probe_conflict_retry_ = 0;
  ProbeId probe_stale_patch_ = 0;
  ProbeId probe_create_forbidden_ = 0;
  ProbeId probe_namespace_recreated_ = 0;
  ProbeId probe_namespace_deleted_with_counters_ = 0;
  ProbeId probe_increment_on_terminating_ = 0;
  ProbeId probe_actor_crash_ = 0;
  ProbeId probe_update_lost_response_ = 0;
  std::vector<ActorId> actors_;
  bool healed_ = false;
  bool started_ = false;
  // Safety monitor: the highest count seen per counter uid, and the resourceVersion last checked.
  std::map<std::string, std::int64_t> high_water_;
  std::uint64_t checked_resource_version_ = 0;
  std::map<std::string, bool> namespace_seen_;  // Namespaces the keeper created at least once.
};

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
