// wsim report: an issue-ready Markdown report of a failure bundle.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"

namespace wsim::cli {

Subcommand add_report_command(CLI::App& app) {
  auto command = std::make_shared<run::ReportCommand>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "an issue-ready Markdown report of a failure bundle for the upstream project: versions, "
      "realism, the story, the upstream lines of each step, the repro commands");
  sub->add_option("bundle", command->bundle, "failure bundle directory")->required();
  sub->add_option("--out", command->out, "write the report to FILE (atomically) instead of stdout");
  sub->add_option("--known", command->known_dir,
                  "the corpus that labels the finding and holds its upstream evidence (default "
                  "corpus/regressions)");
  sub->add_flag("--original", command->original,
                "report the bundle itself even when BUNDLE-shrunk exists");
  return {sub, [command] { return run::cmd_report(*command, std::cout, std::cerr); }};
}

}  // namespace wsim::cli
