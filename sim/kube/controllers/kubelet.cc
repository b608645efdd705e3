// See kubelet.h ([reconstructed] kubelet semantics, [invented] delays).
#include "sim/kube/controllers/kubelet.h"

#include <algorithm>
#include <utility>

#include "sim/core/log.h"

namespace wsim::kube {

namespace {
using StatusPatch = std::map<std::string, std::optional<std::string>>;

std::string result_name(const Status& status) {
  return status.ok() ? "ok" : code_name(status.code);
}

// The pod phases a kubelet may write over `from` (Kubernetes' pod lifecycle: "" → Pending or
// Failed at admission; Pending → Running, or straight to a terminal phase; Running → a terminal
// phase; Succeeded and Failed are final).
bool legal_phase_transition(const std::string& from, const std::string& to) {
  WSIM_ASSERT(!to.empty());  // A write always names the phase it writes.
  if (from == to) return true;
  if (from.empty()) return to == "Pending" || to == "Failed";
  if (from == "Pending") return to == "Running" || to == "Succeeded" || to == "Failed";
  if (from == "Running") return to == "Succeeded" || to == "Failed";
  return false;
}
}  // namespace

std::string rejection_message(const std::string& reason, std::int64_t requested, std::int64_t used,
                              std::int64_t capacity) {
  WSIM_ASSERT(!reason.empty());
  auto resource = [&](const char* name) {
    return std::string("Pod was rejected: Node didn't have enough resource: ") + name +
           ", requested: " + std::to_string(requested) + ", used: " + std::to_string(used) +
           ", capacity: " + std::to_string(capacity);
  };
  if (reason == "OutOfcpu") return resource("cpu");
  if (reason == "OutOfmemory") return resource("memory");
  if (reason == "NodeAffinity") return "Pod was rejected: Predicate NodeAffinity failed";
  return "Pod was rejected: " + reason;
}

KubeletShared::KubeletShared(Sim& sim, KubeletOptions o)
    : options(o),
      stream(sim.stream("kube.kubelet")),
      reject_stream(sim.stream("kube.fault.kubelet_reject")) {
  reject_fault = sim.faults().declare(
      kRejectFault,
      "kubelet rejects a bound pod at admission (Failed: NodeAffinity/OutOfcpu/OutOfmemory)",
      o.reject_enable, o.reject_fire);
  probe_rejected_at_admission =
      sim.probes().declare("kube.kubelet.rejected_at_admission", "a pod was rejected at admission");
  probe_rejected_running = sim.probes().declare(
      "kube.kubelet.rejected_running", "a running pod was rejected (re-admission, #20372)");
  probe_sigkill_after_grace =
      sim.probes().declare("kube.kubelet.sigkill_after_grace",
                           "a container ignored SIGTERM until its grace period ended");
}

Kubelet::Kubelet(Sim& sim, ApiServer& api, KubeletShared& shared, std::string node)
    : sim_(sim), api_(api), shared_(shared), node_(std::move(node)) {
  WSIM_ASSERT(!node_.empty());
}

Kubelet::PodState* Kubelet::find(const std::string& uid) {
  WSIM_ASSERT(!uid.empty());
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : &it->second;
}

const Object* Kubelet::ours(const ObjectRef& ref, std::string& uid) const {
  WSIM_ASSERT_EQ(ref.kind, "Pod");
  const Object* pod = api_.peek(ref);
  if (pod == nullptr || pod->spec_or("nodeName", "") != node_) return nullptr;
  if (pods_.count(pod->meta.uid) == 0) return nullptr;
  uid = pod->meta.uid;
  return pod;
}

NodeUsage Kubelet::usage_excluding(const std::string& uid) const {
  WSIM_ASSERT(!uid.empty());
  NodeUsage used;
  for (const auto& [other, state] : pods_) {
    if (other == uid) continue;
    if (state.stage != Stage::kCreating && state.stage != Stage::kRunning &&
        state.stage != Stage::kRestarting && state.stage != Stage::kStopping) {
      continue;
    }
    const Object* pod = api_.peek(state.ref);
    if (pod == nullptr) continue;
    used.cpu_milli += int_field(pod->spec, "cpuMilli", 0);
    used.memory_mib += int_field(pod->spec, "memoryMiB", 0);
  }
  return used;
}

void Kubelet::schedule(const std::string& uid, Action action, DurationMs delay_ms) {
  WSIM_ASSERT_GE(delay_ms, 0);
  PodState* state = find(uid);
  if (state == nullptr) return;
  const std::uint64_t token = ++state->token;
  state->pending = action;
  state->parked = false;
  sim_.loop().schedule(delay_ms, [this, uid, token] { run(uid, token); });
}

void Kubelet::cancel(PodState& state) {
  WSIM_ASSERT(!state.ref.name.empty());
  ++state.token;
  state.pending = Action::kNone;
  state.parked = false;
}

void Kubelet::run(const std::string& uid, std::uint64_t token) {
  PodState* state = find(uid);
  if (state == nullptr || state->token != token || stopped_) return;
  if (!node_ready_ || !posting_) {
    state->parked = true;  // Resumed by resume_parked() when the node is ready again.
    return;
  }
  const Object* live = api_.peek(state->ref);
  if (live == nullptr || live->meta.uid != uid) {
    pods_.erase(uid);
    return;
  }
  const Object pod = *live;
  WSIM_ASSERT_EQ(pod.spec_or("nodeName", ""), node_);
  const Action action = std::exchange(state->pending, Action::kNone);
  switch (action) {
    case Action::kNone:
      break;
    case Action::kAdmit:
      admit(uid, pod);
      break;
    case Action::kStart:
    case Action::kRestart:
      start_container(uid, pod);
      break;
    case Action::kReady:
      become_ready(uid, pod);
      break;
    case Action::kStop:
      stop_container(uid, pod, "");
      break;
    case Action::kFinalize:
      finalize(uid, pod);
      break;
  }
}

void Kubelet::on_pod(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Pod");
  if (stopped_) return;
  const Object& pod = event.object;
  const std::string& uid = pod.meta.uid;
  if (event.type == WatchEventType::kDeleted) {
    pods_.erase(uid);
    return;
  }
  auto [it, inserted] = pods_.try_emplace(uid);
  PodState& state = it->second;
  if (inserted) {
    state.ref = ObjectRef::of(pod);
    if (pod_is_terminal(pod)) {
      state.stage = Stage::kExited;
    } else if (!is_deleting(pod)) {
      schedule(uid, Action::kAdmit, draw_delay(shared_.stream, shared_.options.admit));
      return;
    }
  }
  if (is_deleting(pod) && state.stage != Stage::kStopping && state.stage != Stage::kStopped) {
    begin_deletion(uid, pod);
  } else if (state.stage == Stage::kStopped && pod.meta.finalizers.empty() &&
             state.pending == Action::kNone && pod.meta.deletion_grace_period_ms.value_or(0) > 0) {
    // Still in its grace period with no finalizer left: finish the removal.
    schedule(uid, Action::kFinalize, draw_delay(shared_.stream, shared_.options.finalize));
  }
}

void Kubelet::on_node(const Object& node) {
  WSIM_ASSERT_EQ(node.kind, "Node");
  if (stopped_) return;
  const bool ready = node.status_or("ready", "false") == "true";
  if (ready == node_ready_) return;
  node_ready_ = ready;
  if (ready) resume_parked();
}

void Kubelet::set_posting(bool posting) {
  if (stopped_ || posting == posting_) return;
  posting_ = posting;
  if (!posting) return;
  WSIM_ASSERT(!node_.empty());
  const ObjectRef ref{"Node", "", node_};
  const Object* node = api_.peek(ref);
  if (node != nullptr && node->status_or("ready", "false") != "true") {
    // tryUpdateNodeStatus: the node is Ready again (on_node() resumes the parked steps).
    MergePatch patch;
    patch.status["ready"] = "true";
    patch.status["readyReason"] = std::nullopt;
    const Result<Object> written = api_.server_patch(ref, patch, Subresource::kStatus, actor());
    sim_.record(actor(), "post-status", ref.to_string(), result_name(written.status), "ready");
  }
  resume_parked();  // Parked while the node stayed ready (a silence shorter than the grace).
}

void Kubelet::resume_parked() {
  if (stopped_ || !node_ready_ || !posting_) return;
  std::vector<std::string> resume;
  for (const auto& [uid, state] : pods_) {
    WSIM_ASSERT(!uid.empty());  // Pods are tracked by their uid.
    resume.push_back(uid);
  }
  for (const std::string& uid : resume) {
    PodState* state = find(uid);
    if (state == nullptr) continue;
    if (state->parked) {
      schedule(uid, state->pending, 0);
    } else if (state->pending == Action::kNone && state->stage == Stage::kRunning && state->ready) {
      // The node lifecycle controller marked it not ready while the node was down.
      const Object* pod = api_.peek(state->ref);
      if (pod != nullptr && !pod_is_ready(*pod)) {
        schedule(uid, Action::kReady, draw_delay(shared_.stream, shared_.options.ready));
      }
    }
  }
}

void Kubelet::stop() {
  stopped_ = true;
  pods_.clear();
  WSIM_ASSERT(!node_.empty());
}

Result<Object> Kubelet::write_status(const Object& pod, StatusPatch status,
                                     const char* ready_status, const char* ready_reason) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  WSIM_ASSERT_EQ(pod.spec_or("nodeName", ""), node_);
  if (auto phase = status.find("phase"); phase != status.end() && phase->second.has_value()) {
    const std::string from = pod.status_or("phase", "");
    WSIM_ASSERT_MSG(legal_phase_transition(from, *phase->second),
                    "kubelet " << node_ << " writes phase " << *phase->second << " over " << from
                               << " on " << ObjectRef::of(pod).to_string());
    if (from != *phase->second) {
      WSIM_LOG_DEBUG("kubelet/" << node_ << ": " << ObjectRef::of(pod).to_string() << " phase "
                                << (from.empty() ? "(none)" : from) << " -> " << *phase->second);
    }
  }
  MergePatch patch;
  patch.status = std::move(status);
  // The conditions are copied only when Ready changes (set_condition would change nothing).
  if (ready_status != nullptr &&
      !condition_holds(pod.conditions, "Ready", ready_status, ready_reason)) {
    std::vector<Condition> conditions = pod.conditions;
    if (set_condition(conditions, Condition{"Ready", ready_status, ready_reason, "", 0},
                      sim_.now_ms())) {
      patch.conditions = std::move(conditions);
    }
  }
  return api_.server_patch(ObjectRef::of(pod), patch, Subresource::kStatus, actor());
}

