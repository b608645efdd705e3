// wsim run: one run of a scenario (or of a system's defaults).
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/scenario_options.h"
#include "cli/subcommand.h"

namespace wsim::cli {

Subcommand add_run_command(CLI::App& app) {
  struct State {
    ScenarioOptions scenario;
    run::RunCommand command;
    CLI::Option* out = nullptr;
  };
  auto state = std::make_shared<State>();
  CLI::App* sub = app.add_subcommand("run", "one run of a scenario (or of a system's defaults)");
  add_scenario_options(*sub, state->scenario, true);
  state->out = sub->add_option("--out", state->command.out_dir,
                               "where failure bundles go (default wsim-out)");
  sub->add_flag("--ignore-expect", state->command.ignore_expect,
                "exit with the raw verdict, ignoring the scenario's expectations");
  sub->add_option("--known", state->command.known_dir,
                  "label a failure known/NEW against this corpus (default corpus/regressions)");
  sub->add_flag("--bundle", state->command.bundle_always,
                "write the run's bundle (trace, timeline, choices) even when it passes");
  sub->add_flag("--print-hash", state->command.print_hash,
                "print 'SEED FINGERPRINT' as the last line");
  return {sub, [state] {
            std::string error;
            if (!to_flags(state->scenario, state->command.flags, error)) {
              std::cerr << "wsim run: " << error << "\n";
              return run::kExitUsage;
            }
            state->command.out_dir_given = state->out->count() > 0;
            return run::cmd_run(state->command, std::cout, std::cerr);
          }};
}

}  // namespace wsim::cli
