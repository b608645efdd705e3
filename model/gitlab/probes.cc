// Not a port: the `sometimes` coverage marks of the GitLab system (probes.h) [invented].
#include "model/gitlab/probes.h"

namespace wsim::gitlab {

GitlabProbes GitlabProbes::declare(Probes& probes) {
  GitlabProbes ids;
  ids.namespace_deleted_while_running =
      probes.declare("gitlab.namespace_deleted_while_running",
                     "kubectl deleted a workspace namespace while Rails had desired Running "
                     "(docs/systems/gitlab.md §9.4, seed 000)");
  ids.terminate_while_namespace_terminating =
      probes.declare("gitlab.terminate_while_namespace_terminating",
                     "user terminated a workspace whose namespace was already Terminating "
                     "(docs/systems/gitlab.md §7.1 step 5)");
  ids.termination_across_full_sync =
      probes.declare("gitlab.termination_across_full_sync",
                     "a full sync dropped a termination tracker entry before Rails acknowledged it "
                     "(docs/systems/gitlab.md §7.1)");
  ids.lost_response_during_termination =
      probes.declare("gitlab.lost_response_during_termination",
                     "a reconcile response carrying desired Terminated was lost after Rails "
                     "touched (docs/systems/gitlab.md §9.2)");
  ids.desired_change_between_select_and_touch =
      probes.declare("gitlab.desired_change_between_select_and_touch",
                     "a user changed desired_state between the finder SELECT and the touch "
                     "(docs/systems/gitlab.md §9.3)");
  ids.timestamp_tie = probes.declare("gitlab.timestamp_tie",
                                     "desired_state_updated_at == responded_to_agent_at after a "
                                     "touch (`>=` vs `>`, docs/systems/gitlab.md §9.3)");
  ids.delete_namespace_conflict =
      probes.declare("gitlab.delete_namespace_conflict",
                     "DeleteNamespace answered 409 Conflict on a Terminating namespace "
                     "(docs/systems/gitlab.md §5.6, §7.2)");
  ids.tracker_entry_dropped_by_reset =
      probes.declare("gitlab.tracker_entry_dropped_by_reset",
                     "a reconciler reset (full sync, restart) dropped a non-empty termination "
                     "tracker (docs/systems/gitlab.md §9.5)");
  ids.terminated_without_tracker = probes.declare(
      "gitlab.terminated_without_tracker",
      "the agent saw desired Terminated for a workspace with no namespace and no tracker entry");
  ids.inventory_missing_on_terminate =
      probes.declare("gitlab.inventory_missing_on_terminate",
                     "A3 terminated a workspace whose inventory ConfigMaps were all missing "
                     "(docs/systems/gitlab.md §8 item 4)");
  return ids;
}

}  // namespace wsim::gitlab
