// Not a port: the run harness (run.h) [invented].
#include "model/gitpod/run.h"

#include <sstream>

#include "model/gitpod/conditions.h"
#include "model/gitpod/daemon/ws_daemon.h"
#include "model/gitpod/mk1/manager.h"
#include "model/gitpod/mk2/manager.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "model/gitpod/workload.h"
#include "sim/core/assert.h"
#include "sim/kube/controllers/controller_util.h"
#include "sim/run/world_oracles.h"

namespace wsim::gitpod {

Versions versions_of(const proto::GitpodConfig& config) {
  Versions v;
  const std::optional<ManagerEra> era =
      parse_era(config.manager().empty() ? "mk2" : config.manager());
  WSIM_ASSERT_MSG(era.has_value(), "unnormalized manager " << config.manager());
  v.era = *era;
  if (config.fixes_size() == 0) return v;
  v.fixes = 0;
  for (const std::string& name : config.fixes()) {
    if (name == "none") continue;
    if (name == "all") {
      v.fixes = kAllFixes;
      continue;
    }
    const std::optional<Fix> fix = parse_fix(name);
    WSIM_ASSERT_MSG(fix.has_value(), "unnormalized fix " << name);
    v.fixes |= static_cast<std::uint32_t>(*fix);
  }
  return v;
}

Settings settings_of(const proto::Scenario& scenario) {
  const proto::GitpodConfig& config = scenario.gitpod();
  Settings s;
  s.live_workspaces = static_cast<int>(scenario.load().live_workspaces());
  if (scenario.load().mean_lifetime_ms() > 0)
    s.mean_lifetime_ms = scenario.load().mean_lifetime_ms();
  if (scenario.load().arrival_gap_max_ms() > 0) {
    s.arrival_gap_max_ms = scenario.load().arrival_gap_max_ms();
  }
  if (config.nodes() > 0) s.nodes = static_cast<int>(config.nodes());
  if (config.workspaces() > 0) s.workspaces = static_cast<int>(config.workspaces());
  s.pod_recreation_max_retries = config.pod_recreation_max_retries();
  s.pod_recreation_backoff_ms = config.pod_recreation_backoff_ms();
  s.breaker = config.breaker();
  s.mk1_mark_retry_steps = config.mk1_mark_retry_steps();
  s.daemon_partial_backup_guard = config.daemon_partial_backup_guard();
  s.daemon_keep_content_until_recorded = config.daemon_keep_content_until_recorded();
  s.rejection_per_mille = config.rejection_per_mille();
  s.report_acknowledged_loss = config.report_acknowledged_loss();
  if (config.upgrade_gap_ms() > 0) s.upgrade_gap_ms = config.upgrade_gap_ms();
  if (config.user_action_interval_ms() > 0)
    s.user_action_interval_ms = config.user_action_interval_ms();
  if (!config.upgrade().empty()) s.upgrade = config.upgrade();
  // A normalized scenario (GitpodSystem::normalize): the workload's ranges are checked there.
  WSIM_ASSERT_GT(s.nodes, 0);
  WSIM_ASSERT_GE(s.live_workspaces, 0);
  WSIM_ASSERT_GE(s.pod_recreation_backoff_ms, 0);
  return s;
}

GitpodRun::GitpodRun(Sim& sim, const proto::Scenario& scenario)
    : sim_(sim),
      scenario_(scenario),
      versions_(versions_of(scenario.gitpod())),
      settings_(settings_of(scenario)) {
  assert_context().scenario = "gitpod " + describe(versions_);
  world_ = std::make_unique<GitpodWorld>(sim, versions_, settings_);
  const mk2::ManagerOptions mk2_options;
  if (versions_.mk2()) {
    manager_ = std::make_unique<mk2::Mk2Manager>(*world_, mk2_options);
  } else {
    manager_ = std::make_unique<mk1::Mk1Manager>(*world_);
  }
  manager_->set_status_listener([this](const std::string& instance, const std::string& phase) {
    on_manager_status(instance, phase);
  });
  checker_ = std::make_unique<Checker>(*world_);
  if (versions_.mk2()) checker_->set_inactivity_timeout_ms(mk2_options.regular_ms);
  workload_ = std::make_unique<Workload>(*this, settings_);
  if (settings_.rejection_per_mille > 0) {
    FaultId id = 0;
    WSIM_ASSERT(sim.faults().find(kube::KubeletShared::kRejectFault, id));
    sim.faults().force(id, true, Ratio{settings_.rejection_per_mille, 1000});
  }
}

GitpodRun::~GitpodRun() = default;

void GitpodRun::start() {
  if (started_) return;
  started_ = true;
  WSIM_ASSERT(server_.empty());  // No start before the run's own.
  checker_->start();
  world_->start();
  world_->set_breaker(settings_.breaker);
  manager_->start();
  if (!scenario_.scripted_only()) workload_->start();
}

std::string GitpodRun::current_instance(const std::string& workspace_id) const {
  auto it = starts_.find(workspace_id);
  if (it == starts_.end()) return "";
  WSIM_ASSERT_GE(it->second, 1);  // An entry is made by the first start.
  // The newest instance that exists (a refused start leaves none behind), else the newest.
  kube::ApiServer& api = world_->api();
  for (int n = it->second; n >= 1 && n > it->second - 64; --n) {
    const std::string instance = workspace_id + "-" + std::to_string(n);
    if (api.peek(kube::ObjectRef{kWorkspaceKind, kNamespace, instance}) != nullptr ||
        api.peek(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)}) != nullptr) {
      return instance;
    }
  }
  return workspace_id + "-" + std::to_string(it->second);
}

