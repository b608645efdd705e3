// Not a port: harness wiring [invented].
//
// Gitpod's declarations at the seam (sim/run/system.h): its libFuzzer targets, their short
// phases, the lanes of its actors and the Workspace custom resource.
#include "model/gitpod/names.h"
#include "model/gitpod/system.h"
#include "sim/core/assert.h"

namespace wsim::gitpod {

std::vector<run::FuzzTarget> GitpodSystem::fuzz_targets() const {
  run::FuzzTarget canary;
  canary.name = "gitpod_canary";
  canary.canary = true;
  canary.fields = {{"manager", "mk2"}, {"fixes", "16622,16997,17599,19411,20243,20382"}};
  canary.bugs = {"gitpod.S3"};
  canary.reference =
      "B9 #20243 without #20372 "
      "(corpus/regressions/gitpod/reject-after-ready-20243-without-20372.textproto)";
  // Forced on (the swarm enables it in 1 run of N): the fuzzer still has to make it fire on a
  // running pod, and the manager take the wrong branch.
  canary.forced_faults = {"gitpod.kubelet.reject_after_ready"};
  canary.in_ci_gate = true;
  // Latest mk2: its open bugs (B2, B3/B6, B4/B5/B12, B15; corpus/gitpod-findings.md) are corpus
  // signatures, so a NEW bug with the same invariant id still fails the target. Untriaged and
  // so NOT known: L3 after two lost Delete(CR) requests (hunt seed 608). Bug-rich: not in the
  // CI gate.
  run::FuzzTarget guard;
  guard.name = "gitpod_guard";
  guard.fields = {{"manager", "mk2"}};
  guard.reference = "latest mk2 with every fix; the corpus's known bugs go past";
  // A gitpod run (30 min fault phase, 75 min settle) draws 3–5 KB of choices.
  canary.input_bytes_max = 8192;
  guard.input_bytes_max = 8192;
  // Nearly half of its executions hit a known bug's invariant: label them in the one run
  // (docs/performance.md §10).
  guard.label_in_one_run = true;
  std::vector<run::FuzzTarget> targets = {canary, guard};
  for (const run::FuzzTarget& target : targets) {
    WSIM_ASSERT(target.name.rfind("gitpod_", 0) == 0);     // libFuzzer binary names (STYLE.md §2).
    if (target.canary) WSIM_ASSERT(!target.bugs.empty());  // A canary names the bug it finds.
  }
  return targets;
}

// The settle outlasts both managers' own last-resort timers for a stop, so that a liveness verdict
// is not given before they could fire: mk1's content-finalization timeout (gitpod/timedout
// "backup", 1 h after the pod's deletion, #4937; docs/fidelity.md M10) and mk2's "stopping"
// timeout (1 h after the CR's deletion; G18). With 40 min, a stop stuck at minute 18 was judged
// at minute 70, before mk1's rescue at minute 78 (seed 98 of timedout-finalize-notfound's hunt;
// docs/signatures.md "Eighth session").
std::vector<std::pair<std::string, std::string>> GitpodSystem::fast_phase_fields() const {
  return {{"fault_phase_ms", "30m"}, {"settle_ms", "75m"}};
}

std::vector<run::ActorLane> GitpodSystem::actor_lanes() const {
  return {{"server", run::ActorRole::kControlPlane},  {"ws-manager", run::ActorRole::kControlPlane},
          {"gitpod", run::ActorRole::kControlPlane},  {"breaker", run::ActorRole::kControlPlane},
          {"ws-daemon", run::ActorRole::kNodeDaemon}, {"storage", run::ActorRole::kStorage}};
}

std::vector<run::CustomKind> GitpodSystem::custom_kinds() const {
  run::CustomKind workspace;  // sim/kube/kinds.h KindInfo: the rest keeps its defaults.
  workspace.kind = kWorkspaceKind;
  workspace.group = "workspace.gitpod.io";
  workspace.short_names = {"ws"};
  return {workspace};
}

}  // namespace wsim::gitpod
