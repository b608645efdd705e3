// Not a port: see catalog.h.
#include "model/gitpod/invariants/catalog.h"

#include <set>
#include <string>

#include "sim/core/assert.h"

namespace wsim::gitpod {

// The catalogue, each id once (a corpus expectation names one invariant).
std::vector<run::InvariantInfo> invariant_catalog() {
  using run::InvariantKind;
  std::vector<run::InvariantInfo> catalogue = {
      {kS1, InvariantKind::kSafety, "at most one pod per workspace",
       "docs/systems/gitpod.md §11.1 S1"},
      {kS2, InvariantKind::kSafety,
       "content destroyed only after an authorizing fact was recorded; pod finalizer removed "
       "only when Stopped with disposal finished",
       "docs/systems/gitpod.md §11.1 S2; B0 pre-#16997"},
      {kS3, InvariantKind::kSafety,
       "StateWiped only with PodRejected=True; PodRejected=True only when EverReady is not True",
       "docs/systems/gitpod.md §11.1 S3; B9 #20243 without #20372"},
      {kS4, InvariantKind::kSafety,
       "counters: podStarts <= pods created <= podStarts+1; podStarts-podRecreated in {0,1}; "
       "podRecreated <= max+1",
       "docs/systems/gitpod.md §6.4, §11.1 S4"},
      {kS5, InvariantKind::kSafety, "no pod created after Stopped without PodRejected",
       "docs/systems/gitpod.md §11.1 S5; B1 pre-#16622, B2"},
      {kS6, InvariantKind::kSafety, "CR finalizer removed only when Stopped with no pods",
       "docs/systems/gitpod.md §11.1 S6"},
      {kS7, InvariantKind::kSafety,
       "phase discipline: Stopped absorbing but for the re-creation reset; Stopping only to "
       "Stopping/Stopped; Stopped only via Stopping",
       "docs/systems/gitpod.md §11.1 S7"},
      {kS8, InvariantKind::kSafety, "never both a backup and a wipe for one pod incarnation",
       "docs/systems/gitpod.md §11.1 S8"},
      {kS9, InvariantKind::kSafety, "at most one non-Stopped workspace per workspace id",
       "docs/systems/gitpod.md §11.1 S9"},
      {kS10, InvariantKind::kSafety,
       "CR finalizer removed only once the workspace's secrets (env, tokens) that ws-manager's "
       "cache holds are gone",
       "docs/systems/gitpod.md §11.1 S10; docs/fidelity.md G12 [reconstructed]"},
      {kS11, InvariantKind::kSafety,
       "mk2: a Running workspace is timed out for inactivity only once its timeout has passed "
       "since the user's last acknowledged MarkActive",
       "docs/systems/gitpod.md §11.1 S11; docs/fidelity.md G18 [reconstructed]"},
      {kL1, InvariantKind::kLiveness,
       "stop/timeout/failure/node loss/CR deletion → the pod is being deleted",
       "docs/systems/gitpod.md §11.2 L1"},
      {kL2, InvariantKind::kLiveness, "Stopping → Stopped eventually",
       "docs/systems/gitpod.md §11.2 L2; B4, B5, B8; seed 003"},
      {kL3, InvariantKind::kLiveness, "Stopped without PodRejected → CR gone",
       "docs/systems/gitpod.md §11.2 L3"},
      {kL4, InvariantKind::kLiveness,
       "a start hit only by kubelet rejections (at most max+1) ends Running; beyond the limit "
       "it ends failed and cleaned up",
       "docs/systems/gitpod.md §11.2 L4; seed 002; B6"},
      {kL5, InvariantKind::kLiveness,
       "a successful StopWorkspace leads to the CR's removal and no new pod",
       "docs/systems/gitpod.md §11.2 L5; B3"},
      {kL6, InvariantKind::kLiveness, "no Timeout is added while maintenance is on",
       "docs/systems/gitpod.md §11.2 L6"},
      {kNoSilentLoss, InvariantKind::kSafety,
       "the last written content version stays recoverable unless the loss is visible",
       "docs/architecture.md §4 Data; seed 003"},
      {kAcknowledgedLoss, InvariantKind::kSafety,
       "no data loss at all (only with report_acknowledged_loss)",
       "docs/systems/gitpod.md §11.1 S2 stronger"},
  };
  std::set<std::string> ids;
  for (const run::InvariantInfo& info : catalogue) {
    WSIM_ASSERT(info.id.rfind("gitpod.", 0) == 0);  // Stable ids: corpus files name them.
    WSIM_ASSERT_MSG(ids.insert(info.id).second, "invariant " << info.id << " listed twice");
  }
  return catalogue;
}

}  // namespace wsim::gitpod
