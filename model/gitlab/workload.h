// The external actors of the GitLab system (docs/systems/gitlab.md §11 "Events"): users acting
// through Rails (create, stop, start, restart, terminate), an admin changing the agent config,
// kubectl (delete namespace, Deployment, inventory ConfigMap), agent restarts / leader changes,
// link partitions, and (each tick, fault point kube.node.not_ready, sim/kube/cluster.h) a node
// whose kubelet stops posting status for a while. The same actions serve scripted scenario events
// (perform) and the random workload (run), which draws from the "gitlab.workload" stream: every
// tick, choice 0 = no action; otherwise one action on one workspace. Users never act on a workspace
// whose desired state is Terminated (the UI offers nothing), so S2 can only be broken by the system
// itself. Single-threaded.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/gitlab/agent/agent.h"
#include "model/gitlab/probes.h"
#include "model/gitlab/rails/rails_service.h"
#include "sim/core/sim.h"
#include "sim/core/task.h"
#include "sim/kube/cluster.h"
#include "sim/run/system.h"

namespace wsim::gitlab {

struct WorkloadOptions {
  std::uint32_t workspaces_max = 3;
  DurationMs tick_ms = 20 * kSecondMs;
  std::uint32_t action_per_mille = 100;
  // After an action, another follows within kBurstGapMaxMs with this chance (repeatedly).
  std::uint32_t burst_per_mille = 0;
  std::string intensity = "quiet";  // The profile name, for the run's first lines.
  // Scenario `load` (docs/performance.md "At scale"): 0 = the classic random workload creates at
  // most workspaces_max workspaces. Otherwise residents keep this many workspaces live: each
  // creates a workspace (ws-L0, ws-L1, ... in arrival order), keeps it for a lifetime drawn in
  // [mean/2, 3·mean/2], terminates it and leaves; the next arrives within arrival_gap_max_ms.
  // The random actions go on (minus their creates) over the live workspaces.
  std::uint32_t live_workspaces = 0;
  DurationMs mean_lifetime_ms = 30 * kMinuteMs;
  DurationMs arrival_gap_max_ms = 60 * kSecondMs;
};

// Gap between the actions of a burst: up to one and a half Rails clock ticks of 1 s, so bursts
// produce timestamp ties and changes between a finder SELECT and its touch.
inline constexpr DurationMs kBurstGapMaxMs = 1500;

class Workload {
 public:
  Workload(Sim& sim, RailsService& rails, kube::Cluster& cluster, Agent& agent, RailsLink& link,
           WorkloadOptions options, const GitlabProbes* probes);

  // Every action, for `wsim list`.
  static std::vector<run::ActionInfo> catalog();

  // Performs one action now. Returns false with `error` for an unknown action or target.
  bool perform(const std::string& actor, const std::string& action, const std::string& target,
               std::string& error);

  // The random workload actor; ends when stop() was called.
  Task<void> run();
  // Load shape: the resident of one slot (spawned by the run per slot); ends when stopped.
  Task<void> resident(std::uint32_t slot);
  void stop() { stopped_ = true; }
  // Hook for the scripted "link lose_next_response" (implemented by the run, which owns the
  // server side of the link).
  void set_lose_next_response(std::function<void()> arm) { lose_next_response_ = std::move(arm); }

 private:
  bool user_action(const std::string& action, const std::string& target, std::string& error);
  bool kubectl_action(const std::string& action, const std::string& target, std::string& error);
  void random_action();
  std::string pick_active_workspace();
  void record(const std::string& actor, const std::string& verb, const std::string& object,
              const std::string& result);

  Sim& sim_;
  RailsService& rails_;
  kube::Cluster& cluster_;
  Agent& agent_;
  RailsLink& link_;
  WorkloadOptions options_;
  const GitlabProbes* probes_;
  ChoiceStream choices_;
  std::uint32_t created_ = 0;
  std::uint32_t residents_arrived_ = 0;
  bool stopped_ = false;
  std::function<void()> lose_next_response_;
};

}  // namespace wsim::gitlab
