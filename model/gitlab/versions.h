// Versions and modelling switches of the GitLab Workspaces system under test
// (docs/systems/gitlab.md, version table at the top and §4–§5).
//
// Every historical version is a switch so a run can show the bug in the old version and the fix in
// the new one. The [reconstructed] alternatives of the model (§5.3 A2 synced flag, §5.8 A3
// termination) are separate switches: they are modelling choices, not versions.
//
// Single-threaded, plain values. Does not model A-1 (the April 2023 boolean `terminated` agent).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/assert.h"

namespace wsim::gitlab {

// agentk remote_development module (docs/systems/gitlab.md, version table).
enum class AgentVersion {
  kA0a,  // terminatingTracker set, errors only logged (ea4641ad) — the limbo bug of gitlab#411205.
  kA0b,  // A0a + applier errors reported to Rails (93f7dd8a).
  kA1,   // MR !1080: terminationTracker map with progress, NamespaceExists distinguishes errors.
  kA2,   // MR !1158: tracker remembers whether the progress was synced (behaviour [reconstructed]).
  kA3,   // MR !2351: shared namespace support, inventory-based termination ([reconstructed]).
};

// Rails reconcile service.
enum class RailsVersion {
  kR0,  // ReconcileProcessor (May 2023).
  kR1,  // Railway pipeline with error_details; FULL excludes (Terminated, Terminated).
  kR2,  // WorkspaceOperations::Reconcile: settings, force_include_all_resources, lifecycle manager.
  kR3,  // 2025: actual_state_updated_at, strict `>`, Terminated re-sent every cycle (inventories).
};

enum class NamespaceMode { kUnique, kShared };

// §5.3 A2: when is a termination tracker entry "synced" (isReconciled) and therefore not re-sent?
enum class SyncedFlagRule {
  // Default [reconstructed]: set after a successful exchange that carried the entry; cleared when
  // the
  // progress value changes.
  kAfterExchange,
  // Seed 001 literally: updateOrSet with the same progress as stored sets isReconciled.
  kOnRepeatedSet,
};

// §5.8 A3 alternatives for how a desired-Terminated workspace is deleted and its progress judged.
enum class A3Termination {
  // The default: the seed-001 plan (docs/fidelity.md "A3 termination") [reconstructed], step by
  // step. Unique mode checks the namespace first (absent → Terminated); the inventories named in
  // config_to_apply are read (shared: none found → Terminated — also how the plan confirms its
  // own deletion, so a3_missing_inventory does not apply); while a live inventory still tracks
  // objects, apply
  // the bare inventories so the applier prunes them and record Terminating; once nothing is
  // tracked, delete the inventories (shared) or the namespace (unique) and record Terminating —
  // absence is confirmed on a later cycle, never in the pass that deletes.
  kPlan,
  // The reconstruction of §5.8: read each live inventory, DELETE every tracked object, then
  // delete the inventories (shared) or the namespace (unique).
  kInventoryDelete,
  // (i) "destroy": apply the inventories from config_to_apply with no objects, so the applier
  // prunes every tracked object (seed 001 "trigger the deletion ... by applying ConfigToApply").
  kDestroyByApply,
  // (ii) progress from Deployment absence in the informer only (the A1 rule) — unsafe in shared
  // mode: the other tracked objects leak (§8 item 2).
  kDeploymentAbsence,
  // §8 item 1, naive: the unique-mode finish in every mode — once the tracked objects are gone,
  // DeleteNamespace instead of deleting the inventories. In shared mode this is catastrophic
  // (every workspace of the shared namespace) unless RBAC denies it, and is an S5 violation either
  // way. Identical to kInventoryDelete in unique mode.
  kNamespaceDelete,
  // §8 item 3, naive: the first pass over a workspace deletes its inventory ConfigMaps (and waits
  // for them to be gone) before deleting what they list; the next pass finds no inventory, so the
  // tracked objects are never deleted and the §5.8 (iii) missing-inventory rule decides the
  // outcome (Terminated with a leak, S11, or Terminating forever, L1). Unique mode is saved by
  // the namespace deletion of the finish step.
  kInventoryFirst,
};

// §5.8 (iii): a workspace whose inventory ConfigMaps are all missing.
enum class MissingInventoryRule {
  kTerminated,          // The A1-style fix: nothing left to delete → Terminated.
  kTerminatingForever,  // Treat as not done → limbo analogue (§8 item 4).
};

struct Versions {
  AgentVersion agent = AgentVersion::kA3;
  RailsVersion rails = RailsVersion::kR3;
  NamespaceMode mode = NamespaceMode::kUnique;
  SyncedFlagRule synced_flag = SyncedFlagRule::kAfterExchange;
  A3Termination a3_termination = A3Termination::kPlan;
  MissingInventoryRule missing_inventory = MissingInventoryRule::kTerminated;
  // [invented] counterfactual (GitlabConfig.rails_desired_finder_inclusive): R3 with R0–R2's `>=`
  // for desired_state_updated_at. No effect before R3.
  bool desired_finder_inclusive = false;