void Kubelet::admit(const std::string& uid, const Object& pod) {
  WSIM_ASSERT_EQ(pod.meta.uid, uid);
  PodState* state = find(uid);
  if (state == nullptr || state->stage != Stage::kNew) return;
  const ObjectRef ref = state->ref;
  const Object* node = api_.peek(ObjectRefView{"Node", "", node_});
  const NodeUsage used = usage_excluding(uid);
  const std::int64_t cpu = int_field(pod.spec, "cpuMilli", 0);
  const std::int64_t memory = int_field(pod.spec, "memoryMiB", 0);
  const std::int64_t cpu_capacity = node != nullptr ? int_field(node->status, "cpuMilli", 0) : 0;
  const std::int64_t memory_capacity =
      node != nullptr ? int_field(node->status, "memoryMiB", 0) : 0;

  std::string reason;
  std::string cause;
  if (auto forced = shared_.reject_at_admission.find(ref);
      forced != shared_.reject_at_admission.end()) {
    reason = forced->second;
    if (reason.empty()) reason = kRejectionReasons[shared_.reject_stream.below(3)];
    shared_.reject_at_admission.erase(forced);
    cause = "forced";
  } else if (node != nullptr &&
             !node_selector_matches(pod.spec_or("nodeSelector", ""), node->meta.labels)) {
    reason = "NodeAffinity";
    cause = "node labels changed since scheduling";
  } else if (used.cpu_milli + cpu > cpu_capacity) {
    reason = "OutOfcpu";
    cause = "accounting";
  } else if (used.memory_mib + memory > memory_capacity) {
    reason = "OutOfmemory";
    cause = "accounting";
  } else if (sim_.faults().fires(shared_.reject_fault, shared_.reject_stream)) {
    reason = kRejectionReasons[shared_.reject_stream.below(3)];
    cause = "fault kube.kubelet.reject";
  }

  if (!reason.empty()) {
    std::string message;
    if (reason == "OutOfmemory") {
      message = rejection_message(reason, memory, used.memory_mib, memory_capacity);
    } else {
      message = rejection_message(reason, cpu, used.cpu_milli, cpu_capacity);
    }
    state->stage = Stage::kRejected;
    ++shared_.counters.rejected;
    sim_.probes().hit(shared_.probe_rejected_at_admission);
    const Result<Object> written = write_status(
        pod, {{"phase", "Failed"}, {"reason", reason}, {"message", message}, {"ready", "false"}},
        "False", "PodFailed");
    sim_.record(actor(), "reject", ref.to_string(), reason, cause + ": " + message);
    (void)written;
    return;
  }

  state->stage = Stage::kCreating;
  ++shared_.counters.admitted;
  const Result<Object> written = write_status(pod,
                                              {{"phase", "Pending"},
                                               {"container.state", "waiting"},
                                               {"container.reason", "ContainerCreating"},
                                               {"ready", "false"}},
                                              "False", "ContainersNotReady");
  sim_.record(actor(), "admit", ref.to_string(), result_name(written.status));
  schedule(uid, Action::kStart, draw_delay(shared_.stream, shared_.options.start));
}

