// The state oracle: what an actual state or a desired state *means* in the cluster, stated as
// implications (docs/gitlab-oracles.md), independent of the ports that compute them.
//
// The actual state calculator (model/gitlab/rails/actual_state_calculator.cc) is a decision table
// ported from Rails; the oracle does not repeat its branches. It checks the necessary condition
// each outcome has in Kubernetes terms: "Running" needs every desired replica available and the
// rollout finished; "Stopped" needs zero replicas desired and none available; a Deployment still
// rolling out is never settled; Failed is the progress deadline; Terminated/Terminating/Error are
// what the agent said. A calculator bug that maps a cluster state to the wrong name breaks one of
// these. Likewise the replica count Rails puts into a config follows from the desired state alone.
// Pure functions, no state.
#pragma once

#include <optional>
#include <string>

#include "model/gitlab/rails/workspace_row.h"
#include "model/gitlab/states.h"
#include "model/gitlab/versions.h"
#include "model/gitlab/wire.h"
#include "sim/kube/object.h"

namespace wsim::gitlab {

// Why `actual` cannot be the state of the workspace described by `info` (the agent's report),
// or nullopt when it can. `rails` selects the R0 order (Terminating before Error does not exist
// there).
std::optional<std::string> actual_state_contradiction(RailsVersion rails, State actual,
                                                      const WorkspaceAgentInfo& info);

// Why a config Deployment with `replicas` contradicts the row's desired state
// (docs/systems/gitlab.md §10.1 S13: a workspace runs one pod iff the user wants it running; a
// restart first scales to zero), or nullopt. [reconstructed] from the Rails desired-state →
// replicas rule in docs/gitlab-oracles.md.
std::optional<std::string> replicas_contradiction(State desired, const kube::Object& deployment);

}  // namespace wsim::gitlab
