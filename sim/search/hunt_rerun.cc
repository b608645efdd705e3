// Re-running a hunt's findings (hunt_rerun.h): each first seed again with recording, to label
// it, describe it, check its realism and write its bundle; nondeterminism when it does not fail
// the same way again.
#include "sim/search/hunt_rerun.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/assert.h"
#include "sim/report/bundle_write.h"
#include "sim/report/recorded_run.h"
#include "sim/run/amplifiers.h"
#include "sim/run/bundle.h"
#include "sim/search/hunt_worker.h"
#include "sim/triage/labelled_realism.h"

namespace wsim::run {

namespace {

// The masked (gone-past) violation of the re-run that `finding` is about: the first with its
// invariant and, when the workers labelled it (an unmasked hunt), with the same label — a run
// can go past one invariant on two objects carrying different known bugs.
const MaskedViolation* matching_masked(const Finding& finding, const RunResult& rerun) {
  WSIM_ASSERT(!finding.invariant.empty());
  for (const MaskedViolation& masked : rerun.masked) {
    if (masked.violation.invariant_id != finding.invariant) continue;
    if (finding.labelled && masked.known != finding.known) continue;
    return &masked;
  }
  return nullptr;
}

// The label and signature of `finding` from its re-run. In a labels-only hunt the label comes
// from here: the workers ran without a trace.
void label_finding(Finding& finding, const RunResult& rerun, const HuntOptions& options) {
  if (options.known == nullptr) return;
  if (const MaskedViolation* masked = matching_masked(finding, rerun)) {
    finding.labelled = true;
    finding.known = masked->known;
    finding.signature = masked->signature.text();
    WSIM_ASSERT(!finding.signature.empty());
    return;
  }
  if (!rerun.violation || rerun.violation->invariant_id != finding.invariant) return;
  WSIM_ASSERT(rerun.signature.has_value());
  finding.labelled = true;
  finding.signature = rerun.signature->text();
  // The re-run had the known list: execute_run matched its signature (consequences included).
  finding.known = rerun.known;
}

RunResult rerun_with_recording(const HuntOptions& options, const proto::Scenario& scenario,
                               std::ostream* log) {
  WSIM_ASSERT(options.system != nullptr);
  if (options.unmasked) WSIM_ASSERT(options.known != nullptr);  // As hunt() requires.
  RunOptions run_options;
  run_options.record_choices = true;
  run_options.keep_trace = true;
  run_options.log = log;
  run_options.events_max = options.events_max;
  run_options.known = options.known;
  run_options.go_past_known = options.unmasked;
  return execute_run(*options.system, scenario, run_options);
}

// Did the re-run find `finding` again (same verdict, invariant and label)?
bool found_again(const Finding& finding, const RunResult& rerun, bool unmasked) {
  WSIM_ASSERT(finding.verdict != Verdict::kPass);  // A finding is a failure.
  const std::string label =
      finding.labelled ? (finding.known.empty() ? "NEW" : finding.known) : std::string("-");
  for (const RunFinding& again : run_findings(rerun, unmasked)) {
    if (again.verdict == finding.verdict && again.invariant == finding.invariant &&
        again.known == label) {
      return true;
    }
  }
  return false;
}

void mark_nondeterministic(Finding& finding, const RunResult& rerun, std::ostream* log) {
  WSIM_ASSERT(finding.verdict != Verdict::kNondeterminism);  // Marked once.
  const std::string rerun_kind = rerun.violation ? rerun.violation->invariant_id : "";
  if (log) {
    *log << "NONDETERMINISM: seed " << finding.seed << " gave " << verdict_name(finding.verdict)
         << " " << finding.invariant << " while hunting, but " << verdict_name(rerun.verdict) << " "
         << rerun_kind << " when re-run with recording\n";
  }
  finding.verdict = Verdict::kNondeterminism;
  finding.message = "the re-run with recording gave a different verdict";
}

// The object and message of the violation the finding is about (a masked one for a known
// safety finding that the run went past). Call after label_finding.
void describe_finding(Finding& finding, const RunResult& rerun) {
  WSIM_ASSERT(finding.verdict != Verdict::kPass);
  if (!rerun.violation) {
    finding.message = rerun.harness_error;
    return;
  }
  finding.object = rerun.violation->object;
  finding.message = rerun.violation->message;
  if (finding.verdict != Verdict::kSafety) return;
  if (const MaskedViolation* masked = matching_masked(finding, rerun)) {
    finding.object = masked->violation.object;
    finding.message = masked->violation.message;
  }
}

void write_finding_bundle(const HuntOptions& options, Finding& finding, proto::Scenario scenario,
                          const RunResult& rerun) {
  // The bundle replays exactly only if it goes past the same known violations.
  for (const MaskedViolation& masked : rerun.masked) {
    proto::KnownViolation* entry = scenario.add_go_past();
    entry->set_invariant(masked.violation.invariant_id);
    entry->set_object(masked.violation.object);
    entry->set_known(masked.known);
  }
  WSIM_ASSERT_GE(static_cast<std::size_t>(scenario.go_past_size()), rerun.masked.size());
  if (!options.write_bundles) return;
  std::string path;
  std::string error;
  if (write_bundle(options.out_dir, *options.system, scenario, rerun, path, error)) {
    finding.bundle = path;
  } else if (options.log) {
    *options.log << "cannot write the bundle: " << error << "\n";
  }
}

// A run of `scenario` without recording or trace (unless going past known bugs needs labels),
// for the realism check.
RunResult quiet_run(const HuntOptions& options, const proto::Scenario& scenario) {
  RunOptions run_options;
  run_options.events_max = options.events_max;
  if (options.unmasked) {
    WSIM_ASSERT(options.known != nullptr);
    return execute_run_with_known(*options.system, scenario, run_options, *options.known);
  }
  return execute_run(*options.system, scenario, run_options);
}

// issue #30 item 3: realistic when a run at production values failed the same way; otherwise
// the re-runs of realism.h. Call before label_finding (found_again compares the workers' label).
// Other seeds are searched only for a finding the workers labelled with a known bug: then
// found_again tells that bug from others of the same invariant.
Realism finding_realism(const HuntOptions& options, const Finding& finding,
                        const std::map<std::string, std::uint64_t>& bug_failed_without,
                        const proto::Scenario& scenario) {
  if (const auto seed = own_production_seed(finding)) return realistic_at_production(*seed);
  const Reproduces same = [&](const proto::Scenario& candidate) {
    return found_again(finding, quiet_run(options, candidate), options.unmasked);
  };
  const bool names_a_bug = options.unmasked && finding.labelled && !finding.known.empty();
  if (!names_a_bug) return check_realism(scenario, *options.system, same);
  WSIM_ASSERT(options.known != nullptr);  // unmasked hunts have the known list.
  // The row is one known bug: a corpus file that reproduces it at production values makes it
  // realistic; else other seeds count when they show the same bug id, through any of its files,
  // and the hunt's other failing runs of that bug are evidence too (realism.h narrowed_realism).
  const std::string bug = bug_id_of(*options.known, finding.known);
  const std::string exemplar = production_exemplar(*options.system, *options.known, bug);
  if (!exemplar.empty()) return realistic_by_exemplar(exemplar);
  const Reproduces same_bug = [&](const proto::Scenario& candidate) {
    for (const RunFinding& again : run_findings(quiet_run(options, candidate), true)) {
      if (again.verdict == finding.verdict && again.invariant == finding.invariant &&
          again.known != "NEW" && again.known != "-" &&
          bug_id_of(*options.known, again.known) == bug) {
        return true;
      }
    }
    return false;
  };
  return narrowed_realism(check_realism(scenario, *options.system, same, same_bug), *options.system,
                          bug_failed_without);
}

void print_repro(const HuntOptions& options, const Finding& finding) {
  std::ostream* log = options.log;
  if (!log) return;
  WSIM_ASSERT(!options.repro_command.empty());  // The line a reader copies.
  if (!finding.bundle.empty()) *log << "bundle " << finding.bundle << "\n";
  *log << "reproduce with:\n";
  if (!finding.bundle.empty()) {
    *log << "  scripts/wsim replay " << finding.bundle << options.repro_suffix << "\n";
  }
  *log << "  " << options.repro_command << " --seed " << finding.seed;
  if (finding.swarm_seed) *log << " --set swarm_seed=" << *finding.swarm_seed;
  *log << finding.amplifier_flags << options.repro_suffix << "\n";
  if (finding.realism) *log << "realism: " << realism_text(*finding.realism) << "\n";
}

// The last re-run, kept for the next finding of the same run: findings are sorted by seed, and
// one run can hold several (the known violations it went past, then its verdict). Its bundle is
// the same directory for each (bundle_name), so it is written once. A 1,000-workspace run re-ran
// once per finding and rewrote a 2.5 GB bundle each time (docs/performance.md §14.0).
struct LastRerun {
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> swarm_seed;
  std::optional<RunResult> result;
  std::string bundle;  // Written from `result`; empty when not (yet) written.
  // The re-run's own log (banner, swarm, verdict) when options.verbose is off: printed with the
  // first finding of the run that is not labelled known, if any.
  std::string log_text;
  bool log_printed = false;
};

const RunResult& rerun_for(const HuntOptions& options, const proto::Scenario& scenario,
                           LastRerun& last) {
  const std::optional<std::uint64_t> swarm_seed =
      scenario.has_swarm_seed() ? std::optional<std::uint64_t>(scenario.swarm_seed())
                                : std::nullopt;
  if (!last.result || last.seed != scenario.seed() || last.swarm_seed != swarm_seed) {
    last.result.reset();  // Freed before the next re-run is made.
    std::ostringstream captured;
    std::ostream* log = options.verbose ? options.log : (options.log ? &captured : nullptr);
    last.result.emplace(rerun_with_recording(options, scenario, log));
    last.log_text = captured.str();
    last.log_printed = options.verbose;
    last.seed = scenario.seed();
    last.swarm_seed = swarm_seed;
    last.bundle.clear();
  }
  WSIM_ASSERT_EQ(last.result->seed, scenario.seed());
  return *last.result;
}

// HuntOptions::record_in_workers: the bundle the worker wrote for `scenario`'s run, read back
// as recorded into `last` (false when there is none: the worker could not write it).
bool read_worker_bundle(const HuntOptions& options, const Finding& finding,
                        const proto::Scenario& scenario, LastRerun& last) {
  WSIM_ASSERT(options.record_in_workers);  // Only then did a worker write it.
  if (last.result && last.seed == scenario.seed() && !last.bundle.empty()) return true;
  RunResult named;
  named.seed = scenario.seed();
  named.verdict = finding.verdict;
  if (finding.verdict == Verdict::kSafety || finding.verdict == Verdict::kLiveness) {
    named.violation = Violation{finding.invariant, "", "", {}};
  }
  const std::string path = options.out_dir + "/" + bundle_name(*options.system, scenario, named);
  Bundle bundle;
  RunResult recorded;
  std::string error;
  if (!read_bundle(path, bundle, error) ||
      !read_recorded_run(bundle, *options.system, recorded, error)) {
    if (options.log) *options.log << "cannot read the worker's bundle: " << error << "\n";
    return false;
  }
  last.result.emplace(std::move(recorded));
  last.seed = scenario.seed();
  last.swarm_seed.reset();
  last.bundle = path;
  last.log_text.clear();
  last.log_printed = true;
  return true;
}

// A finding of a hunt with record_in_workers: completed from the worker's bundle, not re-run.
void recorded_finding(const HuntOptions& options, Finding& finding, LastRerun& last) {
  WSIM_ASSERT(options.record_in_workers);
  std::ostream* log = options.log;
  const proto::Scenario scenario = hunt_run_scenario(options, finding.seed, finding.swarm_seed);
  if (!read_worker_bundle(options, finding, scenario, last)) {
    finding.message = "no bundle: the worker could not write it";
    return;
  }
  const RunResult& recorded = *last.result;
  finding.amplifier_flags = amplifier_flags(scenario, *options.system, options.amplifiers);
  if (const auto seed = own_production_seed(finding))
    finding.realism = realistic_at_production(*seed);
  label_finding(finding, recorded, options);
  describe_finding(finding, recorded);
  finding.bundle = last.bundle;
  if (!options.verbose && finding.labelled && !finding.known.empty()) return;
  if (log) {
    *log << verdict_name(finding.verdict) << " " << finding.invariant << " at seed " << finding.seed
         << " on " << finding.object << ": " << finding.message << "\n";
    if (!finding.signature.empty()) *log << "signature " << finding.signature << "\n";
  }
  print_repro(options, finding);
}

void rerun_finding(const HuntOptions& options, Finding& finding,
                   const std::map<std::string, std::uint64_t>& bug_failed_without,
                   LastRerun& last) {
  std::ostream* log = options.log;
  const bool brief = !options.verbose && finding.labelled && !finding.known.empty();
  if (log && !brief) *log << "\n";
  if (finding.invariant == "crash") {
    if (log) {
      *log << "HARNESS CRASH at seed " << finding.seed << ": " << finding.message << "\n"
           << "reproduce with:\n  " << options.repro_command << " --seed " << finding.seed << "\n";
    }
    return;
  }
  if (options.record_in_workers) {
    recorded_finding(options, finding, last);
    return;
  }
  const proto::Scenario scenario = hunt_run_scenario(options, finding.seed, finding.swarm_seed);
  const RunResult& rerun = rerun_for(options, scenario, last);
  if (!found_again(finding, rerun, options.unmasked)) {
    mark_nondeterministic(finding, rerun, log);
    return;
  }
  WSIM_ASSERT_EQ(rerun.seed, finding.seed);
  finding.amplifier_flags = amplifier_flags(scenario, *options.system, options.amplifiers);
  finding.realism = finding_realism(options, finding, bug_failed_without, scenario);
  // The bundle's verdict.json carries the verdict of its first finding.
  if (last.bundle.empty()) last.result->realism = finding.realism;
  label_finding(finding, rerun, options);
  describe_finding(finding, rerun);
  if (last.bundle.empty()) {
    write_finding_bundle(options, finding, scenario, rerun);
    last.bundle = finding.bundle;
  } else {
    finding.bundle = last.bundle;  // The same run's bundle, already written.
  }
  if (brief) return;  // Its row in the findings table says it all (label, seed, bundle).
  if (log && !last.log_printed) {
    *log << last.log_text;
    last.log_printed = true;
  }
  print_repro(options, finding);
}

}  // namespace

// Per finding, the amplifiers seen at production in a failing run of its bug (Finding::
// failed_without of every row of the same bug id: a bug of several corpus files, as the R3 tie
// family, fails under several labels), for a row labelled with a known bug; empty for others.
std::vector<std::map<std::string, std::uint64_t>> failed_without_by_bug(const HuntOptions& options,
                                                                        const HuntResult& result) {
  std::vector<std::map<std::string, std::uint64_t>> evidence(result.findings.size());
  if (!options.unmasked) return evidence;
  WSIM_ASSERT(options.known != nullptr);
  std::map<std::string, std::map<std::string, std::uint64_t>> by_bug;
  std::vector<std::string> bug_of(result.findings.size());
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    const Finding& finding = result.findings[i];
    if (!finding.labelled || finding.known.empty()) continue;
    bug_of[i] = bug_id_of(*options.known, finding.known);
    merge_failed_without(by_bug[bug_of[i]], finding.failed_without);
  }
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    if (!bug_of[i].empty()) evidence[i] = by_bug[bug_of[i]];
  }
  WSIM_ASSERT_EQ(evidence.size(), result.findings.size());  // One entry per finding.
  return evidence;
}

void rerun_findings(const HuntOptions& options, HuntResult& result) {
  WSIM_ASSERT(options.system != nullptr);
  const std::vector<std::map<std::string, std::uint64_t>> evidence =
      failed_without_by_bug(options, result);
  WSIM_ASSERT_EQ(evidence.size(), result.findings.size());
  LastRerun last;
  for (std::size_t i = 0; i < result.findings.size() && i < kRerunFindingsMax; ++i) {
    rerun_finding(options, result.findings[i], evidence[i], last);
  }
}

}  // namespace wsim::run