std::string GitpodRun::server_phase(const std::string& instance) const {
  auto it = server_.find(instance);
  return it == server_.end() ? std::string() : it->second.phase;
}

void GitpodRun::set_server_phase(const std::string& instance, const std::string& phase) {
  WSIM_ASSERT(!phase.empty());
  WSIM_ASSERT(server_.count(instance) > 0);  // Only instances this server created have a record.
  ServerInstance& record = server_[instance];
  record.phase = phase;
  if ((phase == "stopping" || phase == "stopped") && !record.stopping_ms.has_value()) {
    record.stopping_ms = sim_.now_ms();
  }
}

// ws-manager-bridge, components/ws-manager-bridge/src/bridge.ts @ 4f45d02eac95: the subscriber's
// updates are queued per instance and applied in order (queueMessagesByInstanceId :168-190);
// statusUpdate (:245-443) writes the phase onto the server's instance record. Simplified: no
// delay between ws-manager's publication and the record (no queue, no DB write latency), and the
// stream never drops while ws-manager is up (the subscriber's reconnect re-lists, :158-161, which
// the informer relist of each era stands for).
void GitpodRun::on_manager_status(const std::string& instance, const std::string& api_phase) {
  auto it = server_.find(instance);
  // No record: not an instance this server created (:268-278), ignored.
  if (it == server_.end()) return;
  // The switch of :349-410 has no case for UNKNOWN: the phase stays.
  if (api_phase == "UNKNOWN" || api_phase.empty()) return;
  // What ws-manager publishes is an API phase (mk1 phase_name, mk2 extractWorkspaceStatus).
  WSIM_ASSERT_MSG(api_phase == "PENDING" || api_phase == "CREATING" ||
                      api_phase == "INITIALIZING" || api_phase == "RUNNING" ||
                      api_phase == "INTERRUPTED" || api_phase == "STOPPING" ||
                      api_phase == "STOPPED",
                  "API phase " << api_phase);
  // A stopping event for an instance already stopped is ignored (:386-397).
  if (api_phase == "STOPPING" && it->second.phase == "stopped") return;
  // RUNNING resets stoppingTime (:372-381).
  if (api_phase == "RUNNING") it->second.stopping_ms.reset();
  WSIM_ASSERT(!it->second.phase.empty());  // Created "pending" by user_start.
  std::string phase = api_phase;
  for (char& c : phase) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  set_server_phase(instance, phase);
}

