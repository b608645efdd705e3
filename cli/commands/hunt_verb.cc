// `wsim hunt` (commands.h): every selected version tuple hunted in turn (hunt.h), the text
// report (hunt_report.h), and the machine-readable summary and JUnit report when asked.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/commands/commands.h"
#include "sim/core/assert.h"
#include "sim/run/amplifiers.h"
#include "sim/run/duration.h"
#include "sim/run/signature.h"
#include "sim/search/hunt_junit.h"
#include "sim/search/hunt_report.h"
#include "sim/search/hunt_summary.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

namespace {

// Usage errors of the command's numbers; empty when it is fine.
std::string check_hunt_command(const HuntCommand& command) {
  if (command.jobs < 1 || command.jobs > 256) return "--jobs must be between 1 and 256";
  if (command.runs && *command.runs == 0) return "--runs must be at least 1";
  if (command.shard.count == 0 || command.shard.index >= command.shard.count) {
    return "--shard I/N needs 0 <= I < N";
  }
  if (command.until_label && command.flags.bug.empty()) return "--until-label needs --bug FILE#N";
  return "";
}

// What to hunt: the selected scenario, or every system at its latest versions.
std::vector<ScenarioFlags> hunt_targets(const HuntCommand& command) {
  if (command.flags.selects_something()) return {command.flags};
  std::vector<ScenarioFlags> targets;
  for (const System* system : systems()) {
    if (!system->executable()) continue;  // The external system without its COMMAND.
    ScenarioFlags flags = command.flags;
    flags.system = system->name();
    targets.push_back(flags);
  }
  return targets;
}

// The corpus a hunt compares findings with, and whether it goes past its bugs (--known; the
// main job with nothing selected goes past the corpus's known bugs).
struct HuntCorpus {
  std::string dir;
  bool unmasked = false;
};

HuntCorpus hunt_corpus(const HuntCommand& command) {
  std::string known_dir = command.known_dir;
  std::error_code ec;
  if (known_dir.empty() && (command.until_label || !command.flags.selects_something()) &&
      std::filesystem::is_directory(command.label_dir, ec)) {
    known_dir = command.label_dir;
  }
  const bool unmasked = !known_dir.empty();
  return HuntCorpus{unmasked ? known_dir : command.label_dir, unmasked};
}

HuntOptions options_for(const HuntCommand& command, const LoadedScenario& loaded,
                        const ScenarioFlags& flags, std::optional<DurationMs> budget) {
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.seed_start = command.seed_start;
  options.runs = command.runs;
  options.shard = command.shard;
  options.jobs = command.jobs;
  options.keep_going = command.keep_going;
  options.guided = command.guided;
  options.until_invariant = loaded.hunted_invariant;
  options.out_dir = command.out_dir;
  if (command.make_clock) options.clock = command.make_clock(budget);
  options.progress_tty = command.progress_tty;
  options.events_max = flags.events_max;
  options.repro_command =
      command.repro_command.empty() ? repro_command(flags) : command.repro_command;
  options.record_in_workers = command.record_in_workers;
  options.repro_suffix = command.repro_suffix;
  if (command.amplifiers == "swarm") {
    // An amplifier set on the command line is pinned, even to its production value.
    std::vector<std::string> pinned;
    for (const auto& [key, flag] : loaded.overridden) pinned.push_back(key);
    options.amplifiers = drawable_amplifiers(loaded.scenario, *loaded.system, pinned);
  }
  return options;
}

void print_banner(std::ostream& out, const HuntCommand& command, const LoadedScenario& loaded,
                  const HuntOptions& options, std::optional<DurationMs> budget,
                  const std::string& corpus_dir) {
  const std::string config = describe_config(loaded.scenario, *loaded.system);
  out << "hunting " << loaded.system->name() << " (" << config << "), seeds from "
      << command.seed_start << ", " << command.jobs << (command.jobs == 1 ? " job" : " jobs");
  if (command.shard.count > 1) {
    out << ", shard " << command.shard.index << "/" << command.shard.count;
  }
  if (command.runs) out << ", " << *command.runs << " runs";
  if (command.guided) out << ", probe-guided swarm";
  if (!options.amplifiers.empty()) {
    out << ", amplifiers drawn:";
    for (const std::string& name : options.amplifiers) out << " " << name;
  } else if (!loaded.system->amplifiers().empty()) {
    out << ", amplifiers as set";
  }
  if (budget) out << ", " << format_duration_ms(*budget);
  const std::size_t known = options.known ? options.known->size() : 0;
  if (!options.until_labels.empty()) {
    out << ", stop at the first finding labelled " << options.until_labels.front();
    if (options.until_labels.size() > 1)
      out << " (or " << options.until_labels.size() - 1 << " more)";
    out << "\n";
    out.flush();
    return;
  }
  out << (command.keep_going ? ", keep going"
          : options.unmasked ? ", going past the " + std::to_string(known) + " known bugs of " +
                                   corpus_dir + ", stop at the first NEW"
                             : ", stop at the first failure")
      << "\n";
  out.flush();
}

void print_result(std::ostream& out, const std::string& system, const HuntResult& result,
                  bool verbose, const std::vector<KnownBug>* known) {
  out << "\n"
      << system << ": " << result.runs << " runs in "
      << format_duration_ms(static_cast<DurationMs>(result.seconds * 1000)) << " ("
      << hunt_rate(result) << " runs/s), " << result.failures
      << (result.failures == 1 ? " failing run" : " failing runs")
      << (result.interrupted ? " (interrupted)" : "") << "\n";
  print_findings(out, result, verbose, known);
  out << render_probe_coverage(result.probes, /*brief=*/!verbose);
}

// --until-label's verdict, one line (scripts/bench-strategies --until-label reads it).
void print_until_label(std::ostream& out, const HuntOptions& options, const HuntResult& result) {
  const auto is_hunted = [&](const Finding& finding) {
    return finding.invariant == options.until_invariant &&
           std::find(options.until_labels.begin(), options.until_labels.end(), finding.known) !=
               options.until_labels.end();
  };
  const auto it = std::find_if(result.findings.begin(), result.findings.end(), is_hunted);
  if (it == result.findings.end()) {
    out << "until-label: not found in " << result.runs << " runs\n";
  } else {
    out << "until-label: found " << it->known << " at seed " << it->seed << " after " << result.runs
        << " runs\n";
  }
}

// --until-label: the names under which the corpus knows the hunted bug (labels_naming_bug).
// False with an error when it knows it under none on these versions (its script no longer
// reproduces it, or its file says it is fixed here).
bool set_until_labels(const std::string& bug_spec, const std::vector<KnownBug>& known,
                      HuntOptions& options, std::string& error) {
  CorpusBug hunted;
  if (!parse_corpus_bug(bug_spec, hunted, error)) return false;
  options.until_labels = labels_naming_bug(hunted, known);
  if (options.until_labels.empty()) {
    error = "bug " + hunted.bug + " (" + bug_spec + ") is not among the known bugs of the corpus " +
            "on these versions, so no finding can carry its label";
    return false;
  }
  WSIM_ASSERT(options.unmasked);  // Known bugs were loaded, so the hunt goes past them.
  return true;
}

// Hunts one version tuple into `target`; false (with a message on `err`) on a usage error.
bool hunt_one(const HuntCommand& command, const ScenarioFlags& flags,
              std::optional<DurationMs> budget, const HuntCorpus& corpus, std::ostream& out,
              std::ostream& err, HuntTarget& target) {
  LoadedScenario loaded;
  std::string error;
  if (!build_scenario(flags, loaded, error)) {
    err << "wsim hunt: " << error << "\n";
    return false;
  }
  if (command.prepare_scenario) command.prepare_scenario(loaded.scenario);
  HuntOptions options = options_for(command, loaded, flags, budget);
  options.progress = &err;
  options.log = &out;
  std::vector<KnownBug> known;
  std::error_code ec;
  if (std::filesystem::is_directory(corpus.dir, ec)) {
    std::vector<std::string> not_reproduced;
    std::vector<KnownBug> all;
    if (!known_bugs(corpus.dir, loaded.system->name(), all, error, &not_reproduced)) {
      err << "wsim hunt: " << (corpus.unmasked ? "--known " : "labels: ") << error << "\n";
      return false;
    }
    for (const std::string& stale : not_reproduced) {
      // The code under test changed what a corpus script does: worth knowing before the hunt.
      out << "warning: corpus bug not reproduced, hunting without it: " << stale << "\n";
    }
    // A bug whose file expects PASS on the hunted versions is not there (fixed): not a label.
    known = applicable_known_bugs(all, loaded.scenario, *loaded.system);
    options.known = &known;
    options.unmasked = corpus.unmasked;
  }
  options.verbose = command.verbose || !options.unmasked;
  if (command.until_label && !set_until_labels(flags.bug, known, options, error)) {
    err << "wsim hunt: --until-label: " << error << "\n";
    return false;
  }
  print_banner(out, command, loaded, options, budget, corpus.dir);
  target.system = loaded.system->name();
  target.versions = describe_versions(loaded.scenario, *loaded.system);
  target.repro = options.repro_command;
  target.result = hunt(options);
  print_result(out, target.system, target.result, options.verbose, options.known);
  if (!options.until_labels.empty()) print_until_label(out, options, target.result);
  return true;
}

// --summary and --junit; false (with a message) when a file cannot be written.
bool write_reports(const HuntCommand& command, const HuntSummary& summary, std::ostream& err) {
  std::string error;
  if (!command.summary_path.empty() && !write_summary_file(command.summary_path, summary, error)) {
    err << "wsim hunt: --summary " << error << "\n";
    return false;
  }
  if (!command.junit_path.empty() && !write_junit_file(command.junit_path, summary, error)) {
    err << "wsim hunt: --junit " << error << "\n";
    return false;
  }
  return true;
}

}  // namespace

