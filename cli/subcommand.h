// One subcommand of the `wsim` command line: each lives in cli/commands/<name>.cc and is added
// by one line of main.cc's table.
//
// add_<name>_command(app) declares the subcommand and its options on `app` (CLI11) and returns
// the subcommand with the function that runs it; the options it parses into are owned by that
// function (a shared_ptr the closure holds), so they outlive the parse. main.cc parses once and
// runs the subcommand that was given.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace wsim::cli {

struct Subcommand {
  CLI::App* app = nullptr;   // Owned by the parent CLI::App.
  std::function<int()> run;  // Called after a successful parse when `app` was given.
};

Subcommand add_run_command(CLI::App& app);
Subcommand add_replay_command(CLI::App& app);
Subcommand add_shrink_command(CLI::App& app);
Subcommand add_fuzz_seeds_command(CLI::App& app);
Subcommand add_corpus_command(CLI::App& app);
Subcommand add_hunt_command(CLI::App& app);
Subcommand add_merge_command(CLI::App& app);
Subcommand add_explain_command(CLI::App& app);
Subcommand add_report_command(CLI::App& app);
Subcommand add_list_command(CLI::App& app);
Subcommand add_bench_signatures_command(CLI::App& app);
Subcommand add_fingerprint_command(CLI::App& app);
// `wsim serve`, and `--serve` on `replay` (cli/serve_command.h): wraps replay.run so that
// `wsim replay BUNDLE --serve` serves the bundle instead of replaying it.
Subcommand add_serve_command(CLI::App& app, Subcommand& replay);

}  // namespace wsim::cli
