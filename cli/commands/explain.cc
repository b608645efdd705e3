// wsim explain: a short story of a failure bundle.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"
#include "sim/report/explain.h"

namespace wsim::cli {

Subcommand add_explain_command(CLI::App& app) {
  auto command = std::make_shared<run::ExplainCommand>();
  CLI::App* sub = app.add_subcommand(
      "explain",
      "a short story of a failure bundle: the invariant, the events that matter, "
      "the state before and after");
  sub->add_option("bundle", command->bundle, "failure bundle directory")->required();
  sub->add_option("--html", command->html, "also write the timeline diagram to FILE");
  sub->add_flag("--verbose", command->verbose,
                "append every event, unclipped, with its detail in full");
  sub->add_option("--known", command->known_dir,
                  "label the failure known/NEW against this corpus (default corpus/regressions)");
  sub->add_flag("--original", command->original,
                "explain the bundle itself even when BUNDLE-shrunk exists");
  return {sub, [command] { return run::cmd_explain(*command, std::cout, std::cerr); }};
}

}  // namespace wsim::cli
