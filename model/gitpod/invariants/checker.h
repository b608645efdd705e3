// Not a port: the oracle [reconstructed] from the design properties (catalog.h).
//
// The Gitpod oracle: checks the safety invariants S1–S11 and the data oracle incrementally on
// every API write (server-side subscriptions, which see every write in resourceVersion order),
// and the liveness invariants L1–L6 once, after the settle phase (catalog.h, docs/systems/gitpod.md
// §11).
//
// The checker only observes: the API store, the content store (via the DataLedger) and the
// user-side facts the run reports (successful stops). It never changes the world.
// Violations found during an event are queued; check_safety() hands them out one at a time.
// Single-threaded.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/gitpod/invariants/data_ledger.h"
#include "model/gitpod/versions.h"
#include "sim/core/assert.h"
#include "sim/core/probe.h"
#include "sim/kube/api_server.h"
#include "sim/run/system.h"

namespace wsim::gitpod {

class GitpodWorld;

class Checker {
 public:
  explicit Checker(GitpodWorld& world);
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // Subscribes to the API and the content store. Before GitpodWorld::start().
  void start();

  // --- Facts from the run. ---
  void user_stop_succeeded(const std::string& instance);
  void user_started(const std::string& instance);
  void user_wrote(const std::string& workspace_id, const std::string& instance);
  // mk2: ws-manager answered OK to a MarkActive of `instance` at `now_ms` (S11).
  void user_marked_active(const std::string& instance, TimeMs now_ms);
  // S11: the inactivity timeout ws-manager runs with (a CR's spec timeout overrides it).
  void set_inactivity_timeout_ms(DurationMs timeout_ms) { inactivity_timeout_ms_ = timeout_ms; }
  void maintenance_changed(bool on) { maintenance_ = on; }
  // An admin strips the pod's finalizers (the #13147 clean-up): not ws-manager's doing, so the
  // S2 corollary does not apply to that removal; the data oracle still judges the outcome.
  void external_finalizer_removal(const std::string& instance) { stripped_.insert(instance); }
  // An operator deleted the Workspace CR of `instance` (`kubectl delete workspace`). ws-manager-mk2
  // then ends the workspace by design (docs/fidelity.md W1, docs/dismissals.md, breaker seed 92),
  // so L4's premise, a start hit only by kubelet rejections, no longer holds.
  void operator_deleted_workspace(const std::string& instance) {
    WSIM_ASSERT(!instance.empty());
    operator_deleted_.insert(instance);
  }

  std::optional<run::Violation> next_violation();
  // next_violation() has nothing to return: no loss to evaluate, no violation pending. Inline:
  // the driver asks after every event, and almost always this is true (docs/performance.md
  // §14.3).
  bool quiet() const { return ledger_->idle() && pending_.empty(); }
  std::vector<run::Violation> liveness();
  std::string describe_losses() const;
  const DataLedger& ledger() const { return *ledger_; }

