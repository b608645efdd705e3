// The verbs of the `wsim` CLI (docs/architecture.md §6) as library functions: cli/main.cc parses
// the command line (CLI11) into these structs; tests call them directly. Each returns the process
// exit code (verdict.h) and writes results to `out` (stdout) and problems to `err` (stderr).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/run/shell_quote.h"
#include "sim/search/fuzz_targets.h"
#include "sim/search/hunt.h"
#include "sim/search/scenario_flags.h"

namespace wsim::run {

struct RunCommand {
  ScenarioFlags flags;
  std::string out_dir = "wsim-out";
  bool out_dir_given = false;  // --out given: write a bundle for every failing verdict.
  // --bundle: write the bundle (trace, timeline, choices) whatever the verdict, a PASS too: the
  // trace of a scripted run to time the next scripted event against.
  bool bundle_always = false;
  bool ignore_expect = false;  // Exit with the raw verdict.
  bool print_hash = false;     // Print "SEED FINGERPRINT" as the last line.
  // A failure is labelled "known: FILE#N" or "NEW" against this corpus (signature.h), when the
  // directory exists.
  std::string known_dir = "corpus/regressions";
};
int cmd_run(const RunCommand& command, std::ostream& out, std::ostream& err);

struct ReplayCommand {
  std::string path;  // A bundle directory or a scenario file.
  std::string out_dir = "wsim-out";
  bool ignore_expect = false;
  std::uint64_t events_max = kDefaultEventsMax;
};
int cmd_replay(const ReplayCommand& command, std::ostream& out, std::ostream& err);

struct HuntCommand {
  ScenarioFlags flags;  // Nothing selected: every registered system at its latest versions.
  std::optional<DurationMs> time_ms;  // --time (wall clock, through `clock`)
  std::optional<std::uint64_t> runs;  // --runs
  int jobs = 1;
  std::uint64_t seed_start = 0;
  std::string out_dir = "wsim-out";
  bool keep_going = false;
  bool guided = false;  // --guided: probe-guided swarm (hunt_guide.h).
  // --verbose: every finding's whole re-run, signature and the probe table. Without it a hunt
  // that goes past known bugs prints known findings as one line each and the probes in one.
  bool verbose = false;
  // --until-label (with --bug): go past the known bugs (as --known, default label_dir) and stop
  // only at a failure labelled with the hunted bug (corpus_bugs.h labels_naming_bug).
  bool until_label = false;
  // --known DIR: go past the known bugs of DIR (signature.h), report them in a table and fail
  // only for NEW findings. Empty: findings are only labelled, against label_dir when it exists.
  // A hunt with nothing selected (the README's main job) uses label_dir as --known.
  std::string known_dir;
  std::string label_dir = "corpus/regressions";
  // Makes a clock for a budget of `budget_ms` wall-clock milliseconds (null: none), started now.
  std::function<HuntClock(std::optional<DurationMs> budget_ms)> make_clock;
  bool progress_tty = false;
  Shard shard;               // --shard I/N (hunt.h): this hunt's part of the run indices.
  std::string summary_path;  // --summary FILE.json (hunt_summary.h); empty: none.
  std::string junit_path;    // --junit FILE.xml (hunt_junit.h); empty: none.
  // --amplifiers swarm | production (amplifiers.h): draw the amplifiers the scenario leaves at
  // production (and the command line does not set), or draw none.
  std::string amplifiers = "swarm";
  // An external reconciler's hunt (`wsim hunt --scenario EXT -- COMMAND`, cli/commands/hunt.cc):
  // `prepare_scenario` (may be empty) edits the loaded scenario before the hunt (records the
  // COMMAND); record_in_workers and repro_suffix go to HuntOptions; a non-empty repro_command
  // replaces the `scripts/wsim run ...` of the repro lines.
  std::function<void(proto::Scenario&)> prepare_scenario;
  bool record_in_workers = false;
  std::string repro_command;
  std::string repro_suffix;
};
inline constexpr DurationMs kDefaultHuntTimeMs = 20 * kSecondMs;
// Implemented in hunt_command.cc.
int cmd_hunt(const HuntCommand& command, std::ostream& out, std::ostream& err);

// `wsim merge SUMMARY...` (hunt_merge.h): one findings table and one probe-coverage table from
// shard summaries; exits as `wsim hunt` would for the whole.
struct MergeCommand {
  std::vector<std::string> summaries;
  std::string summary_path;  // --summary FILE.json: also write the merged summary.
  std::string junit_path;    // --junit FILE.xml
};
int cmd_merge(const MergeCommand& command, std::ostream& out, std::ostream& err);

// Systems, version axes, invariants, scripted actions, fault points, probes.
int cmd_list(std::ostream& out, std::ostream& err);

struct FingerprintCommand {
  ScenarioFlags flags;
  std::string seeds = "0..199";  // --seeds A..B
};
// One "SEED FINGERPRINT" line per seed (scripts/check-determinism compares builds with it).
int cmd_fingerprint(const FingerprintCommand& command, std::ostream& out, std::ostream& err);

// `wsim list --fuzz-targets`: one line per target, "NAME KIND GATE MAX_LEN SYSTEM BUGS" (KIND
// canary or guard; GATE gate or batch: in_ci_gate; BUGS the canary's invariant ids joined by ",",
// "-" for a guard), in name order. fuzz/CMakeLists.txt builds one binary
// per line, scripts/fuzz, .ci/run, scripts/bench-find and scripts/check-clusterfuzzlite read it.
int cmd_list_fuzz_targets(std::ostream& out);

// `wsim replay --fuzz-target NAME FILE`: runs the raw libFuzzer input FILE (a crash-<sha1>, or any
// corpus file) through target NAME with recording and trace on (a guard going past the known
// bugs of `known_dir`, as the target did), prints the run, and writes a failure bundle for any
// violation (also for known ones) into command.out_dir. The bundle's
// choices.bin is the run's choice record, so `wsim replay BUNDLE` and `wsim shrink BUNDLE` work
// on it like on any hunted failure. Returns the verdict's exit code.
int cmd_replay_fuzz_input(const std::string& target_name, const ReplayCommand& command,
                          std::ostream& out, std::ostream& err,
                          const std::string& known_dir = "corpus/regressions");

// `wsim fuzz-seeds --fuzz-target NAME --seeds A..B --out DIR` (hidden): the target's scenario run
// from each seed; the runs that PASS (so a canary must still find its bug by mutation) are
// written as fuzzer inputs DIR/seed-<n>. corpus/fuzz/<target>/ starts from these.
struct FuzzSeedsCommand {
  std::string target;
  std::string seeds = "0..19";
  std::string out_dir;
  std::size_t max_bytes = 4096;
};
int cmd_fuzz_seeds(const FuzzSeedsCommand& command, std::ostream& out, std::ostream& err);

// `wsim explain BUNDLE`: the story of a failure (sim/report/explain.h), labelled against the
// corpus, with the timeline on --html.
struct ExplainCommand {
  std::string bundle;
  std::string html;                              // --html FILE
  bool verbose = false;                          // --verbose
  bool original = false;                         // --original: ignore BUNDLE-shrunk
  std::string known_dir = "corpus/regressions";  // --known: label known/NEW (signature.h)
};
int cmd_explain(const ExplainCommand& command, std::ostream& out, std::ostream& err);

// `wsim report BUNDLE`: an issue-ready Markdown report of a finding (sim/report/issue_report.h).
struct ReportCommand {
  std::string bundle;
  std::string out;                               // --out FILE; empty = stdout
  bool original = false;                         // --original: ignore BUNDLE-shrunk
  std::string known_dir = "corpus/regressions";  // --known: labels and upstream evidence
};
int cmd_report(const ReportCommand& command, std::ostream& out, std::ostream& err);

}  // namespace wsim::run
