// Not a port: harness wiring [invented].
#include "model/gitpod/register.h"

#include <memory>

#include "model/gitpod/system.h"
#include "sim/run/system.h"

namespace wsim::gitpod {

void register_gitpod_system() {
  if (run::find_system("gitpod") != nullptr) return;
  run::register_system(std::make_unique<GitpodSystem>());
}

}  // namespace wsim::gitpod
