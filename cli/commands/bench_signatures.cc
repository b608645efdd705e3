// wsim bench-signatures (hidden): recall and precision of finding signatures
// (scripts/bench-signatures, docs/signatures.md).
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"
#include "sim/triage/signature_bench.h"

namespace wsim::cli {

Subcommand add_bench_signatures_command(CLI::App& app) {
  auto command = std::make_shared<run::BenchSignaturesCommand>();
  CLI::App* sub = app.add_subcommand(
      "bench-signatures", "recall and precision of finding signatures over the corpus bugs");
  sub->group("");
  sub->add_option("--corpus", command->corpus_dir, "corpus directory");
  sub->add_option("--instances", command->instances, "violations hunted per bug (default 10)");
  sub->add_option("--runs-max", command->runs_max, "runs per bug at most (default 400)");
  sub->add_option("--only", command->only, "bug names containing");
  sub->add_flag("--dump", command->dump, "print each instance's signature to stderr");
  return {sub, [command] { return run::cmd_bench_signatures(*command, std::cout, std::cerr); }};
}

}  // namespace wsim::cli
