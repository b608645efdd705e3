// `wsim serve --scenario` and `wsim serve --replay` (external_command.h): one run of the external
// system through the run layer's driver and its bundle, or a replay of a bundle; a replay whose
// trace hash differs (exit 4) writes its own bundle under OUT/diverged and prints the first trace
// line that differs. Exit codes: sim/run/verdict.h.
#include "serve/external_command.h"

#include <filesystem>
#include <fstream>

#include "serve/external_record.h"
#include "sim/report/bundle_write.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/run/verdict.h"
#include "sim/search/scenario_flags.h"

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
  // A scenario that records a clock (a corpus file written from a bundle) runs on it unless
  // --vclock says otherwise, as a replay does.
  ExternalSettings settings = command.settings;
  if (!command.vclock_given && !loaded.scenario.external().vclock().empty()) {
    settings.vclock = recorded_vclock_mode(loaded.scenario.external());
    out << "external: the process's clock: " << vclock_mode_name(settings.vclock)
        << " (recorded in " << command.scenario_file << ")\n";
  }
  register_external_system(settings);
  if (!settings.command.empty()) record_command(loaded.scenario, settings.command, settings.vclock);
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
          << "replay: wsim replay " << run::shell_quote(path)
          << (command.settings.command.empty() ? "" : " --")
          << command_text(command.settings.command) << "\n";
    } else {
      err << "wsim serve: cannot write the bundle: " << error << "\n";
    }
  }
  return run::exit_code(result.verdict);
}

std::vector<std::string> trace_lines(const std::string& bundle_dir) {
  std::ifstream in(std::filesystem::path(bundle_dir) / "trace.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line) && lines.size() < 1000000;) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

// After a replay that diverged: its own bundle, and the first trace line that differs.
void explain_divergence(const ExternalCommand& command, const run::Bundle& bundle,
                        const run::RunResult& result, std::ostream& out, std::ostream& err) {
  std::string path;
  std::string error;
  const std::string dir = (std::filesystem::path(command.out_dir) / "diverged").string();
  if (!run::write_bundle(dir, *bundle.scenario.system, bundle.scenario.scenario, result, path,
                         error)) {
    err << "wsim serve: cannot write the replay's bundle: " << error << "\n";
    return;
  }
  const std::vector<std::string> recorded = trace_lines(bundle.dir);
  const std::vector<std::string> replayed = trace_lines(path);
  std::size_t i = 0;
  while (i < recorded.size() && i < replayed.size() && recorded[i] == replayed[i]) ++i;
  out << "the replay's bundle: " << path << "\nfirst difference at trace line " << i + 1 << " (of "
      << recorded.size() << " recorded, " << replayed.size() << " replayed):\n"
      << "  recorded: " << (i < recorded.size() ? recorded[i] : "(end)") << "\n"
      << "  replayed: " << (i < replayed.size() ? replayed[i] : "(end)") << "\n";
}

// Re-drives the bundle's choice record with the external process again.
int replay_bundle(const ExternalCommand& command, std::ostream& out, std::ostream& err) {
  run::Bundle bundle;
  std::string error;
  if (!run::read_bundle(command.replay_bundle, bundle, error) ||
      !run::validate_scenario(bundle.scenario, error)) {
    err << "wsim replay: " << error << "\n";
    return run::kExitUsage;
  }
  if (!bundle.scenario.scenario.has_external()) {
    err << "wsim replay: " << command.replay_bundle << " is a " << bundle.scenario.system->name()
        << " bundle; `-- COMMAND` is for bundles of external runs\n";
    return run::kExitUsage;
  }
  out << compare_with_recorded(bundle.scenario.scenario.external(), command.settings.command);
  // The recorded clock unless --vclock says otherwise: a bundle replays on the clock it ran on.
  ExternalSettings settings = command.settings;
  const VclockMode recorded = recorded_vclock_mode(bundle.scenario.scenario.external());
  if (!command.vclock_given) {
    settings.vclock = recorded;
  } else if (settings.vclock != recorded) {
    out << "note: --vclock " << vclock_mode_name(settings.vclock) << " overrides the bundle's "
        << vclock_mode_name(recorded)
        << (bundle.scenario.scenario.external().vclock().empty() ? " (not recorded: the default)"
                                                                 : "")
        << ": the process's timers fire at other instants, the replay is not expected to be "
           "exact\n";
  }
  out << "external: the process's clock: " << vclock_mode_name(settings.vclock) << "\n";
  register_external_system(settings);
  if (!settings.command.empty()) {
    record_command(bundle.scenario.scenario, settings.command, settings.vclock);
  }
  run::RunOptions options;
  options.tape = run::tape_of(bundle.record);
  options.record_choices = true;
  options.keep_trace = true;
  options.log = &out;
  const run::RunResult result =
      run::execute_run(*bundle.scenario.system, bundle.scenario.scenario, options);
  if (result.fingerprint != bundle.fingerprint || result.trace_hash != bundle.trace_hash) {
    out << "NONDETERMINISM: the replay's fingerprint " << run::format_hash(result.fingerprint)
        << " (trace hash " << run::format_hash(result.trace_hash) << ") differs from the bundle's "
        << run::format_hash(bundle.fingerprint) << ": the external process did not repeat its "
        << "requests (serve/README.md \"What is not deterministic\")\n";
    explain_divergence(command, bundle, result, out, err);
    return run::kExitNondeterminism;
  }
  out << "replayed exactly: fingerprint " << run::format_hash(result.fingerprint) << ", "
      << run::verdict_name(result.verdict)
      << (result.violation ? " " + result.violation->invariant_id : "") << "\n";
  return run::exit_code(result.verdict);
}

}  // namespace

int run_external(const ExternalCommand& command, std::ostream& out, std::ostream& err) {
  if (!command.replay_bundle.empty()) return replay_bundle(command, out, err);
  register_external_system(command.settings);  // run_scenario may change the clock.
  return run_scenario(command, out, err);
}

}  // namespace wsim::serve
