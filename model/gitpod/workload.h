// Not a port: the random workload [invented] (users, faults, upgrades as a swarm).
//
// The random workload of a Gitpod run (docs/systems/gitpod.md §10.2–§10.3): one user per workspace
// id who starts, writes, marks active and stops (normal / immediate / abort) at random times, a
// fault actor (ws-daemon crash and outage, ws-manager restart, node deletion, kubelet rejection of
// a running pod, a node whose kubelet stops posting status for a while — kube.node.not_ready,
// sim/kube/cluster.h — and an operator who deletes the Workspace CR of a workspace stuck in
// Stopping), and the admin's installer upgrade when GitpodConfig.upgrade asks for one.
//
// Every decision is drawn from the "gitpod.workload" / "gitpod.faults" streams; choice 0 is the
// least eventful (a user writes; no fault). The fault actor's events are fault points, so the
// swarm enables a different mix per run and heal() ends them. Inside an incident
// (sim/core/fault.h) users act every 1–10 s and the fault actor steps every 1–5 s on one node
// (the node it drew first in that incident) [invented]: a node's bad minute. Single-threaded.
//
// With a load shape (Settings::live_workspaces > 0, scenario `load`; docs/performance.md) the
// users are residents instead: one actor per slot keeps one workspace alive at a time. A resident
// arrives (within arrival_gap_max_ms), starts a fresh workspace id (ws0, ws1, ... in arrival
// order), acts on it like a classic user for a lifetime drawn in [mean/2, 3·mean/2], stops it
// (normal stop) and leaves; the next resident of the slot arrives within arrival_gap_max_ms.
// So about live_workspaces workspaces live at any time, and the total grows with the run length.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/gitpod/versions.h"
#include "sim/core/sim.h"
#include "sim/core/task.h"

namespace wsim::gitpod {

class GitpodRun;

// Share of the ws-daemon outages that last for good.
inline constexpr Ratio kOutageForGood{1, 3};
// How long a Workspace CR must have been Stopping before the operator fault
// (gitpod.operator.delete_workspace) takes it for stuck and deletes it [invented]: an operator
// reacts to a workspace stuck for minutes, not to one the controller put in Stopping a second ago.
inline constexpr DurationMs kOperatorPatienceMs = 10 * kMinuteMs;

class Workload {
 public:
  Workload(GitpodRun& run, const Settings& settings);

  void start();
  // Users and faults stop acting.
  void heal();
  const std::set<std::string>& crashed_daemons() const { return crashed_daemons_; }
  bool crashed_manager() const { return crashed_manager_; }
  std::vector<std::pair<std::string, std::string>> parameters() const;

 private:
  Task<void> user(std::string workspace_id);
  Task<void> resident(std::size_t slot);
  // Acts as a user on `workspace_id` until `leave_ms` (or heal).
  Task<void> act_until(std::string workspace_id, TimeMs leave_ms);
  // A workspace id the fault actor may hit: a classic user's or a live resident's ("" if none).
  std::string pick_workspace();
  Task<void> faults();
  Task<void> admin();
  void user_step(const std::string& workspace_id);
  void fault_step();
  // The gitpod.daemon.outage fault on `node`: a crashed daemon comes back; otherwise it goes
  // down, and with kOutageForGood it never comes back, not even at heal() [invented]: a node
  // whose ws-daemon pod crash-loops until someone drains it. Liveness must hold regardless
  // (the manager's stopping timeouts; docs/systems/gitpod.md §12).
  void daemon_outage(const std::string& node);
  // The node the fault step acts on: drawn per step, but one per incident inside incidents.
  std::string fault_node(const std::vector<std::string>& nodes);
  // The gitpod.operator.delete_workspace fault: `kubectl delete workspace` of one Workspace CR
  // of the namespace that is in phase Stopping and not yet being deleted (drawn among them in
  // name order; none: nothing) — what operators do to unstick a workspace (docs/systems/gitpod.md
  // §12, B12) [invented as a workload action; the command and its effect are upstream's].
  void operator_delete_workspace();
  // Notes which CRs are in phase Stopping now (stopping_since_ms_).
  void observe_stopping();

  GitpodRun& run_;
  Settings settings_;
  ChoiceStream workload_;
  ChoiceStream faults_;
  FaultId daemon_restart_ = 0;
  FaultId daemon_outage_ = 0;
  FaultId manager_restart_ = 0;
  FaultId node_delete_ = 0;
  FaultId reject_running_ = 0;
  FaultId operator_delete_ = 0;  // Second swarm stream (sim/core/fault.h).
  bool healed_ = false;
  std::set<std::string> crashed_daemons_;  // Down; heal() brings them back.
  // When each Workspace CR was first seen in phase Stopping by a fault step (erased when it is
  // seen in another phase): the operator deletes only a CR stuck there for kOperatorPatienceMs.
  std::map<std::string, TimeMs> stopping_since_ms_;
  std::set<std::string> lost_daemons_;  // Down for good.
  bool crashed_manager_ = false;
  int focus_incident_ = -1;  // The incident focus_node_ belongs to.
  std::string focus_node_;
  std::vector<ActorId> actors_;
  std::vector<std::string> residents_;  // Load shape: the live workspace id of each slot.
  std::uint64_t next_resident_id_ = 0;
};

}  // namespace wsim::gitpod