 private:
  struct Instance {
    std::string workspace_id;
    bool cr_exists = false;
    std::string phase;
    // Last persisted CR; null before the first and once the CR is deleted (a pointer, not a
    // value: a run at scale keeps an Instance for every instance ever started).
    std::shared_ptr<const kube::Object> last;
    const kube::Object& last_cr() const;
    bool had_finalizer = false;
    std::set<std::string> live_pods;  // Pod uids not yet removed.
    int pods_created = 0;
    std::set<std::string> rejected_pods;  // Pods the kubelet rejected during the start.
    // mk2: the CR was persisted in phase Running, i.e. the start succeeded. L4 judges the start
    // only; how the workspace ends later (a stop, a timeout, a rejection after ready → #20372's
    // ordinary failure path) is not its business.
    bool reached_running = false;
    // The start also failed for a reason other than a kubelet rejection (e.g. content init
    // failed: ContentReady=False → Failed), so L4's premise ("hit only by rejections") is false.
    bool failed_otherwise = false;
    // mk2: when the CR last entered Stopping (L2 gives a stop that began late time to finish).
    TimeMs stopping_since_ms = 0;
    bool stopped_nonrejected = false;
    bool stop_succeeded = false;
    // StoppedByRequest was persisted: a stop took effect, whatever its caller was answered (a
    // StopWorkspace whose response was lost still stops the workspace). L4's "a start hit only by
    // rejections" is then false.
    bool stop_applied = false;
    bool timed_out = false;
    std::optional<TimeMs> last_active_ms;  // S11: the last MarkActive answered OK.
    int pods_after_stop = 0;
    // S2: an authorizing fact (BackupComplete, BackupFailure, Aborted, PodRejected=True) was
    // persisted for the current pod incarnation (cleared by the re-creation reset).
    bool disposal_authorized = false;
    // S2 corollary: the CR entered Stopped with disposal finished (status.go moves Stopping to
    // Stopped on that). A condition written onto the Stopped CR later — ws-daemon's ContentReady
    // from a content init that started on a stale phase (B11, corpus/gitpod-findings.md) — does
    // not take back what ws-manager was entitled to act on. False while not Stopped.
    bool stopped_disposed = false;
  };

  void on_workspace(const kube::WatchEvent& event);
  void on_pod(const kube::WatchEvent& event);
  void on_configmap(const kube::WatchEvent& event);
  void on_destroy(DestroyCause cause, const std::string& node, const std::string& instance);
  void check_phase_transition(const std::string& name, Instance& inst, const kube::Object& ws);
  void check_counters(const std::string& name, const Instance& inst, const kube::Object& ws);
  void check_single_instance(const std::string& workspace_id);
  void check_pod_finalizer_removed(const kube::Object& pod);
  // S10 (mk2): called when the CR of `instance` loses its finalizer.
  void check_secrets_gone(const std::string& instance);
  // S11 (mk2): called when the CR of `inst` newly carries Timeout=True.
  void check_timeout_deserved(const std::string& name, const Instance& inst,
                              const kube::Object& ws);
  bool managed(const std::string& instance) const;
  void violate(const char* id, const std::string& object, std::string message,
               std::vector<std::string> related = {});
  std::string instance_of_pod(const kube::Object& pod) const;

  GitpodWorld& world_;
  const Versions versions_;
  std::unique_ptr<DataLedger> ledger_;
  std::map<std::string, Instance> instances_;
  // Instance names by workspace id (every instance whose workspace_id is that id), so S9 looks at
  // one workspace's instances, not at every instance of the run (quadratic at scale).
  std::map<std::string, std::set<std::string>> instances_of_workspace_;
  void set_workspace_id(const std::string& instance, Instance& inst, const std::string& id);
  std::map<std::string, bool> pod_finalizer_;  // By pod uid: had the finalizer last time.
  std::deque<run::Violation> pending_;
  std::set<std::string> reported_;  // "id object" pairs already reported.
  // `sometimes` coverage marks (docs/architecture.md §2), declared by the constructor.
  struct ProbeIds {
    ProbeId rejected_before_ready = 0;
    ProbeId rejected_after_ready = 0;
    ProbeId recreated = 0;
    ProbeId stop_in_rejection_window = 0;
    ProbeId wiped = 0;
    ProbeId backed_up = 0;
    ProbeId node_disappeared = 0;
    ProbeId acknowledged_loss = 0;
    ProbeId silent_loss = 0;
  } probes_;
  std::set<std::string> stripped_;
  std::set<std::string> operator_deleted_;  // Instances whose CR an operator deleted (L4).
  std::set<std::string> rejected_seen_;     // Pod uids already counted as rejected.
  bool maintenance_ = false;
  std::vector<run::Violation> maintenance_timeouts_;
  DurationMs inactivity_timeout_ms_ = 0;  // 0: S11 is not judged.
};

}  // namespace wsim::gitpod
