// Not a port: the catalogue of the GitLab invariants (docs/systems/gitlab.md §10) [invented].
#include "model/gitlab/invariants/catalog.h"

#include <set>
#include <string>

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

run::InvariantInfo safety(std::string_view id, std::string description, std::string reference) {
  WSIM_ASSERT(id.substr(0, 8) == "gitlab.S");  // Ids are stable: corpus files name them.
  WSIM_ASSERT(!description.empty());
  return run::InvariantInfo{std::string(id), run::InvariantKind::kSafety, std::move(description),
                            std::move(reference)};
}

run::InvariantInfo liveness(std::string_view id, std::string description, std::string reference) {
  WSIM_ASSERT(id.substr(0, 8) == "gitlab.L");
  WSIM_ASSERT(!description.empty());
  return run::InvariantInfo{std::string(id), run::InvariantKind::kLiveness, std::move(description),
                            std::move(reference)};
}

}  // namespace

// The catalogue, each id once (a corpus expectation names one invariant).
std::vector<run::InvariantInfo> gitlab_invariants() {
  std::vector<run::InvariantInfo> catalogue = {
      safety(kS1, "desired and actual states stay in their domains",
             "docs/systems/gitlab.md §3, §10.1 S1"),
      safety(kS2, "once desired = Terminated it never changes (permanent termination)",
             "docs/systems/gitlab.md §3 (R2+ validation), §10.1 S2"),
      safety(kS3,
             "actual = Terminated only from an info with termination_progress Terminated built "
             "while the Deployment was absent from the agent cache",
             "docs/systems/gitlab.md §10.1 S3, §7.2"),
      safety(kS4,
             "after the agent received desired Terminated it never creates the namespace nor "
             "applies an object of the workspace",
             "docs/systems/gitlab.md §5.5, §10.1 S4"),
      safety(kS5,
             "shared mode: no namespace create/delete; deletes only objects of the workspace's own "
             "inventories",
             "gitlab#519260, gitlab-agent!2351, docs/systems/gitlab.md §8, §10.1 S5"),
      safety(kS6, "unique mode: DeleteNamespace only for namespaces of desired-Terminated rows",
             "docs/systems/gitlab.md §10.1 S6"),
      safety(kS7,
             "a termination tracker entry is removed only when Rails returned actual Terminated",
             "gitlab-agent!1080, docs/systems/gitlab.md §10.1 S7"),
      safety(kS8,
             "an error of operation version v is never reported after a later version of the same "
             "workspace completed without error",
             "tracking_applier_errors design doc, docs/systems/gitlab.md §5.3, §10.1 S8"),
      safety(
          kS9,
          "responded_to_agent_at never decreases; *_state_updated_at changes only with the state",
          "docs/systems/gitlab.md §3, §10.1 S9"),
      safety(kS10, "R3: a rails info with desired Terminated carries only inventory ConfigMaps",
             "gitlab!185872, docs/systems/gitlab.md §4.5, §10.1 S10"),
      safety(kS11,
             "when actual = Terminated is persisted no object of the workspace remains (unique: "
             "namespace gone or Terminating)",
             "gitlab#519260, docs/systems/gitlab.md §8 items 2–4, §10.1 S11"),
      safety(kS12,
             "the actual state Rails stores is possible for the cluster state the agent reported "
             "(Running: all replicas available after the rollout; Stopped: none wanted or "
             "available; Terminated/Terminating/Error: what the agent sent)",
             "docs/gitlab-oracles.md (state oracle), docs/systems/gitlab.md §4.3, §10.1 S12"),
      safety(kS13, "a config Deployment wants one replica iff desired is Running",
             "docs/gitlab-oracles.md (state oracle), docs/systems/gitlab.md §4.5, §10.1 S13"),
      safety(
          kS14,
          "reference model: an ok partial exchange delivers every desired-state change made "
          "before its finder ran, unless a fault (lost exchange, agent restart) intervened",
          "docs/gitlab-oracles.md (reference model), docs/systems/gitlab.md §4.4 (a), §9.2, §9.3, "
          "§10.1 S14"),
      safety(kS15,
             "Rails changes a desired state itself only to flip RestartRequested to Running after "
             "actual Stopped, to terminate (max age, R0/R1), or by its R2+ lifecycle manager",
             "docs/gitlab-oracles.md, docs/systems/gitlab.md §4.2, §10.1 S15"),
      safety(kS16,
             "a Deployment the agent leaves out of a request as already known is at that "
             "version in Rails' row (the persisted-version tracker agrees with Rails)",
             "docs/gitlab-oracles.md, docs/systems/gitlab.md §5.3, §5.4, §10.1 S16"),
      safety(kS17,
             "A2+: a termination progress the agent marks as synced (not to be sent again) is "
             "the one Rails last received",
             "docs/gitlab-oracles.md, docs/systems/gitlab.md §5.3"),
      safety(kS18,
             "A0b+: the error of a workspace's latest operation is in every request its "
             "reconciler builds until a newer rails info for the workspace supersedes it",
             "docs/gitlab-oracles.md, docs/systems/gitlab.md §5.3"),
      liveness(kL1, "desired = Terminated eventually gives actual = Terminated",
               "gitlab#411205 (seed 000), docs/systems/gitlab.md §7, §10.2 L1"),
      liveness(
          kL2,
          "no limbo: desired Terminated, actual not, no Deployment, no tracker entry, no error, "
          "DSU < RTA, across two FULL cycles",
          "gitlab#411205 production row, docs/systems/gitlab.md §7.1, §10.2 L2"),
      liveness(kL3, "a constant desired Running/Stopped is eventually the actual state",
               "docs/systems/gitlab.md §9.4, §10.2 L3"),
      liveness(kL4, "every termination tracker entry is eventually removed",
               "docs/systems/gitlab.md §10.2 L4"),
      liveness(kL5, "A2+: after convergence partial requests and responses are empty",
               "gitlab#408844, gitlab-agent!1158, docs/systems/gitlab.md §10.2 L5"),
      liveness(kL6, "after heal, convergence within one full-reconciliation interval",
               "docs/systems/gitlab.md §9.1–§9.3, §10.2 L6"),
  };
  std::set<std::string> ids;
  for (const run::InvariantInfo& info : catalogue) {
    WSIM_ASSERT_MSG(ids.insert(info.id).second, "invariant " << info.id << " listed twice");
  }
  return catalogue;
}

}  // namespace wsim::gitlab
