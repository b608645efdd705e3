// Not a port: see system.h [invented structure]. Config defaults, checks and decoding.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/system.h"

#include <algorithm>

#include "model/gitlab/invariants/catalog.h"
#include "model/gitlab/names.h"
#include "model/gitlab/run.h"
#include "sim/core/assert.h"
#include "sim/run/world_oracles.h"

namespace wsim::gitlab {
namespace {

constexpr std::uint32_t kWorkspacesMax = 64;
constexpr DurationMs kIntervalMaxMs = 24 * kHourMs;

// The workload swarm (docs/gitlab-oracles.md "Workload swarm") [invented]: intensities from a
// quiet user base to bursts of actions inside one Rails clock tick, and workspace counts from a
// couple to a dozen, drawn per run when the scenario leaves them unset.
struct Intensity {
  const char* name;
  DurationMs tick_ms;
  std::uint32_t action_per_mille;
  std::uint32_t burst_per_mille;
};
constexpr Intensity kIntensities[] = {
    {"quiet", 20 * kSecondMs, 100, 0},
    {"busy", 5 * kSecondMs, 300, 200},
    {"bursty", 30 * kSecondMs, 200, 700},
};
constexpr std::uint32_t kSwarmWorkspaces[] = {2, 3, 6, 12};

const Intensity* intensity_named(const std::string& name) {
  for (const Intensity& intensity : kIntensities) {
    if (name != intensity.name) continue;
    WSIM_ASSERT_GT(intensity.tick_ms, 0);
    WSIM_ASSERT_LE(intensity.action_per_mille, 1000u);
    return &intensity;
  }
  return nullptr;
}

// The axes' contract (sim/run/system.h VersionAxis): the latest value is one of the values, and
// the provenance is absent or one entry per value.
void check_axes(const std::vector<run::VersionAxis>& axes) {
  for (const run::VersionAxis& axis : axes) {
    WSIM_ASSERT(std::find(axis.values.begin(), axis.values.end(), axis.latest) !=
                axis.values.end());
    if (!axis.provenance.empty()) WSIM_ASSERT_EQ(axis.provenance.size(), axis.values.size());
  }
}

template <typename T>
bool check_choice(const std::string& field, const std::string& value,
                  std::optional<T> (*parse)(std::string_view), std::string& error) {
  if (value.empty() || parse(value)) return true;
  error = "gitlab." + field + ": unknown value \"" + value + "\"";
  return false;
}

bool check_range(const std::string& field, std::int64_t value, std::int64_t lo, std::int64_t hi,
                 std::string& error) {
  WSIM_ASSERT_LE(lo, hi);  // Each bound is checked before it bounds another field.
  if (value >= lo && value <= hi) return true;
  error = "gitlab." + field + ": " + std::to_string(value) + " is outside [" + std::to_string(lo) +
          ", " + std::to_string(hi) + "]";
  return false;
}

void fill_defaults(proto::GitlabConfig& c) {
  if (c.agent().empty()) c.set_agent("A3");
  if (c.rails().empty()) c.set_rails("R3");
  if (c.namespace_mode().empty()) c.set_namespace_mode("unique");
  if (c.partial_interval_ms() == 0) c.set_partial_interval_ms(10 * kSecondMs);
  if (c.full_interval_ms() == 0) c.set_full_interval_ms(kHourMs);
  // Production values (parameters.cc); 1000 and 2000 are their amplified values.
  if (c.rails_clock_granularity_ms() == 0) {
    c.set_rails_clock_granularity_ms(kRailsClockProductionMs);
  }
  if (c.rails_touch_gap_max_ms() == 0) c.set_rails_touch_gap_max_ms(kRailsTouchGapProductionMs);
  if (c.a2_synced_flag().empty()) c.set_a2_synced_flag("after_exchange");
  if (c.a3_termination().empty()) c.set_a3_termination("plan");
  if (c.a3_missing_inventory().empty()) c.set_a3_missing_inventory("terminated");
}

bool check_config(const proto::GitlabConfig& c, std::string& error) {
  // fill_defaults ran: the shared-mode rule below compares the filled version names.
  WSIM_ASSERT(!c.agent().empty());
  WSIM_ASSERT(!c.rails().empty());
  if (!check_choice<AgentVersion>("agent", c.agent(), parse_agent, error)) return false;
  if (!check_choice<RailsVersion>("rails", c.rails(), parse_rails, error)) return false;
  if (!check_choice<NamespaceMode>("namespace_mode", c.namespace_mode(), parse_mode, error))
    return false;
  if (!check_choice<SyncedFlagRule>("a2_synced_flag", c.a2_synced_flag(), parse_synced_flag, error))
    return false;
  if (!check_choice<A3Termination>("a3_termination", c.a3_termination(), parse_a3_termination,
                                   error))
    return false;
  if (!check_choice<MissingInventoryRule>("a3_missing_inventory", c.a3_missing_inventory(),
                                          parse_missing_inventory, error))
    return false;
  if (c.namespace_mode() == "shared" && (c.agent() != "A3" || c.rails() != "R3")) {
    error = "gitlab.namespace_mode: shared needs agent A3 and rails R3 (got " + c.agent() + "+" +
            c.rails() + ")";
    return false;
  }
  if (!c.workload_intensity().empty() && !intensity_named(c.workload_intensity())) {
    error = "gitlab.workload_intensity: unknown value \"" + c.workload_intensity() +
            "\" (quiet, busy, bursty)";
    return false;
  }
  return check_range("workspaces", c.workspaces(), 0, kWorkspacesMax, error) &&
         check_range("partial_interval_ms", c.partial_interval_ms(), kSecondMs, kIntervalMaxMs,
                     error) &&
         check_range("full_interval_ms", c.full_interval_ms(), c.partial_interval_ms(),
                     kIntervalMaxMs, error) &&
         check_range("rails_clock_granularity_ms", c.rails_clock_granularity_ms(), 1, kMinuteMs,
                     error) &&
         check_range("rails_touch_gap_max_ms", c.rails_touch_gap_max_ms(), 0, kMinuteMs, error) &&
         (c.workload_tick_ms() == 0 ||
          check_range("workload_tick_ms", c.workload_tick_ms(), kSecondMs, kHourMs, error)) &&
         check_range("workload_action_per_mille", c.workload_action_per_mille(), 0, 1000, error) &&
         check_range("workload_burst_per_mille", c.workload_burst_per_mille(), 0, 1000, error);
}

// A choice field of a normalized config: check_config accepted it, so it names a value.
template <typename T>
T parsed(std::optional<T> value, const char* field) {
  WSIM_ASSERT_MSG(value.has_value(), "gitlab." << field << " is not normalized");
  return *value;
}

// Decodes a NORMALIZED config (see GitlabSystem::normalize); fields left 0/empty for the workload
// swarm (workspaces, workload intensity) are drawn from `swarm`.
GitlabRunOptions decode_config(const proto::GitlabConfig& c, ChoiceStream& swarm) {
  GitlabRunOptions options;
  options.versions.agent = parsed(parse_agent(c.agent()), "agent");
  options.versions.rails = parsed(parse_rails(c.rails()), "rails");
  options.versions.mode = parsed(parse_mode(c.namespace_mode()), "namespace_mode");
  options.versions.synced_flag = parsed(parse_synced_flag(c.a2_synced_flag()), "a2_synced_flag");
  options.versions.a3_termination =
      parsed(parse_a3_termination(c.a3_termination()), "a3_termination");
  options.versions.missing_inventory =
      parsed(parse_missing_inventory(c.a3_missing_inventory()), "a3_missing_inventory");
  options.versions.desired_finder_inclusive = c.rails_desired_finder_inclusive();
  options.timers.partial_interval_ms = c.partial_interval_ms();
  options.timers.full_interval_ms = c.full_interval_ms();
  options.clock.granularity_ms = c.rails_clock_granularity_ms();
  options.touch_gap_max_ms = c.rails_touch_gap_max_ms();
  options.workload.workspaces_max = c.workspaces();
  if (options.workload.workspaces_max == 0) {
    options.workload.workspaces_max = kSwarmWorkspaces[swarm.below(std::size(kSwarmWorkspaces))];
  }
  const Intensity* intensity = intensity_named(c.workload_intensity());
  if (intensity == nullptr) intensity = &kIntensities[swarm.below(std::size(kIntensities))];
  options.workload.intensity = intensity->name;
  options.workload.tick_ms = c.workload_tick_ms() != 0 ? c.workload_tick_ms() : intensity->tick_ms;
  options.workload.action_per_mille = c.workload_action_per_mille() != 0
                                          ? c.workload_action_per_mille()
                                          : intensity->action_per_mille;
  options.workload.burst_per_mille =
      c.workload_burst_per_mille() != 0 ? c.workload_burst_per_mille() : intensity->burst_per_mille;
  // The workload swarm's ranges: drawn or checked by normalize (check_config).
  WSIM_ASSERT_GT(options.workload.workspaces_max, 0u);
  WSIM_ASSERT_LE(options.workload.workspaces_max, kWorkspacesMax);
  WSIM_ASSERT_GT(options.workload.tick_ms, 0);
  WSIM_ASSERT_LE(options.workload.action_per_mille, 1000u);
  WSIM_ASSERT_LE(options.workload.burst_per_mille, 1000u);
  return options;
}

}  // namespace

// --- GitlabSystem ---------------------------------------------------------------------------

std::string GitlabSystem::description() const {
  return "GitLab Workspaces: Rails reconcile (R0..R3) x agentk remote_development (A0a..A3), "
         "unique and shared namespace modes";
}

std::vector<run::VersionAxis> GitlabSystem::axes() const {
  // Provenance per value (docs/fidelity.md "GitLab"): the agent mirror pluralsh/kubernetes-agent
  // and GitLab's ee/lib/remote_development at the commits named; A2/A3 have no public code.
  std::vector<run::VersionAxis> axes = {
      {"agent",
       {"A0a", "A0b", "A1", "A2", "A3"},
       "A3",
       {"@ea4641ad", "@93f7dd8a", "@9743dcf6 (gitlab-agent!1080)",
        "[reconstructed] gitlab-agent!1158 (synced flag)",
        "[reconstructed] seed-001 plan, gitlab-agent!2351 (shared namespaces)"}},
      {"rails",
       {"R0", "R1", "R2", "R3"},
       "R3",
       {"ReconcileProcessor @50566b4f3874", "Reconcile::Main @b34b10cbcc58",
        "WorkspaceOperations::Reconcile @0582d2cdb488, lifecycle @ed88fc037fb7",
        "2025 reconcile (actual_state_updated_at, strict >)"}},
      {"namespace_mode",
       {"unique", "shared"},
       "unique",
       {"every version", "[reconstructed] seed-001 plan (A3+R3 only)"}},
      // The A3 termination alternatives and the naive variants; not versions.
      {"a3_termination",
       a3_termination_names(),
       "plan",
       {"[reconstructed] seed-001 plan", "[reconstructed] inventory-driven deletion",
        "[reconstructed] seed-001 'apply to prune'", "[reconstructed] the A1 rule (unsafe shared)",
        "[invented] naive: delete the namespace", "[invented] naive: inventories first"}},
  };
  check_axes(axes);
  return axes;
}

std::vector<run::InvariantInfo> GitlabSystem::invariants() const {
  return run::with_world_invariants(gitlab_invariants());
}

std::vector<run::ActionInfo> GitlabSystem::actions() const { return Workload::catalog(); }

bool GitlabSystem::normalize(proto::Scenario& scenario, std::string& error) const {
  proto::GitlabConfig* config = scenario.mutable_gitlab();
  fill_defaults(*config);
  if (!check_config(*config, error)) return false;
  if (scenario.load().live_workspaces() > 100000 || scenario.load().mean_lifetime_ms() < 0 ||
      scenario.load().arrival_gap_max_ms() < 0) {
    error = "load: live_workspaces at most 100000, durations not negative";
    return false;
  }
  WSIM_ASSERT_GE(config->partial_interval_ms(), kSecondMs);  // check_config passed.
  if (scenario.fault_phase_ms() == 0) scenario.set_fault_phase_ms(default_fault_phase_ms());
  if (scenario.settle_ms() == 0) {
    // A few full intervals (docs/architecture.md §5): enough for two FULL cycles after heal (L2)
    // and more.
    scenario.set_settle_ms(3 * config->full_interval_ms() + 10 * config->partial_interval_ms());
  }
  return true;
}

std::unique_ptr<run::SystemRun> GitlabSystem::create(Sim& sim,
                                                     const proto::Scenario& scenario) const {
  WSIM_ASSERT(scenario.has_gitlab());
  ChoiceStream swarm = sim.stream("gitlab.swarm");
  GitlabRunOptions options = decode_config(scenario.gitlab(), swarm);
  options.workload.live_workspaces = scenario.load().live_workspaces();
  if (scenario.load().mean_lifetime_ms() > 0) {
    options.workload.mean_lifetime_ms = scenario.load().mean_lifetime_ms();
  }
  if (scenario.load().arrival_gap_max_ms() > 0) {
    options.workload.arrival_gap_max_ms = scenario.load().arrival_gap_max_ms();
  }
  return std::make_unique<GitlabRun>(sim, std::move(options), scenario.scripted_only());
}

}  // namespace wsim::gitlab
