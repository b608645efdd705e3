// wsim list: systems, versions, invariants, actions, faults, probes.
#include <iostream>

#include "cli/subcommand.h"
#include "sim/run/commands.h"

namespace wsim::cli {

Subcommand add_list_command(CLI::App& app) {
  CLI::App* sub =
      app.add_subcommand("list", "systems, versions, invariants, actions, faults, probes");
  return {sub, [] { return run::cmd_list(std::cout, std::cerr); }};
}

}  // namespace wsim::cli
