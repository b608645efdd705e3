// Registers the "gitlab" system with the run layer's registry (the CLI main calls it).
#pragma once

namespace wsim::gitlab {

void register_gitlab_system();

}  // namespace wsim::gitlab
