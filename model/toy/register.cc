// Not a port: registers the "toy" system with the run layer's registry [invented].
#include "model/toy/register.h"

#include <memory>

#include "model/toy/system.h"
#include "sim/run/system.h"

namespace wsim::toy {

void register_toy_system() {
  if (run::find_system("toy") != nullptr) return;
  run::register_system(std::make_unique<ToySystem>());
}

}  // namespace wsim::toy
