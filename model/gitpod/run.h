// Not a port: the run harness around the ports [invented]; the ports cite their upstream files.
//
// GitpodRun: one run of the Gitpod system (run::SystemRun). Wires the world (cluster, content,
// ws-daemons), the ws-manager of the chosen era, the oracle (invariants/checker.h), the random
// workload (workload.h) and the scripted actions (scripted_actions.cc) of docs/systems/gitpod.md
// §10.3:
//
//   user      start | stop | stop_immediate | abort | mark_active | write     target: workspace id
//   kubelet   reject | reject_after_ready                                  target: workspace id
//   kubectl   delete_node | cordon | uncordon | strip_finalizers             target: node / ws id
//   ws-daemon down | up | restart                                  target: node, or "all"
//   manager   restart | down | up | maintenance_on | maintenance_off
//   admin     upgrade_naive | upgrade_drain_first | cordon_cluster | uncordon_cluster | score_zero
//   api       conflict                 target: kind/name, e.g. "Workspace/alice-1"; args times
//   breaker   on | off
//
// A user's workspace id names the content; every start the server accepts makes a new instance
// "<id>-<n>" (the CR, the pod is ws-<instance>). Actions that need the current instance use the
// latest one. The server keeps its own record of each instance's phase, written from ws-manager's
// status stream (ServerInstance below), and starts nothing while the latest one is not `stopped`
// (docs/fidelity.md U1). Single-threaded.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/gitpod/invariants/checker.h"
#include "model/gitpod/versions.h"
#include "model/gitpod/world/manager.h"
#include "model/gitpod/world/world.h"
#include "sim/run/system.h"

namespace wsim::gitpod {

class Workload;

// Parses a normalized GitpodConfig.
Versions versions_of(const proto::GitpodConfig& config);
// Settings of a normalized scenario: its GitpodConfig and its load shape.
Settings settings_of(const proto::Scenario& scenario);

class GitpodRun : public run::SystemRun {
 public:
  GitpodRun(Sim& sim, const proto::Scenario& scenario);
  ~GitpodRun() override;

  void start() override;
  bool perform(const proto::ScriptedEvent& event, std::string& error) override;
  std::optional<run::Violation> check_safety() override;
  void heal() override;
  std::vector<run::Violation> check_liveness() override;
  std::string describe_state() const override;
  kube::ApiServer* api_server() override;
  std::vector<std::pair<std::string, std::string>> swarm_parameters() const override;

  // For tests and the workload.
  GitpodWorld& world() { return *world_; }
  Manager& manager() { return *manager_; }
  Checker& checker() { return *checker_; }
  const Versions& versions() const { return versions_; }
  // The latest instance of a workspace id ("" if never started).
  std::string current_instance(const std::string& workspace_id) const;
  // The Gitpod server's phase of an instance, as ws-manager-bridge last wrote it ("pending" ...
  // "stopped"; "" if the server never created the instance).
  std::string server_phase(const std::string& instance) const;

  // User actions (also used by the workload). Each spawns the user's gRPC call as an actor.
  void user_start(const std::string& workspace_id);
  void user_stop(const std::string& workspace_id, StopPolicy policy);
  void user_mark_active(const std::string& workspace_id);
  bool user_write(const std::string& workspace_id);
  // Admin actions.
  void upgrade(bool drain_first);
  void set_maintenance(bool on);
  // kubectl: remove every finalizer of the workspace's pods (the #13147 clean-up).
  void strip_finalizers(const std::string& instance);
  // kubectl: delete the Workspace CR `instance` (no preconditions, default grace): the scripted
  // `kubectl delete_workspace` and the operator fault (docs/fidelity.md W1) alike.
  void operator_delete_workspace(const std::string& instance);

 private:
  bool perform_user(const std::string& action, const std::string& target, std::string& error);
  bool perform_cluster(const proto::ScriptedEvent& event, std::string& error);
  Task<void> upgrade_actor(bool drain_first);
  Task<void> user_start_actor(StartRequest request);
  Task<void> user_stop_actor(std::string instance, StopPolicy policy);
  Task<void> user_mark_active_actor(std::string instance);
  // ws-manager-bridge: one status of ws-manager's stream (API phase name) onto the server's record.
  void on_manager_status(const std::string& instance, const std::string& api_phase);
  // ws-manager-bridge's controller for one record ws-manager may no longer list.
  void control_instance(const std::string& instance);
  void set_server_phase(const std::string& instance, const std::string& phase);

  Sim& sim_;
  proto::Scenario scenario_;
  Versions versions_;
  Settings settings_;
  std::unique_ptr<GitpodWorld> world_;
  std::unique_ptr<Manager> manager_;
  std::unique_ptr<Checker> checker_;
  std::unique_ptr<Workload> workload_;
  std::map<std::string, int> starts_;  // Workspace id → instances started.
  // The server's record of a workspace instance (the DB's d_b_workspace_instance), reduced to
  // what startWorkspace and the bridge's controller read.
  struct ServerInstance {
    std::string phase;  // The server's names: "pending", "creating", ..., "stopped".
    TimeMs created_ms = 0;
    std::optional<TimeMs> stopping_ms;  // stoppingTime.
  };
  std::map<std::string, ServerInstance> server_;  // Instance → record.
  bool started_ = false;
};

}  // namespace wsim::gitpod
