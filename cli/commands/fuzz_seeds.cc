// wsim fuzz-seeds (hidden): seed inputs of a fuzz target from passing seed runs.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"
#include "sim/search/fuzz_targets.h"

namespace wsim::cli {

Subcommand add_fuzz_seeds_command(CLI::App& app) {
  auto command = std::make_shared<run::FuzzSeedsCommand>();
  CLI::App* sub = app.add_subcommand("fuzz-seeds", "fuzzer inputs from passing seed runs");
  sub->group("");
  sub->add_option("--fuzz-target", command->target, "fuzz target")->required();
  sub->add_option("--seeds", command->seeds, "seed range A..B (default 0..19)");
  sub->add_option("--out", command->out_dir, "output directory")->required();
  sub->add_option("--max-bytes", command->max_bytes, "cut inputs (default 4096)");
  return {sub, [command] { return run::cmd_fuzz_seeds(*command, std::cout, std::cerr); }};
}

}  // namespace wsim::cli
