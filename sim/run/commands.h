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
#include "sim/run/hunt.h"
#include "sim/run/scenario.h"

namespace wsim::run {

// One config or scenario field set on the command line, e.g. {"agent", "A0a", "--agent A0a"} or
// {"toy.namespaces", "4", "--set toy.namespaces=4"}.
struct FieldOverride {
  std::string field;
  std::string value;
  std::string flag;  // As typed, for messages and repro commands.
};

// What selects and adjusts a scenario: shared by run, hunt and fingerprint.
struct ScenarioFlags {
  std::string scenario_file;                     // --scenario FILE
  std::string bug;                               // --bug FILE#N (sim/run/corpus_bugs.h)
  std::string system;                            // --system NAME
  std::vector<FieldOverride> overrides;          // version flags (--agent A0a) and --set f=v
  std::optional<std::uint64_t> seed;             // --seed N
  std::optional<DurationMs> fault_phase_ms;      // --time-limit D (virtual fault phase)
  std::optional<DurationMs> settle_ms;           // --settle D
  std::uint64_t events_max = kDefaultEventsMax;  // --max-events N

  bool selects_something() const {
    return !scenario_file.empty() || !bug.empty() || !system.empty() || !overrides.empty();
  }
};

// Loads (or builds) the scenario, applies the overrides and validates it.
bool build_scenario(const ScenarioFlags& flags, LoadedScenario& loaded, std::string& error);
// "scripts/wsim run --scenario FILE --agent A0a" (without --seed): how to re-run from the flags.
std::string repro_command(const ScenarioFlags& flags);
// Quotes `text` for a POSIX shell when it needs it.
std::string shell_quote(const std::string& text);

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

}  // namespace wsim::run
