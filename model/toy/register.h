// Registers the "toy" system with the run layer's registry (the CLI main and tests call it).
#pragma once

namespace wsim::toy {

void register_toy_system();

}  // namespace wsim::toy