void Kubelet::start_container(const std::string& uid, const Object& pod) {
  WSIM_ASSERT_EQ(pod.meta.uid, uid);
  PodState* state = find(uid);
  if (state == nullptr ||
      (state->stage != Stage::kCreating && state->stage != Stage::kRestarting)) {
    return;
  }
  const ObjectRef ref = state->ref;
  state->stage = Stage::kRunning;
  state->ready = false;
  ++shared_.counters.started;
  const Result<Object> written = write_status(pod,
                                              {{"phase", "Running"},
                                               {"container.state", "running"},
                                               {"container.reason", std::nullopt},
                                               {"container.exitCode", std::nullopt},
                                               {"container.message", std::nullopt},
                                               {"ready", "false"}},
                                              "False", "ContainersNotReady");
  sim_.record(actor(), "start", ref.to_string(), result_name(written.status));
  if (pod.spec_or("readiness", "auto") != "manual") {
    schedule(uid, Action::kReady, draw_delay(shared_.stream, shared_.options.ready));
  }
}

void Kubelet::become_ready(const std::string& uid, const Object& pod) {
  WSIM_ASSERT_EQ(pod.meta.uid, uid);
  PodState* state = find(uid);
  if (state == nullptr || state->stage != Stage::kRunning) return;
  WSIM_ASSERT(!pod_is_terminal(pod));
  state->ready = true;
  ++shared_.counters.ready;
  const ObjectRef ref = state->ref;
  const Result<Object> written =
      write_status(pod, {{"ready", "true"}, {"everReady", "true"}}, "True", "");
  sim_.record(actor(), "ready", ref.to_string(), result_name(written.status));
}

