// Not a port: see markers.h.
#include "model/gitpod/invariants/markers.h"

#include "model/gitpod/conditions.h"
#include "model/gitpod/mk1/annotations.h"
#include "model/gitpod/names.h"

namespace wsim::gitpod {

std::vector<std::string> visible_loss_markers(const kube::Object& object) {
  std::vector<std::string> out;
  if (object.kind == kWorkspaceKind) {
    if (cond_true(object, kCondBackupFailure)) out.push_back("BackupFailure");
    if (cond_true(object, kCondAborted)) out.push_back("Aborted");
    return out;
  }
  if (object.kind == "ConfigMap") {
    const std::optional<mk1::Plis> plis = mk1::read_plis(object);
    if (plis.has_value() && !plis->final_backup_failure.empty()) {
      out.push_back("PLIS finalBackupFailure");
    }
    return out;
  }
  if (object.kind == "Pod") {
    const mk1::DisposalStatus disposal = mk1::read_disposal(object);
    if (!disposal.backup_failure.empty()) out.push_back("disposalStatus.backupFailure");
    if (object.meta.annotations.count(kAnnAbortRequest) > 0) out.push_back("abortRequest");
  }
  return out;
}

}  // namespace wsim::gitpod
