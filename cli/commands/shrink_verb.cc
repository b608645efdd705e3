// `wsim shrink BUNDLE` (shrink.h: cmd_shrink): the tape shrinker, then the scripted form.
#include "sim/search/shrink.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <tuple>

#include <google/protobuf/text_format.h>

#include "cli/commands/commands.h"
#include "sim/core/assert.h"
#include "sim/report/bundle_write.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/trace_view.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

namespace {

std::string shrink_summary(const ShrinkCommand& command, const System& system,
                           const ShrinkResult& result) {
  const std::vector<TraceEvent> events = external_events(system, result.run.trace);
  std::ostringstream summary;
  summary << "shrunk " << command.bundle << "\n"
          << "  " << verdict_name(result.verdict) << " " << result.invariant
          << (result.run.violation && !result.run.violation->object.empty()
                  ? " on " + result.run.violation->object
                  : "")
          << (result.run.violation ? ": " + result.run.violation->message : "") << "\n";
  if (result.labelled) {
    summary << "  kept its label: " << (result.known.empty() ? "NEW" : "known: " + result.known)
            << "\n";
  }
  summary << "  external events " << result.external_before << " -> " << result.external_after
          << ", scripted events " << result.scripted_before << " -> " << result.scripted_after
          << ", choices " << result.choices_before << " -> " << result.choices_after
          << " (non-zero " << result.nonzero_before << " -> " << result.nonzero_after << "), "
          << result.runs << " runs" << (result.budget_exhausted ? " (run budget spent)" : "")
          << "\n";
  if (!result.muted.empty()) {
    summary << "  muted actors (they never act in the shrunk run):";
    for (const std::string& actor : result.muted) summary << " " << actor;
    summary << "\n";
  }
  summary << "external events of the shrunk run (" << events.size() << "):\n"
          << render_events(events);
  return summary.str();
}

std::string scripted_summary(const ScriptedResult& scripted) {
  std::ostringstream summary;
  summary << "scripted form: " << scripted.events_rendered << " events and "
          << scripted.faults_rendered << " fired faults rendered from the shrunk run -> "
          << scripted.events_kept << " events, " << scripted.scenario.faults_size()
          << " fault overrides, " << scripted.runs << " runs\n"
          << "scripted form reproduces: "
          << (scripted.reproduces
                  ? "yes (" + scripted.form + ")"
                  : std::string("no: it gives ") + verdict_name(scripted.verdict) +
                        (scripted.invariant.empty() ? "" : " " + scripted.invariant))
          << "\n";
  for (const std::string& tried : scripted.tried) summary << "  tried " << tried << "\n";
  return summary.str();
}

// scripted.textproto: a comment saying where it comes from and whether it reproduces, then the
// scenario.
std::string scripted_file(const ShrinkCommand& command, const System& system, const Bundle& bundle,
                          const ShrinkResult& result, const ScriptedResult& scripted,
                          const std::string& target) {
  const std::string scripted_path = (std::filesystem::path(target) / "scripted.textproto").string();
  std::ostringstream text;
  text << "# wsim shrink " << command.bundle << ": the readable form of the shrunk run\n"
       << "# " << verdict_name(result.verdict) << " " << result.invariant << " on "
       << describe_versions(result.scenario, system) << " (bundle seed "
       << bundle.scenario.scenario.seed() << ")\n";
  if (result.run.violation) {
    text << "# " << result.run.violation->object << ": " << result.run.violation->message << "\n";
  }
  text << "# " << scripted.events_rendered << " external events rendered from the shrunk run ("
       << target << "), " << scripted.events_kept << " kept; " << scripted.scenario.faults_size()
       << " fault overrides\n";
  if (scripted.reproduces) {
    text << "# scripted form reproduces: yes (" << scripted.form
         << "; checked by running this text from its seed)\n"
         << "# run it: scripts/wsim run --scenario " << shell_quote(scripted_path) << "\n";
  } else {
    text << "# scripted form reproduces: NO (this text gives " << verdict_name(scripted.verdict)
         << (scripted.invariant.empty() ? "" : " " + scripted.invariant)
         << "): the failure reproduces only through the shrunk bundle's choices.bin:\n"
         << "#   scripts/wsim replay " << shell_quote(target) << "\n";
  }
  return text.str() + scripted_to_text(scripted.scenario, system);
}

// The scenario's comment names the staging directory `written`: point it at `target`.
void rewrite_scenario_comment(const ShrinkCommand& command, const ShrinkResult& result,
                              const std::string& written, const std::string& target) {
  const std::filesystem::path scenario_file = std::filesystem::path(written) / "scenario.textproto";
  std::ifstream in(scenario_file);
  std::ostringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  for (std::size_t at = body.find(written); at != std::string::npos;
       at = body.find(written, at + target.size())) {
    body.replace(at, written.size(), target);
  }
  std::ofstream rewritten(scenario_file, std::ios::trunc);
  rewritten << "# shrunk by `wsim shrink " << command.bundle << "`: " << result.external_after
            << " external events (shrink.txt); run it only through its choices.bin\n"
            << body;
}

// Where the shrunk bundle goes: --out, else BUNDLE-shrunk.
std::string shrunk_target(const ShrinkCommand& command) {
  if (!command.out.empty()) return command.out;
  std::string target = std::filesystem::path(command.bundle).lexically_normal().string();
  while (!target.empty() && target.back() == '/') target.pop_back();
  return target + "-shrunk";
}

// The shrunk bundle: scenario (scripted events dropped) + the shrunk choice record, so `wsim
// replay` re-executes it exactly; shrink.txt holds `summary`, scripted.textproto the readable
// form (when not empty). Written in a staging directory, then renamed to `target`.
bool write_shrunk_bundle(const ShrinkCommand& command, const System& system,
                         const ShrinkResult& result, const std::string& summary,
                         const std::string& scripted_text, const std::string& target,
                         std::ostream& err) {
  proto::Scenario scenario = result.scenario;
  scenario.set_name((scenario.name().empty() ? std::string("run") : scenario.name()) + "-shrunk");
  const std::filesystem::path final_path(target);
  const std::filesystem::path parent =
      final_path.has_parent_path() ? final_path.parent_path() : std::filesystem::path(".");
  const std::string staging = (parent / (".tmp-shrink-" + final_path.filename().string())).string();
  std::error_code ec;
  std::filesystem::remove_all(staging, ec);
  std::string written;
  std::string error;
  if (!write_bundle(staging, system, scenario, result.run, written, error)) {
    err << "wsim shrink: cannot write the bundle: " << error << "\n";
    return false;
  }
  std::ofstream(std::filesystem::path(written) / "shrink.txt") << summary;
  if (!scripted_text.empty()) {
    std::ofstream(std::filesystem::path(written) / "scripted.textproto") << scripted_text;
  }
  rewrite_scenario_comment(command, result, written, target);
  std::filesystem::remove_all(final_path, ec);
  std::filesystem::rename(written, final_path, ec);
  if (ec) {
    err << "wsim shrink: cannot move the bundle to " << target << ": " << ec.message() << "\n";
    return false;
  }
  std::filesystem::remove_all(staging, ec);
  return true;
}

// The bundle to shrink, its scenario prepared (ShrinkCommand::prepare_scenario). False (said on
// `err`) for a bundle that does not read or validate.
bool read_shrink_bundle(const ShrinkCommand& command, Bundle& bundle, std::ostream& err) {
  std::string error;
  if (!read_bundle(command.bundle, bundle, error) || !validate_scenario(bundle.scenario, error)) {
    err << "wsim shrink: " << error << "\n";
    return false;
  }
  if (command.prepare_scenario) command.prepare_scenario(bundle.scenario.scenario);
  return true;
}

}  // namespace

