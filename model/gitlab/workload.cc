// Not a port: the external actors of the GitLab system and its scripted actions (workload.h,
// docs/systems/gitlab.md §11) [invented].
#include "model/gitlab/workload.h"

#include <algorithm>

#include "model/gitlab/names.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

struct UserVerb {
  const char* action;
  State desired;
};
constexpr UserVerb kUserVerbs[] = {
    {"stop", State::kStopped},
    {"start", State::kRunning},
    {"restart", State::kRestartRequested},
    {"terminate", State::kTerminated},
};

// Random actions in draw order; index 0 is never drawn (choice 0 = nothing happens).
enum class RandomAction {
  kNone,
  kCreate,
  kStop,
  kStart,
  kRestart,
  kTerminate,
  kDeleteNamespace,
  kDeleteDeployment,
  kDeleteInventory,
  kDeleteInventories,
  kDeleteSecret,
  kAgentRestart,
  kUpdateAgentConfig,
  kCount
};

}  // namespace

Workload::Workload(Sim& sim, RailsService& rails, kube::Cluster& cluster, Agent& agent,
                   RailsLink& link, WorkloadOptions options, const GitlabProbes* probes)
    : sim_(sim),
      rails_(rails),
      cluster_(cluster),
      agent_(agent),
      link_(link),
      options_(options),
      probes_(probes),
      choices_(sim.stream("gitlab.workload")) {
  WSIM_ASSERT_GT(options_.tick_ms, 0);
  WSIM_ASSERT_GT(options_.workspaces_max, 0u);  // decode_config draws or checks it.
  WSIM_ASSERT_LE(options_.action_per_mille, 1000u);
  WSIM_ASSERT_LE(options_.burst_per_mille, 1000u);
}

std::vector<run::ActionInfo> Workload::catalog() {
  return {
      {"user", "create", "create workspace <target> (desired Running)"},
      {"user", "stop", "set desired Stopped"},
      {"user", "start", "set desired Running"},
      {"user", "restart", "set desired RestartRequested"},
      {"user", "terminate", "set desired Terminated"},
      {"admin", "update_agent_config",
       "R2+: new agent-config version; no row written (no force-include)"},
      {"kubectl", "delete_namespace", "delete the namespace of workspace <target>"},
      {"kubectl", "delete_deployment", "delete the Deployment of workspace <target>"},
      {"kubectl", "delete_inventory", "delete the <target>-workspace-inventory ConfigMap"},
      {"kubectl", "delete_inventories", "delete both inventory ConfigMaps of <target>"},
      {"kubectl", "delete_secret", "delete the <target>-env-var Secret (R2+ configs)"},
      {"agent", "restart", "restart agentk (leader change): all in-memory state is lost"},
      {"link", "partition_on", "agentk cannot reach Rails (requests time out)"},
      {"link", "partition_off", "heal the agentk ⇄ Rails link"},
      {"link", "lose_next_response", "the next reconcile response is lost after Rails acted"},
  };
}

void Workload::record(const std::string& actor, const std::string& verb, const std::string& object,
                      const std::string& result) {
  WSIM_ASSERT(!actor.empty());
  WSIM_ASSERT(!verb.empty());
  sim_.record(actor, verb, object, result);
}

bool Workload::perform(const std::string& actor, const std::string& action,
                       const std::string& target, std::string& error) {
  if (actor == "user") return user_action(action, target, error);
  if (actor == "kubectl") return kubectl_action(action, target, error);
  if (actor == "admin" && action == "update_agent_config") {
    record("admin", action, "", user_action_result_name(rails_.update_agent_config()));
    return true;
  }
  if (actor == "agent" && action == "restart") {
    agent_.restart();
    return true;
  }
  if (actor == "link" && action == "lose_next_response") {
    if (lose_next_response_) lose_next_response_();
    record("link", action, link_.name(), "armed");
    return true;
  }
  if (actor == "link" && (action == "partition_on" || action == "partition_off")) {
    link_.set_partitioned(action == "partition_on");
    record("link", action, link_.name(), "ok");
    return true;
  }
  error = "unknown action " + actor + "/" + action;
  return false;
}

