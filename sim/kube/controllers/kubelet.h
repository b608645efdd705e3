// Upstream: none line by line. Pod phases, container states, grace periods and admission
// rejection messages are [reconstructed] from kubernetes/kubernetes pkg/kubelet behaviour and
// the Pod API; all delays [invented]. docs/fidelity.md K10.
//
// Kubelet: one per node; runs the pods bound to it (spec "nodeName").
//
// Pod lifecycle (each step after a delay drawn from the "kube.kubelet" stream, as
// "kubelet/<node>"):
//   bound → admission: the pod is rejected (below) or its container is created
//           (status container.state=waiting, container.reason=ContainerCreating, phase Pending)
//         → start: phase Running, container.state=running, ready "false", Ready False
//         → readiness: ready "true", everReady "true", condition Ready True. Pods with spec
//           "readiness"="manual" wait for set_ready() instead (e.g. Gitpod's content init).
//   container exit (exit_container(), a model's request): container.state=terminated,
//           container.exitCode, container.reason Completed/Error; restartPolicy Never (or
//           OnFailure with exit 0) → phase Succeeded (0) / Failed; Always → restarted after a
//           back-off (container.restartCount).
//   deletion: the container gets SIGTERM; it stops promptly (choice 0) or, with probability
//           hang_on_sigterm, only when the grace
//           period ends (meta deletion_grace_period_ms, else spec "terminationGracePeriodMs",
//           else 30 s; capped at max_grace_ms) with exit 137; then phase Succeeded/Failed and,
//           once the pod's finalizers are gone, server_finalize removes it. A pod whose container
//           never ran is stopped at once (phase Failed).
// Admission rejection (Gitpod seed 002, docs/systems/gitpod.md §1.6, §6): phase Failed, reason
// NodeAffinity / OutOfcpu / OutOfmemory, message "Pod was rejected: …", no container ever
// started. Causes: a forced rejection (Cluster::reject_at_admission), the node's labels no longer
// matching spec "nodeSelector", the kubelet's own resource accounting, or the fault point
// "kube.kubelet.reject" (reason drawn). reject_running() rejects a running pod (the #20372
// re-admission case).
// A node that is not ready pauses its kubelet: pending steps resume when it is ready again.
// A kubelet that stops posting status (set_posting(false), the fault point kube.node.not_ready
// of the Cluster: the kubelet is hung or cut off from the API server) pauses the same way from
// that moment; when it posts again it writes its node ready (if the node lifecycle controller
// marked it not ready meanwhile) and resumes. [reconstructed] Its synchronous actions (a
// model's exit_container, set_ready, reject_running) are still written at once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/controllers/controller_util.h"
#include "sim/kube/controllers/scheduler.h"

namespace wsim::kube {

struct KubeletOptions {
  DelayRange admit{10, 500};        // Binding seen → admission.
  DelayRange start{200, 5000};      // Admission → container running.
  DelayRange ready{0, 3000};        // Running → ready.
  DelayRange prompt_stop{0, 2000};  // SIGTERM → exit, when the container stops promptly.
  Ratio hang_on_sigterm{1, 4};      // The container ignores SIGTERM: killed at the grace end.
  DelayRange restart{1000, 10000};  // Back-off before restarting a container (Always).
  DelayRange finalize{0, 200};      // Terminal status → removal.
  DurationMs default_grace_ms = 30 * kSecondMs;
  DurationMs max_grace_ms = kHourMs;
  Ratio reject_enable{1, 4};  // Fault point kube.kubelet.reject.
  Ratio reject_fire{1, 10};
};

// The rejection message the kubelet writes ("Pod was rejected: …").
std::string rejection_message(const std::string& reason, std::int64_t requested, std::int64_t used,
                              std::int64_t capacity);
inline constexpr const char* kRejectionReasons[] = {"NodeAffinity", "OutOfcpu", "OutOfmemory"};

// State shared by every kubelet of a cluster: options, streams, the fault point, forced
// rejections and counters.
struct KubeletShared {
  static constexpr const char* kRejectFault = "kube.kubelet.reject";

  KubeletShared(Sim& sim, KubeletOptions options);

  KubeletOptions options;
  ChoiceStream stream;         // "kube.kubelet": delays, stop behaviour.
  ChoiceStream reject_stream;  // "kube.fault.kubelet_reject": the fault and its reason.
  FaultId reject_fault = 0;
  // Coverage probes (sim.probes()).
  ProbeId probe_rejected_at_admission = 0;
  ProbeId probe_rejected_running = 0;
  ProbeId probe_sigkill_after_grace = 0;
  // Pods (by namespace/name) to reject at their next admission; value = reason ("" = drawn).
  std::map<ObjectRef, std::string> reject_at_admission;