int cmd_hunt(const HuntCommand& command, std::ostream& out, std::ostream& err) {
  if (const std::string usage = check_hunt_command(command); !usage.empty()) {
    err << "wsim hunt: " << usage << "\n";
    return kExitUsage;
  }
  std::optional<DurationMs> budget = command.time_ms;
  if (!budget && !command.runs) budget = kDefaultHuntTimeMs;
  if (budget && !command.make_clock) {
    err << "wsim hunt: a time budget needs a clock; give --runs N\n";
    return kExitUsage;
  }
  const std::vector<ScenarioFlags> targets = hunt_targets(command);
  if (targets.empty()) {
    err << "wsim hunt: no systems are linked into this binary\n";
    return kExitUsage;
  }
  const HuntCorpus corpus = hunt_corpus(command);
  std::error_code ec;
  if (corpus.unmasked && !std::filesystem::is_directory(corpus.dir, ec)) {
    err << "wsim hunt: --known " << corpus.dir << ": not a directory\n";
    return kExitUsage;
  }
  HuntSummary summary;
  summary.shard = command.shard;
  summary.seed_start = command.seed_start;
  summary.runs_budget = command.runs;
  summary.time_budget_ms = budget;
  for (const ScenarioFlags& flags : targets) {
    HuntTarget target;
    if (!hunt_one(command, flags, budget, corpus, out, err, target)) return kExitUsage;
    const bool interrupted = target.result.interrupted;
    summary.targets.push_back(std::move(target));
    if (interrupted) break;  // Ctrl-C ends the whole hunt, not just this system's part.
  }
  if (summary.targets.size() > 1) print_hunt_table(out, summary.targets);
  if (!write_reports(command, summary, err)) return kExitUsage;
  return summary.exit_code();
}

}  // namespace wsim::run
