// Not a port: see system.h [invented].
#include "model/gitpod/system.h"

#include "model/gitpod/invariants/catalog.h"
#include "model/gitpod/run.h"
#include "model/gitpod/versions.h"
#include "sim/core/assert.h"
#include "sim/run/world_oracles.h"

namespace wsim::gitpod {

std::string GitpodSystem::description() const {
  // Provenance per version (docs/fidelity.md): the ports follow upstream code at these commits;
  // the upgrade actor is [reconstructed], the workload and the data oracle are [invented].
  return "Gitpod ws-manager (mk1-plis-direct @08774bd177^, mk1-plis @724ed7a92a^, mk1-finalizer "
         "@c8c4c3bda92c, mk2 "
         "@4f45d02eac95 + fixes, each fix switchable to its parent), ws-daemon @4f45d02eac95; "
         "upgrades [reconstructed], workload and storage [invented]; docs/fidelity.md";
}

std::vector<run::VersionAxis> GitpodSystem::axes() const {
  std::vector<std::string> fixes;
  for (Fix fix : all_fixes()) fixes.emplace_back(fix_name(fix));
  // Provenance per value (docs/fidelity.md): gitpod-io/gitpod at the commits named.
  return {
      {"manager",
       {"mk1-plis-direct", "mk1-plis", "mk1-finalizer", "mk2"},
       "mk2",
       {"ws-manager @08774bd177^ (PLIS era until 2021-02-26: reads and writes go to the API "
        "server)",
        "ws-manager @724ed7a92a^ (PLIS era, 08774bd177..724ed7a92a, 2021-02-26..03-18: reads "
        "from the informer cache)",
        "ws-manager @c8c4c3bda92c", "ws-manager-mk2 @4f45d02eac95"}},
      {"fixes", fixes, "all"},
      {"upgrade",
       {"none", "naive", "drain-first"},
       "none",
       {"no upgrade", "[reconstructed] gitpod#13147 (ws-daemon removed while workspaces run)",
        "[reconstructed] gitpod#13147 (stop workspaces, then upgrade)"}},
  };
}

std::vector<run::InvariantInfo> GitpodSystem::invariants() const {
  return run::with_world_invariants(invariant_catalog());
}

std::vector<run::ActionInfo> GitpodSystem::actions() const {
  return {
      {"user", "start", "start a new instance of workspace <target>"},
      {"user", "stop", "StopWorkspace NORMALLY (30 s grace) of the latest instance"},
      {"user", "stop_immediate", "StopWorkspace IMMEDIATELY (1 s grace)"},
      {"user", "abort", "StopWorkspace ABORT (no backup)"},
      {"user", "mark_active", "MarkActive"},
      {"user", "write", "bump the content version (only while running)"},
      {"kubelet", "reject", "reject the workspace's pod at admission (args reason)"},
      {"kubelet", "reject_after_ready", "reject the running pod (re-admission, #20372)"},
      {"kubectl", "delete_node", "delete node <target> with its disk and ws-daemon"},
      {"kubectl", "cordon", "cordon node <target>"},
      {"kubectl", "uncordon", "uncordon node <target>"},
      {"kubectl", "delete_workspace", "delete the Workspace CR of <target>'s latest instance"},
      {"kubectl", "strip_finalizers", "remove the finalizers of the workspace's pod"},
      {"ws-daemon", "down", "ws-daemon on node <target> (or all) goes away"},
      {"ws-daemon", "up", "ws-daemon on node <target> (or all) comes back"},
      {"ws-daemon", "restart", "ws-daemon crash and restart"},
      {"ws-daemon", "crash_during_delete",
       "arm: crash right after DeleteWorkspace started (B0 window), restart after args "
       "restart_after_ms"},
      {"ws-daemon", "crash_after_init",
       "arm: crash right after the next content init, before ContentReady; restart after args "
       "restart_after_ms"},
      {"ws-daemon", "wipe_failure", "arm: the next wipe of an existing session fails (B10)"},
      {"manager", "restart", "ws-manager restart (memory lost)"},
      {"manager", "down", "ws-manager goes away"},
      {"manager", "up", "ws-manager comes back"},
      {"manager", "maintenance_on", "maintenance mode on"},
      {"manager", "maintenance_off", "maintenance mode off"},
      {"admin", "upgrade_naive", "KOTS-style upgrade while workspaces run (seed 003)"},
      {"admin", "upgrade_drain_first", "cordon, stop, wait, upgrade, uncordon"},
      {"admin", "cordon_cluster", "gpctl clusters cordon: no new starts"},
      {"admin", "uncordon_cluster", "undo cordon_cluster"},
      {"admin", "score_zero", "cluster score 0: no new starts"},
      {"api", "error",
       "next request(s) of args verb on <Kind/name> answer 500 (args times, identity; args as: "
       "503, 429, lose_request, lose_response)"},
      {"api", "conflict", "next update(s) of <Kind/name> answer Conflict (args times, identity)"},
      {"breaker", "on", "PR #20243 rejector: every workspace pod rejected once"},
      {"breaker", "off", "breaker off"},
  };
}

namespace {

// The load shape (scenario `load`): bounds, and defaults made explicit.
bool normalize_load(proto::Scenario& scenario, std::string& error) {
  if (!scenario.has_load() || scenario.load().live_workspaces() == 0) return true;
  proto::Load* load = scenario.mutable_load();
  if (load->live_workspaces() > 100000) {
    error = "load.live_workspaces: at most 100000";
    return false;
  }
  if (load->mean_lifetime_ms() < 0 || load->arrival_gap_max_ms() < 0) {
    error = "load: durations must not be negative";
    return false;
  }
  if (load->mean_lifetime_ms() == 0) load->set_mean_lifetime_ms(30 * kMinuteMs);
  if (load->arrival_gap_max_ms() == 0) load->set_arrival_gap_max_ms(kMinuteMs);
  WSIM_ASSERT_GT(load->mean_lifetime_ms(), 0);
  WSIM_ASSERT_GT(load->arrival_gap_max_ms(), 0);
  return true;
}

}  // namespace

bool GitpodSystem::normalize(proto::Scenario& scenario, std::string& error) const {
  proto::GitpodConfig* config = scenario.mutable_gitpod();
  if (config->manager().empty()) config->set_manager("mk2");
  if (!parse_era(config->manager()).has_value()) {
    error = "gitpod.manager: unknown era '" + config->manager() +
            "' (mk1-plis-direct, mk1-plis, mk1-finalizer, mk2)";
    return false;
  }
  for (const std::string& fix : config->fixes()) {
    if (fix != "none" && fix != "all" && !parse_fix(fix).has_value()) {
      error = "gitpod.fixes: unknown fix '" + fix +
              "' (16622 16997 17599 19411 20243 20372 20382, all, none)";
      return false;
    }
  }
  if (config->workspaces() == 0) config->set_workspaces(3);
  if (config->nodes() == 0) config->set_nodes(2);
  // Caps against typos, not against cost (docs/performance.md: cost is linear in workspaces).
  if (config->workspaces() > 4096) {
    error = "gitpod.workspaces: at most 4096";
    return false;
  }
  if (config->nodes() > 256) {
    error = "gitpod.nodes: at most 256";
    return false;
  }
  if (!normalize_load(scenario, error)) return false;
  if (config->upgrade().empty()) config->set_upgrade("none");
  if (config->upgrade_gap_ms() == 0) config->set_upgrade_gap_ms(2 * kMinuteMs);
  if (config->user_action_interval_ms() == 0) config->set_user_action_interval_ms(kMinuteMs);
  if (config->upgrade() != "none" && config->upgrade() != "naive" &&
      config->upgrade() != "drain-first") {
    error = "gitpod.upgrade: none, naive or drain-first";
    return false;
  }
  if (config->pod_recreation_max_retries() < 0 || config->pod_recreation_max_retries() > 100) {
    error = "gitpod.pod_recreation_max_retries: 0..100";
    return false;
  }
  if (config->pod_recreation_backoff_ms() < 0 || config->pod_recreation_backoff_ms() > kHourMs) {
    error = "gitpod.pod_recreation_backoff_ms: 0..1h";
    return false;
  }
  if (config->mk1_mark_retry_steps() < 0 || config->mk1_mark_retry_steps() > 1000) {
    error = "gitpod.mk1_mark_retry_steps: 0..1000";
    return false;
  }
  if (config->rejection_per_mille() > 1000) {
    error = "gitpod.rejection_per_mille: 0..1000";
    return false;
  }
  if (config->upgrade_gap_ms() < 0 || config->upgrade_gap_ms() > 24 * kHourMs ||
      config->user_action_interval_ms() < 0 || config->user_action_interval_ms() > 24 * kHourMs) {
    error = "gitpod: durations must be within 0..24h";
    return false;
  }
  // What the run reads (settings_of): every default made explicit.
  WSIM_ASSERT_GT(config->workspaces(), 0u);
  WSIM_ASSERT_GT(config->nodes(), 0u);
  WSIM_ASSERT(!config->upgrade().empty());
  return true;
}

std::unique_ptr<run::SystemRun> GitpodSystem::create(Sim& sim,
                                                     const proto::Scenario& scenario) const {
  WSIM_ASSERT(scenario.has_gitpod());
  return std::make_unique<GitpodRun>(sim, scenario);
}

}  // namespace wsim::gitpod