void Kubelet::begin_deletion(const std::string& uid, const Object& pod) {
  WSIM_ASSERT_EQ(pod.meta.uid, uid);
  PodState* state = find(uid);
  if (state == nullptr) return;
  const KubeletOptions& options = shared_.options;
  switch (state->stage) {
    case Stage::kNew:
    case Stage::kCreating:
    case Stage::kRestarting:
      // No container runs: stop at once.
      state->stage = Stage::kStopping;
      state->stop_exit_code = -1;
      schedule(uid, Action::kStop, 0);
      return;
    case Stage::kRunning: {
      std::int64_t grace =
          pod.meta.deletion_grace_period_ms.has_value()
              ? *pod.meta.deletion_grace_period_ms
              : int_field(pod.spec, "terminationGracePeriodMs", options.default_grace_ms);
      grace = std::clamp<std::int64_t>(grace, 0, options.max_grace_ms);
      state->stage = Stage::kStopping;
      DurationMs delay = 0;
      if (grace <= 0) {
        state->stop_exit_code = 137;
      } else if (!shared_.stream.chance(options.hang_on_sigterm)) {
        delay = std::min<DurationMs>(draw_delay(shared_.stream, options.prompt_stop), grace);
        state->stop_exit_code = 0;  // Exits on SIGTERM.
      } else {
        delay = grace;
        state->stop_exit_code = 137;  // Ignores SIGTERM: SIGKILL when the grace period ends.
        sim_.probes().hit(shared_.probe_sigkill_after_grace);
      }
      sim_.record(
          actor(), "kill", state->ref.to_string(), "ok",
          "grace " + std::to_string(grace) + "ms, stops after " + std::to_string(delay) + "ms");
      schedule(uid, Action::kStop, delay);
      return;
    }
    case Stage::kRejected:
    case Stage::kExited:
      // Nothing runs; the pod is removed by the server once its finalizers are gone (a terminal
      // pod gets no grace period). Finalize in case it was deleted while still running.
      state->stage = Stage::kStopped;
      schedule(uid, Action::kFinalize, draw_delay(shared_.stream, options.finalize));
      return;
    case Stage::kStopping:
    case Stage::kStopped:
      return;
  }
}

