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
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/subcommand.h"
#include "sim/run/verdict.h"

#ifdef WSIM_HAVE_TOY
#include "model/toy/register.h"
#endif
#ifdef WSIM_HAVE_GITLAB
#include "model/gitlab/register.h"
#endif
#ifdef WSIM_HAVE_GITPOD
#include "model/gitpod/register.h"
#endif

namespace {

void register_systems() {
#ifdef WSIM_HAVE_TOY
  wsim::toy::register_toy_system();
#endif
#ifdef WSIM_HAVE_GITLAB
  wsim::gitlab::register_gitlab_system();
#endif
#ifdef WSIM_HAVE_GITPOD
  wsim::gitpod::register_gitpod_system();
#endif
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = wsim::cli;
  register_systems();

  CLI::App app{"wsim: deterministic simulation and fuzz harness for workspace reconcilers"};
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 pass, 1 usage or harness error, 2 safety violation, 3 liveness violation,\n"
      "4 nondeterminism, 5 an expected violation did not happen.");

  // One line per subcommand, in the order `wsim --help` lists them.
  const std::vector<cli::Subcommand> subcommands = {
      cli::add_run_command(app),         cli::add_replay_command(app),
      cli::add_shrink_command(app),      cli::add_fuzz_seeds_command(app),
      cli::add_corpus_command(app),      cli::add_hunt_command(app),
      cli::add_merge_command(app),       cli::add_explain_command(app),
      cli::add_list_command(app),        cli::add_bench_signatures_command(app),
      cli::add_fingerprint_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? wsim::run::kExitPass : wsim::run::kExitUsage;
  }
  for (const cli::Subcommand& subcommand : subcommands) {
    if (*subcommand.app) return subcommand.run();
  }
  return wsim::run::kExitUsage;
}
