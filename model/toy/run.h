// Not a port: the toy is a simulation device [invented].
//
// ToyRun: one run of the toy system (run::SystemRun): the cluster, the actors, the keeper and the
// safety and liveness checks of toy.S1, toy.S2 and toy.L1. system.h describes the world, the
// actors, the versions and the invariants. Single-threaded, runs on the event loop.
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

// The values of the version axis: T1 is correct, buggy plants the lost update (system.h).
inline constexpr const char* kVersionT1 = "T1";
inline constexpr const char* kVersionBuggy = "buggy";

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
  kube::ApiServer* api_server() override { return &cluster_->api(); }
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

}  // namespace wsim::toy
