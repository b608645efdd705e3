// Not a port: which upstream state counts as a visible loss marker [reconstructed].
//
// Visible data-loss markers (the "acknowledged" side of the data oracle), per era:
//   mk2: Workspace conditions BackupFailure (also written for NodeDisappeared, §3.4) and Aborted;
//   mk1-PLIS: the PLIS finalBackupFailure (§7.3) — shown to the user as "last backup failed";
//   mk1-finalizer: disposalStatus.backupFailure (§8.1) and the abort request annotation.
// Pure function of one object.
#pragma once

#include <string>
#include <vector>

#include "sim/kube/object.h"

namespace wsim::gitpod {

std::vector<std::string> visible_loss_markers(const kube::Object& object);

}  // namespace wsim::gitpod
