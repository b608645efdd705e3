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
  operator_delete_ =
      f.declare("gitpod.operator.delete_workspace",
                "an operator deletes the Workspace CR of a workspace stuck in Stopping", {1, 4},
                {1, 4}, SwarmStream::kSecond);
}

void Workload::start() {
  WSIM_ASSERT(actors_.empty());  // Started once (GitpodRun::start).
  WSIM_ASSERT_GE(settings_.live_workspaces, 0);
  EventLoop& loop = run_.world().sim().loop();
  if (settings_.live_workspaces > 0) {
    residents_.assign(static_cast<std::size_t>(settings_.live_workspaces), std::string());
    for (std::size_t slot = 0; slot < residents_.size(); ++slot) {
      actors_.push_back(loop.spawn("user/slot" + std::to_string(slot), resident(slot)));
    }
  }
  for (int i = 0; settings_.live_workspaces == 0 && i < settings_.workspaces; ++i) {
    const std::string id = "ws" + std::to_string(i);
    actors_.push_back(loop.spawn("user/" + id, user(id)));
  }
  actors_.push_back(loop.spawn("faults", faults()));
  if (settings_.upgrade != "none") actors_.push_back(loop.spawn("admin", admin()));
}

void Workload::heal() {
  WSIM_ASSERT(!healed_);  // A run heals once.
  healed_ = true;
  for (ActorId id : actors_) run_.world().sim().loop().cancel(id);
  actors_.clear();
}

std::vector<std::pair<std::string, std::string>> Workload::parameters() const {
  if (settings_.live_workspaces > 0) {
    return {{"load.live_workspaces", std::to_string(settings_.live_workspaces)},
            {"load.mean_lifetime_ms", std::to_string(settings_.mean_lifetime_ms)},
            {"gitpod.nodes", std::to_string(settings_.nodes)},
            {"gitpod.user_action_interval_ms", std::to_string(settings_.user_action_interval_ms)},
            {"gitpod.breaker", settings_.breaker ? "on" : "off"},
            {"gitpod.upgrade", settings_.upgrade}};
  }
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
  WSIM_ASSERT_GT(mean_ms, 0);  // normalize: 0 becomes 1 min, negatives are refused.
  const Faults& faults = run_.world().sim().faults();
  while (!healed_) {
    co_await loop.sleep(faults.in_incident() ? workload_.range(kSecondMs, 10 * kSecondMs)
                                             : faults.until_next_incident(
                                                   workload_.range(mean_ms / 2, mean_ms * 3 / 2)));
    user_step(workspace_id);
  }
}

Task<void> Workload::resident(std::size_t slot) {
  WSIM_ASSERT_LT(slot, residents_.size());
  EventLoop& loop = run_.world().sim().loop();
  const DurationMs gap_ms = std::max<DurationMs>(1, settings_.arrival_gap_max_ms);
  const DurationMs mean_ms = std::max<DurationMs>(2, settings_.mean_lifetime_ms);
  co_await loop.sleep(workload_.range(0, gap_ms));  // First arrivals spread, not all at t = 0.
  while (!healed_) {
    const std::string id = "ws" + std::to_string(next_resident_id_++);
    residents_[slot] = id;
    run_.user_start(id);
    co_await act_until(id, loop.now_ms() + workload_.range(mean_ms / 2, mean_ms * 3 / 2));
    if (healed_) break;
    run_.user_stop(id, StopPolicy::kNormal);
    residents_[slot].clear();
    co_await loop.sleep(workload_.range(1, gap_ms));
  }
}

Task<void> Workload::act_until(std::string workspace_id, TimeMs leave_ms) {
  EventLoop& loop = run_.world().sim().loop();
  const DurationMs mean_ms = settings_.user_action_interval_ms;
  WSIM_ASSERT_GT(mean_ms, 0);
  while (!healed_) {
    const DurationMs wait_ms = workload_.range(mean_ms / 2, mean_ms * 3 / 2);
    if (loop.now_ms() + wait_ms >= leave_ms) {
      co_await loop.sleep(std::max<DurationMs>(0, leave_ms - loop.now_ms()));
      co_return;
    }
    co_await loop.sleep(wait_ms);
    user_step(workspace_id);
  }
}

