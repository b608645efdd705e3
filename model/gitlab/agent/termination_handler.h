// `handleDesiredStateIsTerminated` of every agent version (docs/systems/gitlab.md §5.5, §5.8).
//
// A0 (pre-fix, ea4641ad / 93f7dd8a):
//   if tracked ∧ actual Terminated: untrack, forget persisted version; ok
//   if !NamespaceExists(ns): ok                      ← nothing tracked: the limbo bug (§7.1)
//   DeleteNamespace(ns) error → return it            ← nothing tracked
//   track(ns)
// A1 (MR !1080, 9743dcf6) and A2 (same flow, updateOrSet instead of add):
//   if actual Terminated: untrack, forget; ok        ← no longer requires a tracker entry
//   exists, err = NamespaceExists(ns); err → return it
//   !exists: track Terminated; ok                    ← the fix
//   DeleteNamespace(ns) error → return it (409 Conflict while Terminating)
//   track Terminating
// A3 ([reconstructed], §5.8 with the alternatives of versions.h): inventory-based deletion; in
// shared
//   mode never touches the namespace.
// Returns the error messages of this call (the "error channel"); empty = ok.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <string>
#include <vector>

#include "model/gitlab/agent/agent_context.h"
#include "model/gitlab/agent/reconciler_state.h"
#include "model/gitlab/wire.h"
#include "sim/core/task.h"

namespace wsim::gitlab {

Task<std::vector<std::string>> handle_desired_state_is_terminated(AgentContext& ctx,
                                                                  ReconcilerState& state,
                                                                  WorkspaceRailsInfo info);

}  // namespace wsim::gitlab
