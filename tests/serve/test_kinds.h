// The custom kind the serve tests exercise, registered as a system registers its declared kinds
// (run::register_system → sim/kube/kinds.h): the tests of serve/ link no system.
#pragma once

#include "sim/kube/kinds.h"

namespace wsim::serve {

// Idempotent: every test may call it.
inline void register_test_kinds() {
  kube::KindInfo workspace;
  workspace.kind = "Workspace";
  workspace.group = "workspace.gitpod.io";
  workspace.short_names = {"ws"};
  kube::register_custom_kind(workspace);
}

}  // namespace wsim::serve
