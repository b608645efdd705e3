// Not a port: harness declarations [invented] of values that are upstream's.
//
// Gitpod's parameters with a production value and its source, and its amplifier (sim/run/system.h
// Amplifier; docs/fidelity.md "Amplifiers"). Its other schedules are made common by fault odds
// (fault points, listed by `wsim list` as amplifiers of possible events), not by settings.
#include "model/gitpod/system.h"

namespace wsim::gitpod {

std::vector<run::Amplifier> GitpodSystem::amplifiers() const {
  return {
      {"gitpod.breaker",
       "false",
       {"true"},
       "PR #20243's dev/rejector: the kubelet rejects every workspace pod once while it is "
       "Pending and bound; in production about 1 % of freshly bound pods are rejected "
       "(docs/systems/gitpod.md §6.1), so a rejection of every pod of a run does not happen",
       "off in every deployment: a test device of gitpod-io/gitpod PR #20243"},
  };
}

std::vector<run::ParameterInfo> GitpodSystem::parameters() const {
  return {
      {"gitpod.pod_recreation_max_retries", "0",
       "ws-manager-mk2 config PodRecreationMaxRetries: the public installer sets none (0); "
       "gitpod.io ran 3 (docs/systems/gitpod.md §6.3)"},
      {"gitpod.pod_recreation_backoff_ms", "15s",
       "ws-manager-mk2 workspace_controller.go @4f45d02eac95: the code's fallback when unset"},
      {"mk2 timeouts", "init 30m, startup 1h, regular 30m, after close 2m, lifetime 36h",
       "installer defaults of ws-manager-mk2's config (docs/systems/gitpod.md §4.4)"},
      {"mk2 content finalization timeout", "1h", "installer default (§4.4)"},
      {"mk2 timeout check", "15s", "HeartbeatInterval/2 (installer default 30s)"},
      {"mk2 workers", "25 workspace, 15 timeout",
       "WorkspaceMaxConcurrentReconciles, TimeoutMaxConcurrentReconciles (installer)"},
      {"mk1 housekeeping", "15s", "ws-manager monitor.go @724ed7a92a^ doHousekeeping interval"},
      {"mk1 dangling PLIS GC", "60m", "monitor.go deleteDanglingPodLifecycleIndependentState"},
      {"mk1 DisposeWorkspace retries", "24 x 5s", "monitor.go wsdaemonMaxAttempts = 120/5"},
      {"gitpod.upgrade_gap_ms", "2m",
       "[invented] how long a naive upgrade keeps the "
       "components away"},
      {"gitpod.user_action_interval_ms", "60s", "[invented] mean interval of user actions"},
      {"ws-daemon disk operations", "drawn ms..s",
       "[invented] durations of upload, delete, "
       "wipe (docs/fidelity.md D9)"},
  };
}

}  // namespace wsim::gitpod