  struct Counters {
    std::uint64_t admitted = 0;
    std::uint64_t rejected = 0;          // At admission.
    std::uint64_t rejected_running = 0;  // reject_running().
    std::uint64_t started = 0;
    std::uint64_t ready = 0;
    std::uint64_t exited = 0;
    std::uint64_t stopped = 0;  // Containers stopped for a deletion.
    std::uint64_t removed = 0;  // Pods finalized by a kubelet.
  } counters;
};

class Kubelet {
 public:
  Kubelet(Sim& sim, ApiServer& api, KubeletShared& shared, std::string node);
  Kubelet(const Kubelet&) = delete;
  Kubelet& operator=(const Kubelet&) = delete;

  const std::string& node() const { return node_; }
  std::string actor() const { return "kubelet/" + node_; }
  bool stopped() const { return stopped_; }

  // Events of pods bound to this node (dispatched by the Cluster).
  void on_pod(const WatchEvent& event);
  // Changes of this kubelet's Node (readiness pauses and resumes the kubelet).
  void on_node(const Object& node);
  // The node was deleted: the kubelet is gone; its pods are left to the node lifecycle
  // controller.
  void stop();
  // The kubelet stops (false) or resumes (true) posting status; see the top of this file.
  void set_posting(bool posting);
  bool posting() const { return posting_; }

  // --- Actions a model or test asks for. Return NotFound for a pod this kubelet does not run,
  // Conflict if the pod is not in a state where it applies. ---
  // The container exits with `exit_code` (restartPolicy decides what follows). While the pod is
  // being deleted (container still running in its grace period) this ends the stop at once: the
  // pod goes terminal with that exit code and is removed (after its finalizers).
  Status exit_container(const ObjectRef& pod, int exit_code, const std::string& message);
  // Rejects a pod whose container runs (re-admission after a kubelet restart): phase Failed,
  // `reason`, message "Pod was rejected: …"; the container is killed.
  Status reject_running(const ObjectRef& pod, const std::string& reason);
  // Readiness of a running container (for spec readiness=manual, or to flip it later).
  Status set_ready(const ObjectRef& pod, bool ready);

  // Number of pods this kubelet tracks (for tests).
  std::size_t tracked() const { return pods_.size(); }

 private:
  enum class Stage {
    kNew,         // Seen; admission pending.
    kCreating,    // Admitted; container being created.
    kRunning,     // Container running.
    kRestarting,  // Container exited, waiting for its restart (restartPolicy Always).
    kRejected,    // Terminal, container never started (or killed by reject_running).
    kExited,      // Terminal after the container exited on its own.
    kStopping,    // Deleting: container received SIGTERM.
    kStopped,     // Deleting: terminal; waiting for finalizers, then removed.
  };
  enum class Action { kNone, kAdmit, kStart, kReady, kRestart, kStop, kFinalize };
  struct PodState {
    ObjectRef ref;
    Stage stage = Stage::kNew;
    Action pending = Action::kNone;
    std::uint64_t token = 0;
    bool parked = false;
    int stop_exit_code = 0;  // Exit code of the stop in progress (-1: container never ran).
    bool ready = false;      // Container readiness as last written by this kubelet.
  };

  void schedule(const std::string& uid, Action action, DurationMs delay_ms);
  void cancel(PodState& state);
  void run(const std::string& uid, std::uint64_t token);
  // Steps. They take the uid and re-find the state after every write: a write notifies
  // listeners synchronously and may remove the pod (and its state).
  void admit(const std::string& uid, const Object& pod);
  void start_container(const std::string& uid, const Object& pod);
  void become_ready(const std::string& uid, const Object& pod);
  void stop_container(const std::string& uid, const Object& pod, const std::string& message);
  void finalize(const std::string& uid, const Object& pod);
  void begin_deletion(const std::string& uid, const Object& pod);
  // Writes status keys (nullopt removes) and, if ready_status is set, the Ready condition.
  Result<Object> write_status(const Object& pod,
                              std::map<std::string, std::optional<std::string>> status,
                              const char* ready_status, const char* ready_reason);
  PodState* find(const std::string& uid);
  // The live pod `ref` if this kubelet runs it; its uid in `uid`.
  const Object* ours(const ObjectRef& ref, std::string& uid) const;
  NodeUsage usage_excluding(const std::string& uid) const;
  // Reschedules the parked steps once the node is ready and the kubelet posts.
  void resume_parked();

  Sim& sim_;
  ApiServer& api_;
  KubeletShared& shared_;
  std::string node_;
  bool node_ready_ = true;
  bool posting_ = true;
  bool stopped_ = false;
  std::map<std::string, PodState> pods_;  // By pod uid.
};

}  // namespace wsim::kube
