// Not a port: registers the "gitlab" system with the run layer's registry [invented].
#include "model/gitlab/register.h"

#include <memory>

#include "model/gitlab/system.h"
#include "sim/run/system.h"

namespace wsim::gitlab {

void register_gitlab_system() {
  if (run::find_system("gitlab") != nullptr) return;
  run::register_system(std::make_unique<GitlabSystem>());
}

}  // namespace wsim::gitlab