// ws-manager-bridge components/ws-manager-bridge/src/workspace-instance-controller.ts
// @ 4f45d02eac95 controlNonStoppedWSManagerManagedInstances :128-186: a record that is not
// stopped but that ws-manager's GetWorkspaces does not list is marked stopped when it is
// "running", "pending" for longer than pendingPhaseSeconds since its creation, or "stopping" for
// longer than stoppingPhaseSeconds (both 3600: install/installer/pkg/components/ws-manager-bridge/
// configmap.go :28-34); nothing when ws-manager does not answer. Simplified: evaluated when the
// server reads the record (a start), not on the controller's 60 s tick (configmap.go :22).
void GitpodRun::control_instance(const std::string& instance) {
  WSIM_ASSERT(!instance.empty());
  auto it = server_.find(instance);
  if (it == server_.end() || it->second.phase == "stopped") return;
  if (!manager_->up() || manager_->lists(instance)) return;
  const ServerInstance& record = it->second;
  constexpr DurationMs kPhaseTimeoutMs = kHourMs;
  const TimeMs now_ms = sim_.now_ms();
  WSIM_ASSERT_GE(now_ms, record.created_ms);
  const bool stale = record.phase == "running" ||
                     (record.phase == "pending" && now_ms - record.created_ms > kPhaseTimeoutMs) ||
                     (record.phase == "stopping" && record.stopping_ms.has_value() &&
                      now_ms - *record.stopping_ms > kPhaseTimeoutMs);
  if (stale) set_server_phase(instance, "stopped");
}

Task<void> GitpodRun::user_start_actor(StartRequest request) {
  WSIM_ASSERT(server_.count(request.instance) > 0);  // user_start created the record.
  const ApiReply reply = co_await manager_->start_workspace(request);
  sim_.record("user/" + request.workspace_id, "start-reply", request.instance,
              api_code_name(reply.code), reply.message);
  // components/server/src/workspace/workspace-starter.ts @ 4f45d02eac95 failInstanceStart
  // :887-903: a start ws-manager refused marks the instance stopped. Simplified: upstream leaves
  // the instance pending on ALREADY_EXISTS and UNAVAILABLE (:742-756) for the
  // workspace-start-controller to try again; the port's server does not retry a start, so every
  // refused start ends the instance.
  if (!reply.ok()) set_server_phase(request.instance, "stopped");
}

void GitpodRun::user_start(const std::string& workspace_id) {
  WSIM_ASSERT(!workspace_id.empty());
  // The server answers with the current instance and starts nothing unless that instance's
  // phase, as the server last recorded it, is "stopped": components/server/src/workspace/
  // workspace-service.ts @ 4f45d02eac95 startWorkspace :822-831 (latestInstance) and :840-846
  // (gitpod-db typeorm/workspace-db-impl.ts findRunningInstance :138-144: the current instance
  // unless stopped); the PLIS era the same (gitpod-server-impl.ts @ 724ed7a92a^ startWorkspace
  // :402-413, gitpod-db workspace-db.ts findRunningInstance :159-165). Until issue #30
  // (docs/fidelity.md U1) the port started a new instance whatever the current one's phase.
  auto started = starts_.find(workspace_id);
  if (started != starts_.end()) {
    const std::string latest = workspace_id + "-" + std::to_string(started->second);
    control_instance(latest);
    const std::string phase = server_phase(latest);
    if (!phase.empty() && phase != "stopped") {
      sim_.record("server", "start", workspace_id, "current",
                  "current instance " + latest + " not stopped (" + phase + ")");
      return;
    }
  }
  // The Gitpod server picks a workspace cluster: score > 0 and state available (§9.3.5).
  if (!world_->gate().admits()) {
    sim_.record("server", "start", workspace_id, "refused", "no available workspace cluster");
    return;
  }
  StartRequest request;
  request.workspace_id = workspace_id;
  request.instance = workspace_id + "-" + std::to_string(++starts_[workspace_id]);
  WSIM_ASSERT(server_.count(request.instance) == 0);  // Instance names are never reused.
  // The instance record is "pending" when the server calls ws-manager's StartWorkspace
  // (workspace-starter.ts @ 4f45d02eac95 tryStartOnCluster :844-846; "preparing" before, while
  // the image is built, which the port does not model).
  server_[request.instance] = ServerInstance{"pending", sim_.now_ms(), std::nullopt};
  checker_->user_started(request.instance);
  sim_.loop().spawn("user/" + workspace_id, user_start_actor(request));
}

Task<void> GitpodRun::user_stop_actor(std::string instance, StopPolicy policy) {
  WSIM_ASSERT(!instance.empty());
  const ApiReply reply = co_await manager_->stop_workspace(instance, policy);
  sim_.record("user", "stop-reply", instance, api_code_name(reply.code), stop_policy_name(policy));
  if (reply.ok()) checker_->user_stop_succeeded(instance);
}

