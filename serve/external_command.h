// `wsim serve --scenario FILE [--seed N] [--out DIR] [-- COMMAND...]` and
// `wsim serve --replay BUNDLE [-- COMMAND...]`: a run of the "external" system
// (external_system.h) with COMMAND as the reconciler, through the run layer's driver — the same
// phases, verdicts, bundles (always written with --out, so a passing run can be replayed too)
// and exact replay from the choice record (exit 4 when the replay's trace hash differs).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "serve/external_system.h"

namespace wsim::serve {

struct ExternalCommand {
  std::string scenario_file;  // --scenario
  std::string replay_bundle;  // --replay
  std::optional<std::uint64_t> seed;
  std::string out_dir = "wsim-out";
  bool out_dir_given = false;
  ExternalSettings settings;  // command, log, port, quiet period, clock.
  // --vclock was given: a replay runs the process on settings.vclock, not on the bundle's
  // recorded clock (external.vclock; it says so when they differ).
  bool vclock_given = false;
};

int run_external(const ExternalCommand& command, std::ostream& out, std::ostream& err);

}  // namespace wsim::serve
