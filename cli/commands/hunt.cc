// wsim hunt: a swarm over seeds until a failure (hunt.h); with no arguments every system at its
// latest versions, going past the corpus's known bugs.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/scenario_options.h"
#include "cli/serve_command.h"
#include "cli/subcommand.h"
#include "cli/wallclock.h"
#include "serve/external_record.h"
#include "serve/external_system.h"
#include "sim/core/assert.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/shell_quote.h"

namespace wsim::cli {

namespace {

struct HuntState {
  ScenarioOptions scenario;
  std::vector<std::string> process;  // An external reconciler (after --).
  std::int64_t quiet_ms = 30;
  std::string lockstep = "ready";
  std::string vclock = "next-event";
  run::HuntCommand command;
  std::string time;
  std::uint64_t runs = 0;
  CLI::Option* runs_option = nullptr;
  CLI::App* app = nullptr;  // For --vclock: was it given?
  std::string shard;
};

// "I/N" with 0 <= I < N into `shard`; false otherwise.
bool parse_shard(const std::string& text, run::Shard& shard) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  if (!run::parse_u64(text.substr(0, slash), shard.index)) return false;
  if (!run::parse_u64(text.substr(slash + 1), shard.count)) return false;
  return shard.count >= 1 && shard.index < shard.count;
}

void add_report_options(CLI::App& sub, HuntState& state) {
  sub.add_option("--shard", state.shard,
                 "I/N: run only shard I of N (0-based) of the run indices, index i to shard "
                 "i mod N; `wsim merge` combines the N summaries");
  sub.add_option("--summary", state.command.summary_path,
                 "write a machine-readable summary (JSON: runs, findings, probes) to FILE");
  sub.add_option("--junit", state.command.junit_path,
                 "write a JUnit XML report to FILE (one test case per version tuple)");
}

void add_hunt_options(CLI::App& sub, HuntState& state) {
  add_scenario_options(sub, state.scenario, false);
  sub.add_option("--time", state.time, "wall-clock budget, e.g. 60s, 10m (default 20s)");
  state.runs_option = sub.add_option("--runs", state.runs, "run budget");
  // Default: one worker process per online CPU.
  state.command.jobs = static_cast<int>(std::clamp(::sysconf(_SC_NPROCESSORS_ONLN), 1L, 64L));
  sub.add_option("--jobs", state.command.jobs,
                 "parallel worker processes (default: one per CPU, here " +
                     std::to_string(state.command.jobs) + ")");
  sub.add_option("--seed-start", state.command.seed_start, "first seed (default 0)");
  sub.add_option("--out", state.command.out_dir, "where failure bundles go (default wsim-out)");
  sub.add_flag("--verbose", state.command.verbose,
               "print every finding's re-run, signature and the probe table in full (known "
               "findings are otherwise one line each)");
  sub.add_flag("--keep-going", state.command.keep_going,
               "do not stop at the first failure (one bundle per invariant)");
  sub.add_flag("--guided", state.command.guided,
               "probe-guided swarm: every second run reuses the fault/incident/scheduler "
               "configuration of a run that reached a rare probe (sim/search/hunt_guide.h)");
  sub.add_flag("--until-label", state.command.until_label,
               "with --bug: go past the known bugs and stop only at a finding labelled with the "
               "hunted bug (its signature), not at any failure of its invariant");
  sub.add_option("--known", state.command.known_dir,
                 "go past the known bugs of this corpus (e.g. corpus/regressions): a table of "
                 "them, exit non-zero only for NEW findings (default with no arguments)");
  sub.add_option("--amplifiers", state.command.amplifiers,
                 "swarm (default): each run draws every amplifier left at its production value "
                 "(amplified in half the runs, written into its scenario); production: no draw, "
                 "every amplifier keeps the scenario's value (`wsim list` names them)")
      ->check(CLI::IsMember({"swarm", "production"}));
  add_report_options(sub, state);
  sub.add_option("--quiet-ms", state.quiet_ms,
                 "with -- COMMAND: the lockstep quiet period in ms (default 30; serve/README.md)");
  sub.add_option("--lockstep", state.lockstep,
                 "with -- COMMAND: ready (default; the readiness test, the quiet period as "
                 "fallback) or quiet (the quiet period only)")
      ->check(CLI::IsMember({"ready", "quiet"}));
  add_vclock_option(sub, state.vclock, "");
  sub.add_option("command", state.process,
                 "with --scenario of an `external { ... }` scenario: the reconciler to hunt, "
                 "after -- (one process per run; docs/external.md)");
}

// `wsim hunt --scenario EXT -- COMMAND`: the external system runs COMMAND (one process per
// run, in each worker), records it in every run's scenario, writes bundles in the workers (a
// re-run of a process outside wsim may differ), and prints repro lines that give COMMAND again.
void set_external_hunt(HuntState& state) {
  serve::ExternalSettings settings;
  settings.command = state.process;
  settings.quiet_ms = state.quiet_ms;
  settings.ready_test = state.lockstep == "ready";
  WSIM_ASSERT(state.app != nullptr);
  const bool given = set_vclock(*state.app, state.vclock, settings);
  serve::register_external_system(settings);
  // A scenario file that records a clock (a corpus file written from a bundle) is hunted on it
  // unless --vclock says otherwise, as `wsim serve --scenario` runs it. A file that does not
  // load is left to the hunt, which says why.
  run::LoadedScenario loaded;
  std::string error;
  if (!given && run::load_scenario_file(state.command.flags.scenario_file, loaded, error) &&
      loaded.scenario.has_external() && !loaded.scenario.external().vclock().empty()) {
    settings.vclock = serve::recorded_vclock_mode(loaded.scenario.external());
    serve::register_external_system(settings);
    std::cout << "external: the process's clock: " << serve::vclock_mode_name(settings.vclock)
              << " (recorded in " << state.command.flags.scenario_file << ")\n";
  }
  const std::vector<std::string> process = state.process;
  const serve::VclockMode vclock = settings.vclock;
  state.command.prepare_scenario = [process, vclock](proto::Scenario& scenario) {
    if (scenario.has_external()) serve::record_command(scenario, process, vclock);
  };
  state.command.record_in_workers = true;
  std::string suffix = " --";
  for (const std::string& arg : process) suffix += " " + run::shell_quote(arg);
  state.command.repro_suffix = suffix;
  state.command.repro_command =
      "scripts/wsim serve --scenario " + run::shell_quote(state.command.flags.scenario_file);
}

int run_hunt(HuntState& state) {
  std::string error;
  if (!to_flags(state.scenario, state.command.flags, error)) {
    std::cerr << "wsim hunt: " << error << "\n";
    return run::kExitUsage;
  }
  if (!state.time.empty()) {
    DurationMs ms = 0;
    if (!run::parse_duration_ms(state.time, ms, error)) {
      std::cerr << "wsim hunt: --time: " << error << "\n";
      return run::kExitUsage;
    }
    state.command.time_ms = ms;
  }
  if (!state.shard.empty() && !parse_shard(state.shard, state.command.shard)) {
    std::cerr << "wsim hunt: --shard " << state.shard << ": expected I/N with 0 <= I < N\n";
    return run::kExitUsage;
  }
  if (state.runs_option->count() > 0) state.command.runs = state.runs;
  if (!state.process.empty()) {
    if (state.command.flags.scenario_file.empty()) {
      std::cerr << "wsim hunt: -- COMMAND hunts an external reconciler: give --scenario FILE (an "
                   "`external { ... }` scenario)\n";
      return run::kExitUsage;
    }
    set_external_hunt(state);
  }
  state.command.make_clock = make_hunt_clock;
  state.command.progress_tty = ::isatty(2) != 0;
  return run::cmd_hunt(state.command, std::cout, std::cerr);
}

}  // namespace

Subcommand add_hunt_command(CLI::App& app) {
  auto state = std::make_shared<HuntState>();
  CLI::App* sub = app.add_subcommand(
      "hunt",
      "swarm over seeds until a failure (with no arguments: every system, latest "
      "versions, 20s each)");
  add_hunt_options(*sub, *state);
  state->app = sub;
  return {sub, [state] { return run_hunt(*state); }};
}

}  // namespace wsim::cli