int cmd_shrink(const ShrinkCommand& command, std::ostream& out, std::ostream& err) {
  Bundle bundle;
  if (!read_shrink_bundle(command, bundle, err)) return kExitUsage;
  std::string error;
  const System& system = *bundle.scenario.system;
  if (!system.executable()) {
    err << "wsim shrink: " << command.bundle << ": " << system.executable_error() << "\n";
    return kExitUsage;
  }
  std::vector<KnownBug> known;
  if (!command.known.empty()) {
    std::vector<KnownBug> all;
    if (!known_bugs(command.known, system.name(), all, error)) {
      err << "wsim shrink: --known " << command.known << ": " << error << "\n";
      return kExitUsage;
    }
    known = applicable_known_bugs(all, bundle.scenario.scenario, system);
  }
  ShrinkOptions options;
  options.known = command.known.empty() ? nullptr : &known;
  options.max_runs = command.max_runs;
  options.events_max = command.events_max;
  options.progress = &err;
  ShrinkResult result =
      shrink_run(system, bundle.scenario.scenario, tape_of(bundle.record), options);
  if (!result.ok) {
    err << "wsim shrink: " << command.bundle << ": " << result.error << "\n";
    return kExitUsage;
  }
  std::string summary = shrink_summary(command, system, result);
  out << summary;

  // The readable form, verified (shrink.h "The short readable scenario").
  const std::string target = shrunk_target(command);
  std::string scripted_text;
  if (command.scripted_max_runs > 0) {
    ScriptedOptions scripted_options;
    scripted_options.max_runs = command.scripted_max_runs;
    scripted_options.events_max = command.events_max;
    scripted_options.progress = &err;
    scripted_options.known = options.known;
    scripted_options.known_label = result.known;
    // The shrunk scenario is the source (the bundle's versions and seed, the shortened fault
    // phase); the bundle's own script, if any, is tried first as it was
    // (ScriptedOptions::original).
    scripted_options.original = &bundle.scenario.scenario;
    const ScriptedResult scripted = render_scripted(
        system, result.scenario, result.run, result.verdict, result.invariant, scripted_options);
    out << scripted_summary(scripted);
    summary += scripted_summary(scripted);
    scripted_text = scripted_file(command, system, bundle, result, scripted, target);
  }
  if (!write_shrunk_bundle(command, system, result, summary, scripted_text, target, err)) {
    return kExitUsage;
  }
  out << "bundle " << target << "\n"
      << "reproduce with:\n  scripts/wsim replay " << shell_quote(target);
  if (bundle.scenario.scenario.has_external()) {  // Its process again, after -- (external.md).
    out << " --";
    for (const std::string& arg : bundle.scenario.scenario.external().command()) {
      out << " " << shell_quote(arg);
    }
  }
  out << "\n";
  if (!scripted_text.empty()) out << "\n" << target << "/scripted.textproto:\n" << scripted_text;
  return exit_code(result.verdict);
}

}  // namespace wsim::run