  // --- Derived feature predicates (one place that knows which version has what). ---
  bool agent_reports_errors() const { return agent >= AgentVersion::kA0b; }
  // A0: the tracker is a set and entries need a successful DeleteNamespace (§5.5).
  bool agent_pre_fix() const { return agent <= AgentVersion::kA0b; }
  bool agent_has_synced_flag() const { return agent >= AgentVersion::kA2; }
  bool agent_inventory_termination() const { return agent >= AgentVersion::kA3; }
  // A3-era agents take their intervals from Rails settings (MR !1495) and call prerequisites.
  bool agent_reads_settings() const { return agent >= AgentVersion::kA3; }
  bool rails_has_error_state() const { return rails >= RailsVersion::kR1; }
  bool rails_full_excludes_terminated() const { return rails >= RailsVersion::kR1; }
  bool rails_has_settings() const { return rails >= RailsVersion::kR2; }
  bool rails_has_lifecycle_manager() const { return rails >= RailsVersion::kR2; }
  bool rails_permanent_termination() const { return rails >= RailsVersion::kR2; }
  bool rails_strict_greater() const {
    return rails >= RailsVersion::kR3 && !desired_finder_inclusive;
  }
  // The version whose desired_state_updated_at comparison the finder and builder use: R2's `>=`
  // when the counterfactual switch is on, else the Rails version itself.
  RailsVersion desired_compare_version() const {
    return rails >= RailsVersion::kR3 && desired_finder_inclusive ? RailsVersion::kR2 : rails;
  }
  bool rails_tracks_actual_updated_at() const { return rails >= RailsVersion::kR3; }
  // REQUIRES: shared mode only with A3 and R3 (normalize rejects anything else, §5.8).
  bool shared() const {
    if (mode != NamespaceMode::kShared) return false;
    WSIM_ASSERT(agent >= AgentVersion::kA3);
    WSIM_ASSERT(rails >= RailsVersion::kR3);
    return true;
  }
};

std::string_view agent_name(AgentVersion version);
std::string_view rails_name(RailsVersion version);
std::string_view mode_name(NamespaceMode mode);
std::optional<AgentVersion> parse_agent(std::string_view text);
std::optional<RailsVersion> parse_rails(std::string_view text);
std::optional<NamespaceMode> parse_mode(std::string_view text);
std::optional<SyncedFlagRule> parse_synced_flag(std::string_view text);
std::optional<A3Termination> parse_a3_termination(std::string_view text);
// Every a3_termination value, the default (plan) first.
std::vector<std::string> a3_termination_names();
std::optional<MissingInventoryRule> parse_missing_inventory(std::string_view text);

// "A1+R1 unique" — for traces and assertion context.
std::string describe(const Versions& versions);

}  // namespace wsim::gitlab
