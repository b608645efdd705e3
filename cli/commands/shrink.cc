// wsim shrink: the minimal failing run with the same invariant.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/serve_command.h"
#include "cli/subcommand.h"
#include "serve/external_record.h"
#include "serve/external_system.h"
#include "sim/run/scenario.h"
#include "sim/search/shrink.h"

namespace wsim::cli {

namespace {

// The clock of an external bundle's candidate runs: the one it recorded (external.vclock; none
// recorded: next-event) unless --vclock was given; the shrunk bundle records the clock and the
// COMMAND its candidates ran (ShrinkCommand::prepare_scenario), so it replays as it was shrunk.
// False (said on stderr) when the bundle's scenario cannot be read.
bool external_clock(const std::string& bundle, bool given, serve::VclockMode& mode) {
  run::LoadedScenario loaded;
  std::string error;
  if (!run::load_scenario_file(bundle + "/scenario.textproto", loaded, error) ||
      !run::validate_scenario(loaded, error)) {
    std::cerr << "wsim shrink: " << error << "\n";
    return false;
  }
  if (!loaded.scenario.has_external()) return true;  // cmd_shrink says -- COMMAND is not for it.
  const serve::VclockMode recorded = serve::recorded_vclock_mode(loaded.scenario.external());
  if (!given) mode = recorded;
  if (mode != recorded) {
    std::cout << "note: --vclock " << serve::vclock_mode_name(mode) << " overrides the bundle's "
              << serve::vclock_mode_name(recorded) << "; the shrunk bundle records "
              << serve::vclock_mode_name(mode) << "\n";
  }
  std::cout << "external: the process's clock: " << serve::vclock_mode_name(mode) << "\n";
  return true;
}

}  // namespace

Subcommand add_shrink_command(CLI::App& app) {
  auto command = std::make_shared<run::ShrinkCommand>();
  CLI::App* sub = app.add_subcommand(
      "shrink", "minimal failing run with the same invariant (choices and scripted events)");
  sub->add_option("bundle", command->bundle, "failure bundle directory")->required();
  sub->add_option("-o,--out", command->out, "shrunk bundle directory (default BUNDLE-shrunk)");
  sub->add_option("--max-runs", command->max_runs, "candidate runs (default 2000)");
  sub->add_option("--max-events", command->events_max, "event budget of one run");
  sub->add_option("--known", command->known,
                  "keep the finding's label against this corpus (the same known FILE#N, or NEW), "
                  "not only its invariant, e.g. corpus/regressions");
  sub->add_option("--scripted-max-runs", command->scripted_max_runs,
                  "runs to verify and shrink the readable scripted form (default 300; 0 = "
                  "no scripted.textproto)");
  // An external run's bundle: its process after --, one process per candidate run.
  auto process = std::make_shared<std::vector<std::string>>();
  auto vclock = std::make_shared<std::string>("next-event");
  add_vclock_option(*sub, *vclock, "; default: the bundle's");
  sub->add_option("command", *process,
                  "an external run's bundle: its process (after --), started for every "
                  "candidate run (docs/external.md)");
  return {sub, [command, process, vclock, sub] {
            if (!process->empty()) {
              serve::ExternalSettings settings;
              settings.command = *process;
              const bool given = set_vclock(*sub, *vclock, settings);
              if (!external_clock(command->bundle, given, settings.vclock)) {
                return run::kExitUsage;
              }
              serve::register_external_system(settings);
              const serve::VclockMode mode = settings.vclock;
              command->prepare_scenario = [process, mode](proto::Scenario& scenario) {
                if (scenario.has_external()) serve::record_command(scenario, *process, mode);
              };
            }
            return run::cmd_shrink(*command, std::cout, std::cerr);
          }};
}

}  // namespace wsim::cli
