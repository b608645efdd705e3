// wsim shrink: the minimal failing run with the same invariant.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"
#include "serve/external_system.h"
#include "sim/search/shrink.h"

namespace wsim::cli {

Subcommand add_shrink_command(CLI::App& app) {
  auto command = std::make_shared<run::ShrinkCommand>();
  CLI::App* sub = app.add_subcommand(
      "shrink", "minimal failing run with the same invariant (choices and scripted events)");
  sub->add_option("bundle", command->bundle, "failure bundle directory")->required();
  sub->add_option("-o,--out", command->out, "shrunk bundle directory (default BUNDLE-shrunk)");
  sub->add_option("--max-runs", command->max_runs, "candidate runs (default 2000)");
  sub->add_option("--max-events", command->events_max, "event budget of one run");
  sub->add_option("--known", command->known,
                  "keep the finding's label against this corpus (the same known FILE#N, or NEW), "
                  "not only its invariant, e.g. corpus/regressions");
  sub->add_option("--scripted-max-runs", command->scripted_max_runs,
                  "runs to verify and shrink the readable scripted form (default 300; 0 = "
                  "no scripted.textproto)");
  // An external run's bundle: its process after --, one process per candidate run.
  auto process = std::make_shared<std::vector<std::string>>();
  sub->add_option("command", *process,
                  "an external run's bundle: its process (after --), started for every "
                  "candidate run (docs/external.md)");
  return {sub, [command, process] {
            if (!process->empty()) {
              serve::ExternalSettings settings;
              settings.command = *process;
              serve::register_external_system(settings);
            }
            return run::cmd_shrink(*command, std::cout, std::cerr);
          }};
}

}  // namespace wsim::cli