void Kubelet::stop_container(const std::string& uid, const Object& pod,
                             const std::string& message) {
  PodState* state = find(uid);
  if (state == nullptr || state->stage != Stage::kStopping) return;
  WSIM_ASSERT_EQ(pod.meta.uid, uid);
  const ObjectRef ref = state->ref;
  const int exit_code = state->stop_exit_code;
  WSIM_ASSERT_GE(exit_code, -1);
  state->stage = Stage::kStopped;
  state->ready = false;
  ++shared_.counters.stopped;
  StatusPatch status{{"ready", "false"}};
  if (exit_code < 0) {
    if (!pod_is_terminal(pod)) status["phase"] = "Failed";
  } else {
    status["container.state"] = "terminated";
    status["container.exitCode"] = std::to_string(exit_code);
    status["container.reason"] = exit_code == 0 ? "Completed" : "Error";
    if (!message.empty()) status["container.message"] = message;
    status["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
  }
  const Result<Object> written = write_status(pod, std::move(status), "False", "PodCompleted");
  sim_.record(actor(), "stop", ref.to_string(), result_name(written.status),
              exit_code < 0 ? "never started" : "exit " + std::to_string(exit_code));
  schedule(uid, Action::kFinalize, draw_delay(shared_.stream, shared_.options.finalize));
}

void Kubelet::finalize(const std::string& uid, const Object& pod) {
  PodState* state = find(uid);
  if (state == nullptr || state->stage != Stage::kStopped) return;
  WSIM_ASSERT_EQ(pod.meta.uid, uid);
  const ObjectRef ref = state->ref;
  const std::string who = actor();
  // The kubelet's final delete (grace 0): the server removes the pod now, or as soon as its
  // finalizers are gone (e.g. Gitpod's ws-manager removes its own).
  api_.server_finalize(ref, who);  // May erase `state` (Deleted event).
  const Object* after = api_.peek(ref);
  const bool removed = after == nullptr || after->meta.uid != uid;
  if (removed) {
    ++shared_.counters.removed;
    pods_.erase(uid);
  }
  sim_.record(who, "remove", ref.to_string(), removed ? "ok" : "waiting for finalizers",
              removed ? "" : "finalizers: " + std::to_string(pod.meta.finalizers.size()));
}

Status Kubelet::exit_container(const ObjectRef& ref, int exit_code, const std::string& message) {
  std::string uid;
  const Object* live = ours(ref, uid);
  if (live == nullptr) return Status::Error(Code::kNotFound, ref.to_string() + " not on " + node_);
  PodState* state = find(uid);
  WSIM_ASSERT(state != nullptr);
  if (state->stage == Stage::kStopping && state->stop_exit_code >= 0) {
    // Killed (or exited) while the pod is being deleted, e.g. ws-daemon's SIGKILL after its
    // wait (#20382): the stop completes now with this exit code.
    cancel(*state);
    state->stop_exit_code = exit_code;
    ++shared_.counters.exited;
    const Object pod = *live;
    stop_container(uid, pod, message);
    return Status::Ok();
  }
  if (state->stage != Stage::kRunning) {
    return Status::Error(Code::kConflict, ref.to_string() + ": container not running");
  }
  const Object pod = *live;
  const std::string policy = pod.spec_or("restartPolicy", "Always");
  const bool terminal = policy == "Never" || (policy == "OnFailure" && exit_code == 0);
  StatusPatch status{{"container.state", "terminated"},
                     {"container.exitCode", std::to_string(exit_code)},
                     {"container.reason", exit_code == 0 ? "Completed" : "Error"},
                     {"ready", "false"}};
  if (!message.empty()) status["container.message"] = message;
  ++shared_.counters.exited;
  cancel(*state);
  state->ready = false;
  if (terminal) {
    state->stage = Stage::kExited;
    status["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
  } else {
    state->stage = Stage::kRestarting;
    status["container.restartCount"] =
        std::to_string(int_field(pod.status, "container.restartCount", 0) + 1);
  }
  const Result<Object> written = write_status(pod, std::move(status), "False",
                                              terminal ? "PodCompleted" : "ContainersNotReady");
  sim_.record(actor(), "exit", ref.to_string(), result_name(written.status),
              "exit " + std::to_string(exit_code) + (terminal ? ", terminal" : ", restarting"));
  if (!terminal)
    schedule(uid, Action::kRestart, draw_delay(shared_.stream, shared_.options.restart));
  return written.status;
}

Status Kubelet::reject_running(const ObjectRef& ref, const std::string& reason) {
  std::string uid;
  const Object* live = ours(ref, uid);
  if (live == nullptr) return Status::Error(Code::kNotFound, ref.to_string() + " not on " + node_);
  PodState* state = find(uid);
  WSIM_ASSERT(state != nullptr);
  if (state->stage != Stage::kRunning && state->stage != Stage::kRestarting) {
    return Status::Error(Code::kConflict, ref.to_string() + ": no running container to reject");
  }
  const Object pod = *live;
  const Object* node = api_.peek(ObjectRefView{"Node", "", node_});
  const NodeUsage used = usage_excluding(uid);
  std::string message;
  if (reason == "OutOfmemory") {
    message = rejection_message(reason, int_field(pod.spec, "memoryMiB", 0), used.memory_mib,
                                node != nullptr ? int_field(node->status, "memoryMiB", 0) : 0);
  } else {
    message = rejection_message(reason, int_field(pod.spec, "cpuMilli", 0), used.cpu_milli,
                                node != nullptr ? int_field(node->status, "cpuMilli", 0) : 0);
  }
  cancel(*state);
  state->stage = Stage::kRejected;
  state->ready = false;
  ++shared_.counters.rejected_running;
  sim_.probes().hit(shared_.probe_rejected_running);
  const Result<Object> written = write_status(pod,
                                              {{"phase", "Failed"},
                                               {"reason", reason},
                                               {"message", message},
                                               {"ready", "false"},
                                               {"container.state", "terminated"},
                                               {"container.exitCode", "137"},
                                               {"container.reason", "Error"}},
                                              "False", "PodFailed");
  sim_.record(actor(), "reject", ref.to_string(), reason, "running pod re-admitted: " + message);
  return written.status;
}

Status Kubelet::set_ready(const ObjectRef& ref, bool ready) {
  std::string uid;
  const Object* live = ours(ref, uid);
  if (live == nullptr) return Status::Error(Code::kNotFound, ref.to_string() + " not on " + node_);
  PodState* state = find(uid);
  WSIM_ASSERT(state != nullptr);
  if (state->stage != Stage::kRunning) {
    return Status::Error(Code::kConflict, ref.to_string() + ": container not running");
  }
  const Object pod = *live;
  if (state->pending == Action::kReady) cancel(*state);
  state->ready = ready;
  if (ready) ++shared_.counters.ready;
  StatusPatch status{{"ready", ready ? "true" : "false"}};
  if (ready) status["everReady"] = "true";
  const Result<Object> written = write_status(pod, std::move(status), ready ? "True" : "False",
                                              ready ? "" : "ContainersNotReady");
  sim_.record(actor(), ready ? "ready" : "unready", ref.to_string(), result_name(written.status));
  return written.status;
}

}  // namespace wsim::kube