void GitpodRun::user_stop(const std::string& workspace_id, StopPolicy policy) {
  WSIM_ASSERT(!workspace_id.empty());
  const std::string instance = current_instance(workspace_id);
  if (instance.empty()) return;
  sim_.loop().spawn("user/" + workspace_id, user_stop_actor(instance, policy));
}

void GitpodRun::user_mark_active(const std::string& workspace_id) {
  WSIM_ASSERT(!workspace_id.empty());
  const std::string instance = current_instance(workspace_id);
  if (instance.empty()) return;
  sim_.loop().spawn("user/" + workspace_id, user_mark_active_actor(instance));
}

Task<void> GitpodRun::user_mark_active_actor(std::string instance) {
  WSIM_ASSERT(!instance.empty());
  const ApiReply reply = co_await manager_->mark_active(instance);
  if (reply.ok()) checker_->user_marked_active(instance, sim_.now_ms());
}

bool GitpodRun::user_write(const std::string& workspace_id) {
  const std::string instance = current_instance(workspace_id);
  if (instance.empty()) return false;
  const kube::Object* pod =
      world_->api().peek(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)});
  // The IDE works against a ready, running pod whose content is initialized.
  if (pod == nullptr || pod_deleting(*pod) || !container_running(*pod) ||
      pod->status_or("ready", "") != "true") {
    return false;
  }
  // Latest mk2: the IDE is reached through ws-proxy, which routes to the pod IP ws-manager recorded
  // in the CR's status (upstream components/ws-proxy/pkg/proxy/infoprovider.go
  // CRDWorkspaceInfoProvider.Reconcile reads Status.Runtime.PodIP, @ 4f45d02eac95): until
  // ws-manager wrote it, nobody reaches the IDE [reconstructed]. Until 2026-11-26 the user wrote
  // as soon as the pod was ready, which let a delayed status write (no EverReady yet) turn a
  // rejection after ready into a wipe of content no real user could have written.
  // And the IDE page keeps its loading frame until the instance's phase is "running"
  // (components/supervisor/frontend/src/index.ts @ 4f45d02eac95 nextFrame :124-164, the check at
  // :137); ws-manager publishes the phase stored in the CR (controllers/subscriber_controller.go
  // Reconcile :51-72, service/manager.go extractWorkspaceStatus :1044-1045), and the CR is Running
  // only with ContentReady (controllers/status.go :224-243). The bridge's delay is not modelled.
  // Until 2026-11-29 (issue #30, docs/fidelity.md U2) the mk2 user wrote while the CR was still
  // Initializing, which made N8, N9 and N10 (corpus/gitpod-findings.md) reachable.
  if (versions_.mk2()) {
    const kube::Object* ws =
        world_->api().peek(kube::ObjectRef{kWorkspaceKind, kNamespace, instance});
    if (ws == nullptr || status_str(*ws, kStatusPodIp).empty() ||
        status_str(*ws, kStatusPhase) != kPhaseRunning) {
      return false;
    }
  } else if (pod->meta.annotations.count(kAnnNeverReady) != 0) {
    // mk1: the IDE page keeps its loading frame until the instance's phase is "running"
    // (components/supervisor/frontend/src/index.ts @ 724ed7a92a^ and @ 08774bd177^ :73-93,
    // nextFrame; ws-manager-bridge bridge.ts @ 724ed7a92a^ :157-166 maps INITIALIZING to
    // "initializing"), and ws-manager reports RUNNING only once gitpod/never-ready is gone
    // (status.go @ 724ed7a92a^ :571-578, @ c8c4c3bda92c :522-531). The bridge's delay is not
    // modelled. Until issue #30 (docs/fidelity.md M11) the user wrote to any ready pod.
    return false;
  }
  const Session* session = world_->content().session(pod_node(*pod), instance);
  if (session == nullptr || !session->initialized || !session->intact) return false;
  const std::int64_t version_before = session->version;
  const std::int64_t version = world_->content().write(pod_node(*pod), instance);
  WSIM_ASSERT_GT(version, version_before);  // A write bumps the content version (content.h).
  checker_->user_wrote(workspace_id, instance);
  sim_.record("user/" + workspace_id, "write", instance, "ok",
              "version " + std::to_string(version));
  return true;
}

