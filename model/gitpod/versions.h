// Upstream commits: docs/fidelity.md (table "Upstream commits").
//
// Versions of the Gitpod system under test (docs/systems/gitpod.md §0, §12).
//
// A run picks one ws-manager era and, for mk2, a set of fixes. Every fix is a switch so a run
// can show a bug in the version without it and the fix holding in the version with it:
//   16622  status written before acting, PodStarts saved by merge patch (B1 without it)
//   16997  ws-daemon writes the backup condition before deleting local content (B0 without it)
//   17599  NodeDisappeared: a deleted node ends Stopping with BackupFailure (B8 without it)
//   19411  WorkspaceContainerRunning condition; backup waits for the container to stop (B7)
//   20243  kubelet rejection → PodRejected, wipe, re-creation after a backoff
//   20372  never set PodRejected when EverReady=True (B9 without it, given 20243)
//   20382  ws-daemon force-kills the container 5 min after Stopping and backs up anyway
// Fixes only mean something for mk2; mk1 eras ignore them.
//
// Plain values, single-threaded. Not modelled: headless workspace types beyond a flag, PVCs,
// maintenance history before #17136 (reconciles always continue during maintenance).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/time.h"

namespace wsim::gitpod {

enum class ManagerEra {
  // The PLIS era (§7): pod annotations + PLIS ConfigMap, no pod finalizer. Two versions:
  kMk1PlisDirect,  // 2020 → 2021-02-26 (08774bd177^): every read goes to the API server.
  kMk1Plis,        // 2021-02-26 → 2021-03-18 (08774bd177 .. 724ed7a92a^): reads from the cache.
  kMk1Finalizer,   // 2021-03 → 2023-05: pod annotations + pod finalizer (§8).
  kMk2,            // 2023 → now: Workspace CRD (§2–§6).
};

// The mk2 fixes, in merge order.
enum class Fix : std::uint32_t {
  k16622 = 1u << 0,
  k16997 = 1u << 1,
  k17599 = 1u << 2,
  k19411 = 1u << 3,
  k20243 = 1u << 4,
  k20372 = 1u << 5,
  k20382 = 1u << 6,
};
inline constexpr std::uint32_t kAllFixes = 0x7f;

struct Versions {
  ManagerEra era = ManagerEra::kMk2;
  std::uint32_t fixes = kAllFixes;  // Bit set of Fix.

  bool mk2() const { return era == ManagerEra::kMk2; }
  bool mk1() const { return !mk2(); }
  bool plis() const { return era == ManagerEra::kMk1Plis || era == ManagerEra::kMk1PlisDirect; }
  bool has(Fix fix) const { return mk2() && (fixes & static_cast<std::uint32_t>(fix)) != 0; }
};

std::string_view era_name(ManagerEra era);
std::optional<ManagerEra> parse_era(std::string_view text);
// "16622" → Fix::k16622.
std::optional<Fix> parse_fix(std::string_view text);
std::string_view fix_name(Fix fix);
// Every fix, in merge order.
std::vector<Fix> all_fixes();
// "mk2 +16622 +16997 ..." or "mk1-plis".
std::string describe(const Versions& versions);

// Tunables of one run that are not versions (GitpodConfig, normalised).
struct Settings {
  int nodes = 2;
  int workspaces = 3;
  // §6.3: PodRecreationMaxRetries and PodRecreationBackoff (0 → 15 s fallback in the code).
  int pod_recreation_max_retries = 0;  // The public default.
  DurationMs pod_recreation_backoff_ms = 0;
  bool breaker = false;
  std::uint32_t rejection_per_mille = 0;
  bool report_acknowledged_loss = false;
  DurationMs upgrade_gap_ms = 2 * kMinuteMs;
  DurationMs user_action_interval_ms = 60 * kSecondMs;
  std::string upgrade = "none";  // none | naive | drain-first
  // GitpodConfig.mk1_mark_retry_steps: 0 = the era's markWorkspace backoff.
  int mk1_mark_retry_steps = 0;
  bool daemon_partial_backup_guard = false;         // GitpodConfig field 15 ([invented]).
  bool daemon_keep_content_until_recorded = false;  // GitpodConfig field 16 ([invented]).
  // Scenario `load` (docs/performance.md "At scale"): 0 = the classic workload of `workspaces`
  // users; otherwise this many workspaces live at once, users arriving and leaving.
  int live_workspaces = 0;
  DurationMs mean_lifetime_ms = 30 * kMinuteMs;
  DurationMs arrival_gap_max_ms = 60 * kSecondMs;
};

}  // namespace wsim::gitpod
