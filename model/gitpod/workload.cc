// Not a port: see workload.h [invented].
#include "model/gitpod/workload.h"

#include <algorithm>

#include "model/gitpod/names.h"
#include "model/gitpod/run.h"
#include "sim/core/assert.h"

namespace wsim::gitpod {

Workload::Workload(GitpodRun& run, const Settings& settings)
    : run_(run),
      settings_(settings),
      workload_(run.world().sim().stream("gitpod.workload")),
      faults_(run.world().sim().stream("gitpod.faults")) {
  Faults& f = run.world().sim().faults();
  daemon_restart_ =
      f.declare("gitpod.daemon.restart", "a ws-daemon crashes and restarts", {1, 3}, {1, 4});
  daemon_outage_ =
      f.declare("gitpod.daemon.outage", "a ws-daemon is down for minutes", {1, 6}, {1, 8});
  manager_restart_ =
      f.declare("gitpod.manager.restart", "ws-manager restarts (loses memory)", {1, 3}, {1, 4});
  node_delete_ = f.declare("gitpod.node.delete", "kubectl deletes a node", {1, 10}, {1, 20});
  reject_running_ =
      f.declare("gitpod.kubelet.reject_after_ready",
                "the kubelet rejects a running pod (re-admission, #20372)", {1, 6}, {1, 10});
}

void Workload::start() {
  EventLoop& loop = run_.world().sim().loop();
  for (int i = 0; i < settings_.workspaces; ++i) {
    const std::string id = "ws" + std::to_string(i);
    actors_.push_back(loop.spawn("user/" + id, user(id)));
  }
  actors_.push_back(loop.spawn("faults", faults()));
  if (settings_.upgrade != "none") actors_.push_back(loop.spawn("admin", admin()));
}

void Workload::heal() {
  healed_ = true;
  for (ActorId id : actors_) run_.world().sim().loop().cancel(id);
  actors_.clear();
}

std::vector<std::pair<std::string, std::string>> Workload::parameters() const {
  return {{"gitpod.workspaces", std::to_string(settings_.workspaces)},
          {"gitpod.nodes", std::to_string(settings_.nodes)},
          {"gitpod.user_action_interval_ms", std::to_string(settings_.user_action_interval_ms)},
          {"gitpod.breaker", settings_.breaker ? "on" : "off"},
          {"gitpod.upgrade", settings_.upgrade}};
}

Task<void> Workload::user(std::string workspace_id) {
  EventLoop& loop = run_.world().sim().loop();
  run_.user_start(workspace_id);
  const DurationMs mean_ms = settings_.user_action_interval_ms;
  const Faults& faults = run_.world().sim().faults();
  while (!healed_) {
    co_await loop.sleep(faults.in_incident() ? workload_.range(kSecondMs, 10 * kSecondMs)
                                             : faults.until_next_incident(
                                                   workload_.range(mean_ms / 2, mean_ms * 3 / 2)));
    user_step(workspace_id);
  }
}

void Workload::user_step(const std::string& workspace_id) {
  const std::uint64_t pick = workload_.below(20);
  if (pick < 10) {
    if (!run_.user_write(workspace_id) && pick == 0) run_.user_mark_active(workspace_id);
  } else if (pick < 13) {
    run_.user_mark_active(workspace_id);
  } else if (pick < 16) {
    run_.user_start(workspace_id);  // AlreadyExists while an instance runs.
  } else if (pick < 18) {
    run_.user_stop(workspace_id, StopPolicy::kNormal);
  } else if (pick < 19) {
    run_.user_stop(workspace_id, StopPolicy::kImmediate);
  } else {
    run_.user_stop(workspace_id, StopPolicy::kAbort);
  }
}

Task<void> Workload::faults() {
  EventLoop& loop = run_.world().sim().loop();
  const Faults& faults = run_.world().sim().faults();
  while (!healed_) {
    co_await loop.sleep(faults.in_incident() ? faults_.range(kSecondMs, 5 * kSecondMs)
                                             : faults.until_next_incident(
                                                   faults_.range(30 * kSecondMs, 3 * kMinuteMs)));
    fault_step();
  }
}

void Workload::daemon_outage(const std::string& node) {
  if (crashed_daemons_.count(node) > 0) {
    run_.world().daemon_up(node);
    crashed_daemons_.erase(node);
    return;
  }
  run_.world().daemon_down(node);
  if (faults_.chance(kOutageForGood)) {
    lost_daemons_.insert(node);
    run_.world().sim().record("faults", "daemon-outage", node, "for good");
  } else {
    crashed_daemons_.insert(node);
  }
}

std::string Workload::fault_node(const std::vector<std::string>& nodes) {
  WSIM_ASSERT(!nodes.empty());
  const int incident = run_.world().sim().faults().current_incident();
  const bool focused = incident >= 0 && incident == focus_incident_ &&
                       std::find(nodes.begin(), nodes.end(), focus_node_) != nodes.end();
  if (focused) return focus_node_;
  focus_incident_ = incident;
  focus_node_ = nodes[faults_.below(nodes.size())];
  return focus_node_;
}

void Workload::fault_step() {
  GitpodWorld& world = run_.world();
  Faults& f = world.sim().faults();
  const std::vector<std::string> nodes = world.nodes();
  if (nodes.empty()) return;
  const std::string node = fault_node(nodes);
  const bool gone_for_good = lost_daemons_.count(node) > 0;
  if (f.fires(daemon_restart_, faults_) && !gone_for_good) {
    world.daemon_down(node);
    world.daemon_up(node);
  }
  if (f.fires(daemon_outage_, faults_) && !gone_for_good) daemon_outage(node);
  if (f.fires(manager_restart_, faults_)) {
    run_.manager().stop();
    run_.manager().start();
  }
  if (nodes.size() > 1 && f.fires(node_delete_, faults_)) {
    crashed_daemons_.erase(node);
    lost_daemons_.erase(node);
    world.delete_node(node);
  }
  if (f.fires(reject_running_, faults_)) {
    const std::string id = "ws" + std::to_string(faults_.below(settings_.workspaces));
    const std::string instance = run_.current_instance(id);
    if (!instance.empty()) {
      (void)world.cluster().reject_running(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)},
                                           "NodeAffinity");
    }
  }
}

Task<void> Workload::admin() {
  EventLoop& loop = run_.world().sim().loop();
  co_await loop.sleep(workload_.range(5 * kMinuteMs, 15 * kMinuteMs));
  if (!healed_) run_.upgrade(settings_.upgrade == "drain-first");
}

}  // namespace wsim::gitpod
