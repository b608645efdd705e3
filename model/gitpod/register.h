// Not a port: harness wiring [invented].
//
// Registers the Gitpod system (system.h) with the run layer's registry (sim/run/system.h).
// The CLI's main calls it; sim/ never includes model/.
#pragma once

namespace wsim::gitpod {

void register_gitpod_system();

}  // namespace wsim::gitpod
