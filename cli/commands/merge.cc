// wsim merge: shard summaries of `wsim hunt --shard I/N --summary FILE` into one report.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"

namespace wsim::cli {

Subcommand add_merge_command(CLI::App& app) {
  auto command = std::make_shared<run::MergeCommand>();
  CLI::App* sub = app.add_subcommand(
      "merge",
      "combine the summaries of the N shards of a hunt (wsim hunt --shard I/N --summary "
      "FILE) into one findings table and one probe-coverage table; exits as the whole "
      "hunt would");
  sub->add_option("summaries", command->summaries, "shard summary files (JSON)")->required();
  sub->add_option("--summary", command->summary_path, "also write the merged summary to FILE");
  sub->add_option("--junit", command->junit_path, "also write a JUnit XML report to FILE");
  return {sub, [command] { return run::cmd_merge(*command, std::cout, std::cerr); }};
}

}  // namespace wsim::cli