std::string Workload::pick_workspace() {
  if (residents_.empty()) {
    WSIM_ASSERT_GT(settings_.workspaces, 0);
    return "ws" + std::to_string(faults_.below(settings_.workspaces));
  }
  return residents_[faults_.below(residents_.size())];
}

void Workload::user_step(const std::string& workspace_id) {
  WSIM_ASSERT(!workspace_id.empty());
  const std::uint64_t pick = workload_.below(20);
  WSIM_ASSERT_LT(pick, 20u);
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
  WSIM_ASSERT(!node.empty());
  WSIM_ASSERT(lost_daemons_.count(node) == 0);  // fault_step never touches a lost daemon.
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
  observe_stopping();
  const std::vector<std::string> nodes = world.nodes();
  if (nodes.empty()) return;
  const std::string node = fault_node(nodes);
  WSIM_ASSERT(std::find(nodes.begin(), nodes.end(), node) != nodes.end());
  const bool gone_for_good = lost_daemons_.count(node) > 0;
  if (f.fires(daemon_restart_, faults_) && !gone_for_good) {
    world.daemon_down(node);
    world.daemon_up(node);
  }
  if (f.fires(daemon_outage_, faults_) && !gone_for_good) daemon_outage(node);
  // A daemon is crashed (heal brings it back) or lost for good, never both.
  WSIM_ASSERT(crashed_daemons_.count(node) == 0 || lost_daemons_.count(node) == 0);
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
    const std::string id = pick_workspace();
    const std::string instance = id.empty() ? std::string() : run_.current_instance(id);
    if (!instance.empty()) {
      (void)world.cluster().reject_running(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)},
                                           "NodeAffinity");
    }
  }
  // Points of the second swarm stream last: a run with them enabled keeps the draws above.
  (void)world.cluster().node_not_ready_fault(node);
  if (f.fires(operator_delete_, faults_)) operator_delete_workspace();
}

void Workload::observe_stopping() {
  std::map<std::string, TimeMs> seen;
  const TimeMs now_ms = run_.world().sim().now_ms();
  for (const kube::Object* cr : run_.world().api().peek_list(kWorkspaceKind, kNamespace)) {
    if (cr->status_or(kStatusPhase, "") != kPhaseStopping) continue;
    const auto before = stopping_since_ms_.find(cr->meta.name);
    if (before != stopping_since_ms_.end()) WSIM_ASSERT_LE(before->second, now_ms);
    seen[cr->meta.name] = before == stopping_since_ms_.end() ? now_ms : before->second;
  }
  stopping_since_ms_ = std::move(seen);
}

void Workload::operator_delete_workspace() {
  kube::ApiServer& api = run_.world().api();
  const TimeMs now_ms = run_.world().sim().now_ms();
  // kubectl get workspaces: every CR of the namespace, in name order. "Stuck" [invented]: an
  // operator acts on a workspace that has been Stopping for kOperatorPatienceMs, not on one a
  // rejection or a stop put there a second ago (which the controller is still handling).
  std::vector<kube::ObjectRef> stuck;
  for (const kube::Object* cr : api.peek_list(kWorkspaceKind, kNamespace)) {
    if (cr->meta.deletion_ms.has_value()) continue;
    const auto since = stopping_since_ms_.find(cr->meta.name);
    if (since == stopping_since_ms_.end()) continue;
    WSIM_ASSERT_LE(since->second, now_ms);
    if (now_ms - since->second >= kOperatorPatienceMs) stuck.push_back(kube::ObjectRef::of(*cr));
  }
  if (stuck.empty()) return;
  const kube::ObjectRef ref = stuck[faults_.below(stuck.size())];
  // As the scripted `kubectl delete_workspace` (scripted_actions.cc): no preconditions, default
  // grace.
  run_.operator_delete_workspace(ref.name);
}

Task<void> Workload::admin() {
  // start() spawns the admin only for an upgrade; normalize admits naive and drain-first.
  WSIM_ASSERT(settings_.upgrade == "naive" || settings_.upgrade == "drain-first");
  EventLoop& loop = run_.world().sim().loop();
  co_await loop.sleep(workload_.range(5 * kMinuteMs, 15 * kMinuteMs));
  if (!healed_) run_.upgrade(settings_.upgrade == "drain-first");
}

}  // namespace wsim::gitpod
