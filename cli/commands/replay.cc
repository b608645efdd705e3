// wsim replay: re-execute a failure bundle exactly, a scenario file twice, or a raw libFuzzer
// input of a fuzz target.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"
#include "sim/search/fuzz_targets.h"

namespace wsim::cli {

Subcommand add_replay_command(CLI::App& app) {
  struct State {
    run::ReplayCommand command;
    std::string fuzz_target;
  };
  auto state = std::make_shared<State>();
  CLI::App* sub = app.add_subcommand("replay",
                                     "re-execute a failure bundle exactly, or a "
                                     "scenario file twice (run, then its record)");
  sub->add_option("path", state->command.path, "bundle directory or scenario file")->required();
  sub->add_option("--out", state->command.out_dir, "where failure bundles go");
  sub->add_flag("--ignore-expect", state->command.ignore_expect,
                "exit with the raw verdict, ignoring the scenario's expectations");
  sub->add_option("--max-events", state->command.events_max, "event budget of one run");
  sub->add_option("--fuzz-target", state->fuzz_target,
                  "path is a raw libFuzzer input (crash-<sha1>) of this fuzz/ target: run it "
                  "and write a full bundle");
  return {sub, [state] {
            if (!state->fuzz_target.empty()) {
              return run::cmd_replay_fuzz_input(state->fuzz_target, state->command, std::cout,
                                                std::cerr);
            }
            return run::cmd_replay(state->command, std::cout, std::cerr);
          }};
}

}  // namespace wsim::cli
