// The `sometimes` coverage marks of the GitLab system (docs/architecture.md §2 "Probes"):
// interesting situations a hunt should reach. Declared once per run on the Sim; components hold the
// ids.
#pragma once

#include "sim/core/probe.h"

namespace wsim::gitlab {

struct GitlabProbes {
  ProbeId namespace_deleted_while_running = 0;
  ProbeId terminate_while_namespace_terminating = 0;
  ProbeId termination_across_full_sync = 0;
  ProbeId lost_response_during_termination = 0;
  ProbeId desired_change_between_select_and_touch = 0;
  ProbeId timestamp_tie = 0;
  ProbeId delete_namespace_conflict = 0;
  ProbeId tracker_entry_dropped_by_reset = 0;
  ProbeId terminated_without_tracker = 0;
  ProbeId inventory_missing_on_terminate = 0;

  // Declares every probe on `probes` (idempotent).
  static GitlabProbes declare(Probes& probes);
};

}  // namespace wsim::gitlab
