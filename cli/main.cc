// wsim: the command line of the simulation harness.
//
//   wsim run     --scenario FILE | --system S [version flags] [--seed N] [--out DIR] ...
//   wsim replay  BUNDLE_DIR | SCENARIO_FILE
//   wsim hunt    [--system S] [version flags] [--time 60s | --runs N] [--jobs N] [--out DIR]
//   wsim list
//
// Each subcommand lives in cli/commands/<name>.cc (subcommand.h) and is added by one line of
// the table below. Version flags are the fields of the selected system's config message
// (scenario.proto), made from the registered systems by reflection (scenario_options.h).
//
// Exit codes: 0 pass, 1 usage or harness error, 2 safety violation, 3 liveness violation,
// 4 nondeterminism, 5 an expected violation did not happen.
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/subcommand.h"
#include "sim/run/verdict.h"

#include "model/all_systems/all_systems.h"
#include "serve/external_system.h"
#include "sim/core/log.h"

int main(int argc, char** argv) {
  namespace cli = wsim::cli;
  wsim::register_all_systems();

  CLI::App app{"wsim: deterministic simulation and fuzz harness for workspace reconcilers"};
  app.require_subcommand(1);
  std::string log_level = "off";
  app.add_option("--log-level", log_level,
                 "virtual-time log on stderr: off (default), error, warn, info, debug, trace");
  app.footer(
      "Exit codes: 0 pass, 1 usage or harness error, 2 safety violation, 3 liveness violation,\n"
      "4 nondeterminism, 5 an expected violation did not happen.");

  // One line per subcommand, in the order `wsim --help` lists them.
  std::vector<cli::Subcommand> subcommands = {
      cli::add_run_command(app),         cli::add_replay_command(app),
      cli::add_shrink_command(app),      cli::add_fuzz_seeds_command(app),
      cli::add_corpus_command(app),      cli::add_hunt_command(app),
      cli::add_merge_command(app),       cli::add_explain_command(app),
      cli::add_list_command(app),        cli::add_bench_signatures_command(app),
      cli::add_fingerprint_command(app), cli::add_report_command(app),
  };
  subcommands.push_back(cli::add_serve_command(app, subcommands[1]));  // After replay.

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? wsim::run::kExitPass : wsim::run::kExitUsage;
  }
  if (!wsim::set_log_level(log_level)) {
    std::cerr << "wsim: --log-level: unknown level '" << log_level
              << "' (off, error, warn, info, debug, trace)\n";
    return wsim::run::kExitUsage;
  }
  // The external system (serve/external_system.h) after the parse, so it adds no flags: every
  // verb can read its bundles and scenarios; `wsim serve` and `wsim hunt ... -- COMMAND` give
  // it the process to run. Not for `list`/`fingerprint`: they enumerate the systems that run
  // alone.
  const std::string selected = app.get_subcommands().front()->get_name();
  if (selected != "list" && selected != "fingerprint" && selected != "bench-signatures" &&
      selected != "fuzz-seeds") {
    wsim::serve::register_external_system({});
  }
  for (const cli::Subcommand& subcommand : subcommands) {
    if (*subcommand.app) return subcommand.run();
  }
  return wsim::run::kExitUsage;
}