bool Workload::user_action(const std::string& action, const std::string& target,
                           std::string& error) {
  if (target.empty()) {
    error = "user/" + action + " needs a target workspace";
    return false;
  }
  if (action == "create") {
    record("user", "create", target, user_action_result_name(rails_.create_workspace(target)));
    return true;
  }
  for (const UserVerb& verb : kUserVerbs) {
    if (action != verb.action) continue;
    WSIM_ASSERT(is_valid_desired(verb.desired));  // Users set desired states only (§3).
    const WorkspaceRow* row = rails_.table().find_by_name(target);
    if (row != nullptr && verb.desired == State::kTerminated && probes_ != nullptr) {
      const kube::Object* ns =
          cluster_.api().peek(kube::ObjectRef{"Namespace", "", row->namespace_});
      if (ns != nullptr && ns->meta.deletion_ms) {
        sim_.probes().hit(probes_->terminate_while_namespace_terminating);
      }
    }
    record("user", action, target,
           user_action_result_name(rails_.set_desired_state(target, verb.desired)));
    return true;
  }
  error = "unknown action user/" + action;
  return false;
}

bool Workload::kubectl_action(const std::string& action, const std::string& target,
                              std::string& error) {
  const WorkspaceRow* row = rails_.table().find_by_name(target);
  if (row == nullptr) {
    // A scripted event may name a workspace that is created later; it is then a no-op.
    record("kubectl", action, target, "NoSuchWorkspace");
    if (action == "delete_namespace" || action == "delete_deployment" ||
        action == "delete_inventory" || action == "delete_inventories" ||
        action == "delete_secret") {
      return true;
    }
    error = "unknown action kubectl/" + action;
    return false;
  }
  if (action == "delete_inventories") {
    for (const std::string& name :
         {workspace_inventory_name(row->name), secrets_inventory_name(row->name)}) {
      const kube::ObjectRef inventory{"ConfigMap", row->namespace_, name};
      const kube::Status status = cluster_.remove(inventory);
      record("kubectl", "delete", inventory.to_string(),
             status.ok() ? "ok" : kube::code_name(status.code));
    }
    return true;
  }
  kube::ObjectRef ref;
  if (action == "delete_namespace") {
    ref = kube::ObjectRef{"Namespace", "", row->namespace_};
    if (probes_ != nullptr && row->desired_state == State::kRunning &&
        cluster_.api().peek(ref) != nullptr) {
      sim_.probes().hit(probes_->namespace_deleted_while_running);
    }
  } else if (action == "delete_deployment") {
    ref = kube::ObjectRef{"Deployment", row->namespace_, row->name};
  } else if (action == "delete_inventory") {
    ref = kube::ObjectRef{"ConfigMap", row->namespace_, workspace_inventory_name(row->name)};
  } else if (action == "delete_secret") {
    ref = kube::ObjectRef{"Secret", row->namespace_, row->name + "-env-var"};
  } else {
    error = "unknown action kubectl/" + action;
    return false;
  }
  WSIM_ASSERT(!ref.name.empty());
  const kube::Status status = cluster_.remove(ref);
  record("kubectl", "delete", ref.to_string(), status.ok() ? "ok" : kube::code_name(status.code));
  return true;
}

std::string Workload::pick_active_workspace() {
  std::vector<std::string> names;
  for (const WorkspaceRow& row : rails_.table().rows()) {
    if (row.desired_state != State::kTerminated) names.push_back(row.name);
  }
  if (names.empty()) return {};
  WSIM_ASSERT_LE(names.size(), rails_.table().rows().size());
  return names[choices_.below(names.size())];
}

