// wsim list: systems, versions, invariants, actions, faults, probes.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"
#include "sim/search/fuzz_targets.h"

namespace wsim::cli {

Subcommand add_list_command(CLI::App& app) {
  CLI::App* sub =
      app.add_subcommand("list", "systems, versions, invariants, actions, faults, probes");
  auto fuzz_targets = std::make_shared<bool>(false);
  sub->add_flag("--fuzz-targets", *fuzz_targets,
                "only the systems' fuzz targets: NAME KIND GATE MAX_LEN SYSTEM BUGS per line");
  return {sub, [fuzz_targets] {
            if (*fuzz_targets) return run::cmd_list_fuzz_targets(std::cout);
            return run::cmd_list(std::cout, std::cerr);
          }};
}

}  // namespace wsim::cli
