// wsim fingerprint (hidden): 'SEED FINGERPRINT' per seed, the determinism check's workhorse.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/scenario_options.h"
#include "cli/subcommand.h"

namespace wsim::cli {

Subcommand add_fingerprint_command(CLI::App& app) {
  struct State {
    ScenarioOptions scenario;
    run::FingerprintCommand command;
  };
  auto state = std::make_shared<State>();
  CLI::App* sub = app.add_subcommand("fingerprint", "print 'SEED FINGERPRINT' per seed");
  sub->group("");
  add_scenario_options(*sub, state->scenario, false);
  sub->add_option("--seeds", state->command.seeds, "seed range A..B (default 0..199)");
  return {sub, [state] {
            std::string error;
            if (!to_flags(state->scenario, state->command.flags, error)) {
              std::cerr << "wsim fingerprint: " << error << "\n";
              return run::kExitUsage;
            }
            return run::cmd_fingerprint(state->command, std::cout, std::cerr);
          }};
}

}  // namespace wsim::cli