void Workload::random_action() {
  const auto action = static_cast<RandomAction>(
      1 + choices_.below(static_cast<std::uint64_t>(RandomAction::kCount) - 1));
  // Choice 0 (kNone) is never drawn here: the tick's chance already decided to act.
  WSIM_ASSERT(action != RandomAction::kNone);
  WSIM_ASSERT(action < RandomAction::kCount);
  std::string error;
  if (action == RandomAction::kCreate) {
    if (options_.live_workspaces > 0) return;  // Residents create (load shape).
    if (created_ >= options_.workspaces_max) return;
    user_action("create", "ws-" + std::to_string(created_++), error);
    WSIM_ASSERT_LE(created_, options_.workspaces_max);
    return;
  }
  if (action == RandomAction::kAgentRestart) {
    perform("agent", "restart", "", error);
    return;
  }
  if (action == RandomAction::kUpdateAgentConfig) {
    // An admin edits the agent's workspaces config: R2/R3 write no workspace row
    // (rails_service.cc).
    if (rails_.options().versions.rails_has_settings())
      perform("admin", "update_agent_config", "", error);
    return;
  }
  // Deleting the shared namespace would end every workspace at once: not a workload action.
  if (action == RandomAction::kDeleteNamespace && rails_.options().versions.shared()) return;
  const std::string target = pick_active_workspace();
  if (target.empty()) return;
  switch (action) {
    case RandomAction::kStop:
      user_action("stop", target, error);
      break;
    case RandomAction::kStart:
      user_action("start", target, error);
      break;
    case RandomAction::kRestart:
      user_action("restart", target, error);
      break;
    case RandomAction::kTerminate:
      user_action("terminate", target, error);
      break;
    case RandomAction::kDeleteNamespace:
      kubectl_action("delete_namespace", target, error);
      break;
    case RandomAction::kDeleteDeployment:
      kubectl_action("delete_deployment", target, error);
      break;
    case RandomAction::kDeleteInventory:
      kubectl_action("delete_inventory", target, error);
      break;
    case RandomAction::kDeleteInventories:
      kubectl_action("delete_inventories", target, error);
      break;
    case RandomAction::kDeleteSecret:
      kubectl_action("delete_secret", target, error);
      break;
    default:
      WSIM_ASSERT_MSG(false, "unhandled workload action");
  }
  WSIM_ASSERT(error.empty());
}

Task<void> Workload::resident(std::uint32_t slot) {
  WSIM_ASSERT_LT(slot, options_.live_workspaces);
  EventLoop& loop = sim_.loop();
  const DurationMs gap_ms = std::max<DurationMs>(1, options_.arrival_gap_max_ms);
  const DurationMs mean_ms = std::max<DurationMs>(2, options_.mean_lifetime_ms);
  co_await loop.sleep(choices_.range(0, gap_ms));  // First arrivals spread, not all at t = 0.
  std::string error;
  while (!stopped_) {
    const std::string name = "ws-L" + std::to_string(residents_arrived_++);
    user_action("create", name, error);
    co_await loop.sleep(choices_.range(mean_ms / 2, mean_ms * 3 / 2));
    if (stopped_) break;
    const WorkspaceRow* row = rails_.table().find_by_name(name);
    if (row != nullptr && row->desired_state != State::kTerminated) {
      user_action("terminate", name, error);
    }
    co_await loop.sleep(choices_.range(1, gap_ms));
  }
  WSIM_ASSERT(error.empty());
}

Task<void> Workload::run() {
  EventLoop& loop = sim_.loop();
  while (!stopped_) {
    co_await loop.sleep(options_.tick_ms);
    if (stopped_) break;
    // A node whose kubelet goes silent for a while (its own stream; no draw while the point is
    // off, so the workload's choices are unchanged).
    (void)cluster_.node_not_ready_fault();
    if (!choices_.chance(Ratio{options_.action_per_mille, 1000})) continue;
    random_action();
    // A burst: more actions within a Rails clock tick or two of the first.
    while (!stopped_ && choices_.chance(Ratio{options_.burst_per_mille, 1000})) {
      co_await loop.sleep(choices_.range(0, kBurstGapMaxMs));
      if (stopped_) break;
      random_action();
    }
  }
}

}  // namespace wsim::gitlab
