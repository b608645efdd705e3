// Not a port: scripted actions and the upgrade actor [invented] (the KOTS upgrade steps are
// [reconstructed] from gitpod-io/gitpod @ 74429dd75600 install/installer/scripts/kots-install.sh).
//
// GitpodRun::perform: the scripted actions of run.h, and the upgrade actor (seed 003).
#include <charconv>
#include <map>
#include <optional>

#include "model/gitpod/conditions.h"
#include "model/gitpod/daemon/ws_daemon.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "model/gitpod/run.h"
#include "sim/core/assert.h"

namespace wsim::gitpod {
namespace {

// A non-negative integer argument; nullopt when malformed (scenario files are untrusted).
std::optional<std::int64_t> int_arg(const std::string& text) {
  std::int64_t value = 0;
  auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::vector<std::string> targets_or_all(const std::string& target,
                                        const std::vector<std::string>& all) {
  if (target == "all" || target.empty()) return all;
  return {target};
}

}  // namespace

bool GitpodRun::perform(const proto::ScriptedEvent& event, std::string& error) {
  WSIM_ASSERT(started_);  // The driver performs scripted events during the fault phase.
  const std::string& actor = event.actor();
  if (actor == "user") return perform_user(event.action(), event.target(), error);
  return perform_cluster(event, error);
}

bool GitpodRun::perform_user(const std::string& action, const std::string& target,
                             std::string& error) {
  if (target.empty()) {
    error = "user actions need a target workspace id";
    return false;
  }
  if (action == "start") {
    user_start(target);
  } else if (action == "stop") {
    user_stop(target, StopPolicy::kNormal);
  } else if (action == "stop_immediate") {
    user_stop(target, StopPolicy::kImmediate);
  } else if (action == "abort") {
    user_stop(target, StopPolicy::kAbort);
  } else if (action == "mark_active") {
    user_mark_active(target);
  } else if (action == "write") {
    if (!user_write(target))
      sim_.record("user/" + target, "write", target, "refused", "not running");
  } else {
    error = "unknown user action '" + action + "'";
    return false;
  }
  return true;
}

bool GitpodRun::perform_cluster(const proto::ScriptedEvent& event, std::string& error) {
  const std::string& actor = event.actor();
  const std::string& action = event.action();
  const std::string& target = event.target();
  auto arg = [&](const std::string& key, const std::string& fallback) {
    auto it = event.args().find(key);
    return it == event.args().end() ? fallback : it->second;
  };
  const kube::ObjectRef pod_ref{"Pod", kNamespace, pod_name(current_instance(target))};
  if (actor == "kubelet" && action == "reject") {
    world_->cluster().reject_at_admission(pod_ref, arg("reason", "NodeAffinity"));
    return true;
  }
  if (actor == "kubelet" && action == "reject_after_ready") {
    const kube::Status s = world_->cluster().reject_running(pod_ref, arg("reason", "NodeAffinity"));
    sim_.record("kubelet", "reject-running", pod_ref.to_string(),
                s.ok() ? "ok" : kube::code_name(s.code));
    return true;
  }
  if (actor == "kubectl" && action == "delete_node") {
    world_->delete_node(target);
    return true;
  }
  if (actor == "kubectl" && (action == "cordon" || action == "uncordon")) {
    const kube::Status s =
        action == "cordon" ? world_->cluster().cordon(target) : world_->cluster().uncordon(target);
    return s.ok() || (error = s.message, false);
  }
  if (actor == "kubectl" && action == "delete_workspace") {
    operator_delete_workspace(current_instance(target));
    return true;
  }
  if (actor == "kubectl" && action == "strip_finalizers") {
    strip_finalizers(current_instance(target));
    return true;
  }
  if (actor == "ws-daemon") {
    for (const std::string& node : targets_or_all(target, world_->nodes())) {
      if (world_->daemon(node) == nullptr) {
        error = "no ws-daemon on node '" + node + "'";
        return false;
      }
      if (action == "down" || action == "restart") world_->daemon_down(node);
      if (action == "up" || action == "restart") world_->daemon_up(node);
      if (action == "crash_during_delete") {
        const std::optional<std::int64_t> after_ms = int_arg(arg("restart_after_ms", "5000"));
        if (!after_ms.has_value() || *after_ms > kHourMs) {
          error = "restart_after_ms must be 0..3600000";
          return false;
        }
        world_->daemon(node)->arm_crash_during_delete(*after_ms);
      }
      if (action == "crash_after_init") {
        const std::optional<std::int64_t> after_ms = int_arg(arg("restart_after_ms", "5000"));
        if (!after_ms.has_value() || *after_ms > kHourMs) {
          error = "restart_after_ms must be 0..3600000";
          return false;
        }
        world_->daemon(node)->arm_crash_after_init(*after_ms);
      }
      if (action == "wipe_failure") world_->daemon(node)->arm_wipe_failure();
      if (action != "down" && action != "up" && action != "restart" &&
          action != "crash_during_delete" && action != "crash_after_init" &&
          action != "wipe_failure") {
        error = "unknown ws-daemon action '" + action + "'";
        return false;
      }
    }
    return true;
  }
  if (actor == "manager") {
    if (action == "restart") {
      manager_->stop();
      manager_->start();
    } else if (action == "down") {
      manager_->stop();
    } else if (action == "up") {
      manager_->start();
    } else if (action == "maintenance_on" || action == "maintenance_off") {
      set_maintenance(action == "maintenance_on");
    } else {
      error = "unknown manager action '" + action + "'";
      return false;
    }
    return true;
  }
  if (actor == "admin") {
    if (action == "upgrade_naive" || action == "upgrade_drain_first") {
      upgrade(action == "upgrade_drain_first");
    } else if (action == "cordon_cluster" || action == "uncordon_cluster") {
      world_->gate().cordoned = action == "cordon_cluster";
    } else if (action == "score_zero") {
      world_->gate().score = 0;
    } else {
      error = "unknown admin action '" + action + "'";
      return false;
    }
    return true;
  }
  if (actor == "api" && action == "error") {
    // A 500 for the next request(s) of one verb on one object: args verb (get, update, patch,
    // create, delete), times, identity, and `as`: what the request meets instead of a 500
    // (503, 429, lose_request: not applied and the client times out, lose_response: applied
    // and the client times out) — the scripted forms of the kube.api fault points.
    const std::size_t slash = target.find('/');
    const std::string verb = arg("verb", "patch");
    const std::map<std::string, kube::Verb> verbs = {
        {"get", kube::Verb::kGet},       {"update", kube::Verb::kUpdate},
        {"patch", kube::Verb::kPatch},   {"create", kube::Verb::kCreate},
        {"delete", kube::Verb::kDelete}, {"list", kube::Verb::kList}};
    const std::optional<std::int64_t> times = int_arg(arg("times", "1"));
    const std::map<std::string, kube::FaultAction> outcomes = {
        {"500", kube::FaultAction::kInternalError},
        {"503", kube::FaultAction::kServiceUnavailable},
        {"429", kube::FaultAction::kThrottle},
        {"lose_request", kube::FaultAction::kLoseRequest},
        {"lose_response", kube::FaultAction::kLoseResponse}};
    const std::string as = arg("as", "500");
    if (slash == std::string::npos || verbs.count(verb) == 0 || !times.has_value() ||
        *times > 1000 || outcomes.count(as) == 0) {
      error =
          "api error: target Kind/name, args verb (get|list|create|update|patch|delete), times, "
          "as (500|503|429|lose_request|lose_response)";
      return false;
    }
    kube::InterceptorRule rule;
    rule.match.kind = target.substr(0, slash);
    rule.match.name = target.substr(slash + 1);
    rule.match.namespace_ = kNamespace;
    rule.match.verb = verbs.at(verb);
    if (!arg("identity", "").empty()) rule.match.identity = arg("identity", "");
    rule.action = outcomes.at(as);
    rule.times = static_cast<int>(*times);
    world_->api().add_interceptor(rule);
    return true;
  }
  if (actor == "api" && action == "conflict") {
    const std::size_t slash = target.find('/');
    if (slash == std::string::npos) {
      error = "api conflict target must be Kind/name";
      return false;
    }
    kube::InterceptorRule rule;
    rule.match.kind = target.substr(0, slash);
    rule.match.name = target.substr(slash + 1);
    rule.match.namespace_ = kNamespace;
    rule.match.verb = kube::Verb::kUpdate;
    if (!arg("identity", "").empty()) rule.match.identity = arg("identity", "");
    rule.action = kube::FaultAction::kConflict;
    const std::optional<std::int64_t> times = int_arg(arg("times", "1"));
    if (!times.has_value() || *times > 1000) {
      error = "times must be 0..1000";
      return false;
    }
    rule.times = static_cast<int>(*times);
    world_->api().add_interceptor(rule);
    return true;
  }
  if (actor == "breaker" && (action == "on" || action == "off")) {
    world_->set_breaker(action == "on");
    return true;
  }
  error = "unknown action '" + actor + " " + action + "'";
  return false;
}

void GitpodRun::upgrade(bool drain_first) {
  sim_.loop().spawn(drain_first ? "admin/upgrade-drain-first" : "admin/upgrade-naive",
                    upgrade_actor(drain_first));
}

// Seed 003 (#13147). naive: the KOTS deploy of Aug 2022 deletes the installation — ws-daemon,
// ws-manager and the workspace pods — while workspaces run, waits (helm --wait, 10 min) for the
// deletion, then the admin removes the finalizers of the pods that hang (the documented
// clean-up), and the new version is deployed. drain-first: cordon the cluster, stop every
// workspace, wait for them to be gone, then upgrade, then uncordon (§9.3).
Task<void> GitpodRun::upgrade_actor(bool drain_first) {
  kube::ApiServer& api = world_->api();
  auto workspace_pods = [&] {
    kube::LabelSelector selector;
    selector.match_labels[kLabelComponent] = "workspace";
    return api.peek_list("Pod", kNamespace, selector);
  };
  if (drain_first) {
    world_->gate().cordoned = true;
    sim_.record("admin", "cordon-cluster", "", "ok");
    for (int round = 0; round < 120; ++round) {
      std::vector<std::string> live;
      for (const auto& [id, count] : starts_) live.push_back(current_instance(id));
      bool any = false;
      for (const std::string& instance : live) {
        const bool cr = api.peek(kube::ObjectRef{kWorkspaceKind, kNamespace, instance}) != nullptr;
        const bool pod =
            api.peek(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)}) != nullptr;
        if (!cr && !pod) continue;
        any = true;
        if (round % 10 == 0) (void)co_await manager_->stop_workspace(instance, StopPolicy::kNormal);
      }
      if (!any && workspace_pods().empty()) break;
      co_await sim_.loop().sleep(30 * kSecondMs);
    }
    sim_.record("admin", "drained", "", workspace_pods().empty() ? "ok" : "pods remain");
  }
  sim_.record("admin", "upgrade", "", "begin", drain_first ? "drain-first" : "naive");
  manager_->stop();
  for (const std::string& node : world_->nodes()) world_->daemon_down(node);
  for (const kube::Object* pod : workspace_pods()) {
    (void)api.server_delete(kube::ObjectRef::of(*pod), kube::DeleteOptions{}, "kots");
  }
  const TimeMs began_ms = sim_.now_ms();
  while (!workspace_pods().empty() && sim_.now_ms() < began_ms + 10 * kMinuteMs) {
    co_await sim_.loop().sleep(5 * kSecondMs);
  }
  std::vector<std::string> hanging;
  for (const kube::Object* pod : workspace_pods()) {
    auto it = pod->meta.labels.find(kLabelInstanceId);
    if (it != pod->meta.labels.end()) hanging.push_back(it->second);
  }
  for (const std::string& instance : hanging) strip_finalizers(instance);
  const TimeMs gap_end_ms = began_ms + settings_.upgrade_gap_ms;
  if (sim_.now_ms() < gap_end_ms) co_await sim_.loop().sleep(gap_end_ms - sim_.now_ms());
  WSIM_ASSERT_GE(sim_.now_ms(), gap_end_ms);  // The new version deploys after the gap.
  for (const std::string& node : world_->nodes()) world_->daemon_up(node);
  manager_->start();
  WSIM_ASSERT(manager_->up());
  sim_.record("admin", "upgrade", "", "done",
              std::to_string(hanging.size()) + " pod(s) force-removed");
  if (drain_first) world_->gate().cordoned = false;
}

}  // namespace wsim::gitpod