void GitpodRun::set_maintenance(bool on) {
  manager_->set_maintenance(on);
  checker_->maintenance_changed(on);
  sim_.record("admin", on ? "maintenance-on" : "maintenance-off", "", "ok");
}

void GitpodRun::strip_finalizers(const std::string& instance) {
  kube::ApiServer& api = world_->api();
  const kube::ObjectRef ref{"Pod", kNamespace, pod_name(instance)};
  const kube::Object* pod = api.peek(ref);
  if (pod == nullptr || pod->meta.finalizers.empty()) return;
  checker_->external_finalizer_removal(instance);
  kube::MergePatch patch;
  patch.finalizers = std::vector<std::string>{};
  const kube::Result<kube::Object> r =
      api.server_patch(ref, patch, kube::Subresource::kMain, "kubectl");
  sim_.record("kubectl", "strip-finalizers", ref.to_string(),
              r.ok() ? "ok" : kube::code_name(r.status.code));
}

void GitpodRun::operator_delete_workspace(const std::string& instance) {
  const kube::ObjectRef ref{kWorkspaceKind, kNamespace, instance};
  const kube::Status s = world_->api().server_delete(ref, kube::DeleteOptions{}, "kubectl");
  if (s.ok()) {
    // Accepted: the CR is gone, or deleting until ws-manager removes its finalizer.
    const kube::Object* cr = world_->api().peek(ref);
    WSIM_ASSERT(cr == nullptr || cr->meta.deletion_ms.has_value());
    checker_->operator_deleted_workspace(instance);
  }
  sim_.record("kubectl", "delete", ref.to_string(), s.ok() ? "ok" : kube::code_name(s.code));
}

std::optional<run::Violation> GitpodRun::check_safety() {
  if (auto world = run::world_safety_violation(world_->cluster())) return world;
  if (checker_->quiet()) return std::nullopt;  // What next_violation() would say, without it.
  return checker_->next_violation();
}

void GitpodRun::heal() {
  WSIM_ASSERT(started_);
  workload_->heal();
  world_->set_breaker(false);
  // Components the random workload crashed come back; scripted outages stay as scripted.
  for (const std::string& node : workload_->crashed_daemons()) world_->daemon_up(node);
  if (workload_->crashed_manager()) manager_->start();
}

std::vector<run::Violation> GitpodRun::check_liveness() {
  WSIM_ASSERT(started_);
  std::vector<run::Violation> out = checker_->liveness();
  run::append_world_liveness(world_->cluster(), out);
  return out;
}

kube::ApiServer* GitpodRun::api_server() { return &world_->api(); }

std::string GitpodRun::describe_state() const {
  std::ostringstream out;
  out << "gitpod " << describe(versions_) << "\n";
  kube::ApiServer& api = world_->api();
  for (const kube::Object* ws : api.peek_list(kWorkspaceKind, kNamespace)) {
    out << "  " << ws->meta.name << " phase=" << phase(*ws)
        << " podStarts=" << status_str(*ws, kStatusPodStarts)
        << " podRecreated=" << status_str(*ws, kStatusPodRecreated) << " conditions:";
    for (const kube::Condition& c : ws->conditions) {
      if (c.type == kCondRefresh) continue;
      out << " " << c.type << "=" << c.status;
    }
    out << (ws->meta.deletion_ms.has_value() ? " (deleting)" : "") << "\n";
  }
  for (const kube::Object* pod : api.peek_list("Pod", kNamespace)) {
    out << "  " << pod->meta.name << " on " << pod_node(*pod) << " " << pod_status_phase(*pod)
        << (pod_deleting(*pod) ? " Terminating" : "")
        << " finalizers=" << pod->meta.finalizers.size() << "\n";
  }
  for (const std::string& id : world_->content().workspace_ids()) {
    const std::optional<Backup> b = world_->content().backup(id);
    out << "  content " << id << " latest=v" << world_->content().latest_written(id) << " backup="
        << (b.has_value() ? "v" + std::to_string(b->version) + (b->intact ? "" : " partial")
                          : "none")
        << "\n";
  }
  out << checker_->describe_losses();
  return out.str();
}

std::vector<std::pair<std::string, std::string>> GitpodRun::swarm_parameters() const {
  std::vector<std::pair<std::string, std::string>> out = workload_->parameters();
  out.insert(out.begin(), {"gitpod.versions", describe(versions_)});
  return out;
}

}  // namespace wsim::gitpod
