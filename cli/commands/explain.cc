// wsim explain: a short story of a failure bundle.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"
#include "serve/external_record.h"
#include "sim/report/explain.h"
#include "sim/run/scenario.h"
#include "sim/run/verdict.h"

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
  return {sub, [command] {
            const int code = run::cmd_explain(*command, std::cout, std::cerr);
            // An external run's bundle: what ran as its reconciler (serve/external_record.h).
            run::LoadedScenario loaded;
            std::string ignored;
            if (code == run::kExitPass &&
                run::load_scenario_file(command->bundle + "/scenario.textproto", loaded, ignored) &&
                loaded.scenario.has_external()) {
              std::cout << serve::describe_recorded_command(loaded.scenario.external());
            }
            return code;
          }};
}

}  // namespace wsim::cli
