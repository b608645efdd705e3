// Registers every system the fuzz targets use (the same set as the `wsim` CLI).
#pragma once

#include "model/gitlab/register.h"
#include "model/gitpod/register.h"
#include "model/toy/register.h"

namespace wsim::fuzz {

inline void register_systems() {
  static bool done = false;
  if (done) return;
  done = true;
  toy::register_toy_system();
  gitlab::register_gitlab_system();
  gitpod::register_gitpod_system();
}

}  // namespace wsim::fuzz
