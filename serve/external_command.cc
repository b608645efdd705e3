#include "serve/external_command.h"

#include "sim/run/bundle.h"
#include "sim/run/commands.h"
#include "sim/run/duration.h"
#include "sim/run/verdict.h"

namespace wsim::serve {
namespace {

std::string command_text(const std::vector<std::string>& command) {
  std::string text;
  for (const std::string& arg : command) text += " " + run::shell_quote(arg);
  return text;
}

int run_scenario(const ExternalCommand& command, std::ostream& out, std::ostream& err) {
  run::ScenarioFlags flags;
  flags.scenario_file = command.scenario_file;
  flags.seed = command.seed;
  run::LoadedScenario loaded;
  std::string error;
  if (!run::build_scenario(flags, loaded, error)) {
    err << "wsim serve: " << error << "\n";
    return run::kExitUsage;
  }
  if (loaded.system->name() != "external") {
    err << "wsim serve: " << command.scenario_file << " is a " << loaded.system->name()
        << " scenario; wsim serve --scenario runs `external { ... }` scenarios (wsim run runs "
           "the others)\n";
    return run::kExitUsage;
  }
  run::RunOptions options;
  options.record_choices = true;
  options.keep_trace = true;
  options.log = &out;
  const run::RunResult result = run::execute_run(*loaded.system, loaded.scenario, options);
  out << "fingerprint " << run::format_hash(result.fingerprint) << " trace hash "
      << run::format_hash(result.trace_hash) << ", " << result.trace_events << " trace events\n";
  if (result.verdict != run::Verdict::kPass || command.out_dir_given) {
    std::string path;
    if (run::write_bundle(command.out_dir, *loaded.system, loaded.scenario, result, path, error)) {
      out << "bundle " << path << "\n"
          << "replay: wsim serve --replay " << run::shell_quote(path)
          << (command.settings.command.empty() ? "" : " --")
          << command_text(command.settings.command) << "\n";
    } else {
      err << "wsim serve: cannot write the bundle: " << error << "\n";
    }
  }
  return run::exit_code(result.verdict);
}

}  // namespace

int run_external(const ExternalCommand& command, std::ostream& out, std::ostream& err) {
  register_external_system(command.settings);
  if (!command.replay_bundle.empty()) {
    run::ReplayCommand replay;
    replay.path = command.replay_bundle;
    replay.out_dir = command.out_dir;
    return run::cmd_replay(replay, out, err);
  }
  return run_scenario(command, out, err);
}

}  // namespace wsim::serve
