// `wsim corpus add BUNDLE [-- COMMAND...]` for external bundles (external_corpus.h,
// docs/external.md "A corpus of external findings"): names the file after invariant, seed and slug,
// runs the seed again with COMMAND when one is given, and writes the corpus file with its replay
// header.
#include "serve/external_corpus.h"

#include <filesystem>
#include <fstream>

#include "serve/external_record.h"
#include "serve/external_system.h"
#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/run/shell_quote.h"
#include "sim/run/verdict.h"

namespace wsim::serve {
namespace {

namespace fs = std::filesystem;

// Only [A-Za-z0-9_-]; anything else becomes '-'.
std::string slugify(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
    out += keep ? c : '-';
  }
  return out.empty() ? std::string("regression") : out;
}

// "S1-s2-racy-python": the invariant without "external.", the seed and the slug.
std::string file_stem(const std::string& invariant, std::uint64_t seed, const std::string& slug) {
  const std::size_t dot = invariant.find('.');
  return slugify(dot == std::string::npos ? invariant : invariant.substr(dot + 1)) + "-s" +
         std::to_string(seed) + "-" + slugify(slug.empty() ? "regression" : slug);
}

// `workdir` relative to the current directory when it lies beneath it (a repository checkout:
// the file then works from any clone), else as it is.
std::string portable_workdir(const std::string& workdir) {
  const std::string here = current_workdir();
  if (workdir.empty() || here.empty()) return workdir;
  const fs::path relative = fs::path(workdir).lexically_relative(here);
  if (relative.empty() || *relative.begin() == "..") return workdir;
  return relative.string();
}

std::string command_text(const proto::ExternalConfig& config) {
  std::string text;
  for (const std::string& arg : config.command()) {
    text += (text.empty() ? "" : " ") + run::shell_quote(arg);
  }
  return text;
}

// With COMMAND: the seed run again with it; true when it violates `invariant`.
bool seed_reproduces(const ExternalCorpusAdd& command, const run::System& system,
                     const proto::Scenario& scenario, const std::string& invariant,
                     std::string& what, std::ostream& err) {
  ExternalSettings settings;
  settings.command = command.command;
  settings.quiet_ms = command.quiet_ms;
  settings.vclock = recorded_vclock_mode(scenario.external());  // The bundle's clock.
  register_external_system(settings);
  const run::RunResult result = run::execute_run(system, scenario, run::RunOptions{});
  const std::string got = result.violation ? result.violation->invariant_id : "";
  what = std::string(run::verdict_name(result.verdict)) + (got.empty() ? "" : " " + got);
  if (got == invariant) return true;
  err << "wsim corpus add: " << command.bundle << ": its seed " << scenario.seed()
      << " run again with the COMMAND given gives " << what << ", the bundle recorded " << invariant
      << ": the process did not repeat the failure from the seed alone (try "
      << "again, or add it without -- COMMAND to take the recorded verdict)\n";
  return false;
}

}  // namespace

bool is_external_bundle(const std::string& bundle_dir) {
  run::Bundle bundle;
  std::string error;
  return run::read_bundle(bundle_dir, bundle, error) && bundle.scenario.scenario.has_external();
}

int cmd_external_corpus_add(const ExternalCorpusAdd& command, std::ostream& out,
                            std::ostream& err) {
  run::Bundle bundle;
  std::string error;
  if (!run::read_bundle(command.bundle, bundle, error) ||
      !run::validate_scenario(bundle.scenario, error)) {
    err << "wsim corpus add: " << error << "\n";
    return run::kExitUsage;
  }
  proto::Verdict verdict = proto::VERDICT_UNSPECIFIED;
  if (!bundle.scenario.scenario.has_external() || bundle.invariant.empty() ||
      !proto::Verdict_Parse(bundle.verdict, &verdict) ||
      (verdict != proto::SAFETY_VIOLATION && verdict != proto::LIVENESS_VIOLATION)) {
    err << "wsim corpus add: " << command.bundle
        << ": not the bundle of a failing external run (verdict.json: '" << bundle.verdict
        << "', invariant '" << bundle.invariant << "')\n";
    return run::kExitUsage;
  }
  proto::Scenario scenario = bundle.scenario.scenario;
  scenario.clear_expect();
  std::string rerun;
  if (!command.command.empty()) {
    record_command(scenario, command.command, recorded_vclock_mode(scenario.external()));
    if (!seed_reproduces(command, *bundle.scenario.system, scenario, bundle.invariant, rerun,
                         err)) {
      return run::kExitUsage;
    }
  }
  proto::ExternalConfig* config = scenario.mutable_external();
  if (config->command().empty()) {
    err << "wsim corpus add: " << command.bundle
        << ": the bundle records no COMMAND; give the process after -- (wsim corpus add BUNDLE "
           "-- COMMAND...)\n";
    return run::kExitUsage;
  }
  config->set_workdir(portable_workdir(config->workdir()));
  proto::Expectation* expect = scenario.add_expect();
  expect->set_verdict(verdict);
  expect->set_invariant(bundle.invariant);
  if (scenario.name().empty())
    scenario.set_name(command.name.empty() ? "regression" : command.name);

  const fs::path dir = command.corpus_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path path =
      dir / (file_stem(bundle.invariant, scenario.seed(), command.name) + ".textproto");
  if (fs::exists(path, ec)) {
    err << "wsim corpus add: " << path.string() << " exists (give another --name)\n";
    return run::kExitUsage;
  }
  // "(cd WORKDIR && wsim serve --scenario FILE -- COMMAND)", FILE relative to WORKDIR when
  // both lie beneath the current directory.
  const std::string workdir = config->workdir().empty() ? "." : config->workdir();
  const fs::path from_here = fs::absolute(path).lexically_relative(fs::current_path(ec));
  const bool inside = !from_here.empty() && *from_here.begin() != "..";
  const std::string file_from_workdir =
      inside ? fs::absolute(path).lexically_relative(fs::absolute(workdir)).string()
             : fs::absolute(path).lexically_normal().string();
  const std::string cd = workdir == "." ? "" : "cd " + run::shell_quote(workdir) + " && ";
  std::string text = "# " + bundle.verdict + " " + bundle.invariant + ", seed " +
                     std::to_string(scenario.seed()) + "; added by `wsim corpus add " +
                     command.bundle + "`\n";
  text +=
      "# An external run: it needs its process. Run it again from the directory it was added "
      "from (the repository root):\n#   (" +
      cd + "wsim serve --scenario " + run::shell_quote(file_from_workdir) + " -- " +
      command_text(*config) + ")\n";
  text += rerun.empty()
              ? "# Not run again when added (no -- COMMAND): the expectation is the bundle's "
                "recorded verdict.\n"
              : "# Its seed run again with that COMMAND when added: " + rerun + ".\n";
  text +=
      "# The process is outside wsim: a run from the seed repeats the failure only as often as "
      "the process repeats its requests (docs/external.md).\n";
  text += run::scenario_to_text(scenario);
  std::ofstream file(path);
  file << text;
  file.close();
  if (!file) {
    err << "wsim corpus add: cannot write " << path.string() << "\n";
    return run::kExitUsage;
  }
  out << "added " << path.string() << "\n  " << bundle.verdict << " " << bundle.invariant
      << (rerun.empty() ? " (as recorded; not run again)" : " (its seed run again: " + rerun + ")")
      << "\nrun it with:\n  (" << cd << "wsim serve --scenario "
      << run::shell_quote(file_from_workdir) << " -- " << command_text(*config) << ")\n";
  return run::kExitPass;
}

}  // namespace wsim::serve
