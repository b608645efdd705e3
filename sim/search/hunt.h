// Hunting: a swarm of runs over consecutive seeds (docs/architecture.md §6), fast and in parallel.
//
// --jobs N forks N worker PROCESSES (no threads anywhere: docs/architecture.md §2). Worker j runs
// the seeds seed_start + j, + j + N, + j + 2N, ... with recording and trace storage off, and writes
// one line per run to its pipe; the parent aggregates, prints progress on stderr, and stops every
// worker (SIGTERM, honoured between runs) at the first failure — or keeps going. A worker that
// dies (an assertion: a harness bug) is reported with the seed it was running. Each failure is
// then re-run in the parent with recording on, which must give the same verdict, and written as
// a bundle.
//
// Known bugs (issue #12; signature.h): with HuntOptions::known every finding is labelled with the
// known bug whose signature it carries, or NEW. With unmasked also, each run goes past known
// safety violations (execute_run_with_known), a finding is one (verdict, invariant, label) of
// any run, the hunt stops only at a NEW finding, and exit_code() counts only NEW ones.
//
// Sharding (`wsim hunt --shard I/N`): the run indices 0, 1, 2, ... (seed = seed_start + index)
// are dealt round-robin, index i to shard i mod N. Shard I runs only its indices, in ascending
// order, spread over its own workers; a run budget R bounds the indices (i < R), not each shard's
// count, so the N shards of `--runs R` run exactly the indices [0, R) of the unsharded hunt. With
// a time budget each shard runs a prefix of its own index sequence until its deadline; the
// result says how far that prefix is complete (HuntResult::complete_below), and the merge of N
// shards is complete below the smallest of theirs (hunt_merge.h).
//
// Parts (one idea per file): hunt_guide.h (probe-guided swarm), hunt_worker.h (the worker process
// and its line format), hunt_pool.h (forking, reading, stopping workers), hunt_tally.h (findings
// and probes), hunt_progress.h (the progress line), hunt_rerun.h (re-runs with recording, bundles).
//
// The hunt never reads a wall clock itself: the caller passes the time budget and the progress
// rate as callbacks (cli/wallclock.h), so sim/ stays free of clocks (scripts/tidy).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/probe.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/driver.h"
#include "sim/run/realism.h"
#include "sim/run/signature.h"
#include "sim/run/system.h"
#include "sim/run/verdict.h"

namespace wsim::run {

struct HuntClock {
  std::function<bool()> deadline_reached;   // Null: no time budget.
  std::function<double()> elapsed_seconds;  // Null: no rates, no timed progress lines.
};

// Shard `index` of `count` (0 <= index < count): the run indices i with i mod count == index.
struct Shard {
  std::uint64_t index = 0;
  std::uint64_t count = 1;
};

// The run index of the `local`-th run of `shard` (its seed is seed_start + the index).
inline std::uint64_t shard_run_index(const Shard& shard, std::uint64_t local) {
  return shard.index + shard.count * local;
}

struct HuntOptions {
  const System* system = nullptr;
  proto::Scenario scenario;  // Validated; its seed is replaced by each run's.
  std::uint64_t seed_start = 0;
  std::optional<std::uint64_t> runs;  // Run budget: run indices below it (all shards together).
  Shard shard;                        // The part of the run indices this hunt runs.
  int jobs = 1;
  bool keep_going = false;  // Record every failure (one bundle per invariant) and go on.
  // Non-empty: stop at the first failure of this invariant only (others are recorded, one bundle
  // per invariant, and the hunt goes on): hunting one known bug (`wsim hunt --bug`).
  std::string until_invariant;
  // Non-empty (with until_invariant, in an unmasked hunt): stop only at a failure of that
  // invariant labelled with one of these known bugs (KnownBug::name): `--bug FILE#N
  // --until-label`, the time to find the bug itself rather than its invariant.
  std::vector<std::string> until_labels;
  std::string out_dir = "wsim-out";
  bool write_bundles = true;
  HuntClock clock;
  std::ostream* progress = nullptr;  // Progress lines (stderr).
  bool progress_tty = false;         // Rewrite one progress line in place.
  std::ostream* log = nullptr;       // Failure re-runs, bundles, repro commands (stdout).
  // With a log: print the whole re-run (banner, swarm, verdict, repro) of every finding. Without
  // it, a finding labelled known gets one line (label, seed, bundle) and NEW ones the whole
  // re-run: the README's main job stays short when nothing is NEW.
  bool verbose = true;
  std::uint64_t events_max = kDefaultEventsMax;
  // How to re-run one seed of this hunt from the command line, without --seed: e.g.
  // "scripts/wsim run --system toy --version buggy". The hunt appends " --seed N".
  std::string repro_command;
  // Known bugs for labels (not owned; null: no labels), and whether runs go past them.
  const std::vector<KnownBug>* known = nullptr;
  bool unmasked = false;
  // Probe-guided swarm (hunt_guide.h): every second run of a worker reuses the swarm seed of a
  // run that reached a rare probe. Ignored when the scenario pins swarm_seed.
  bool guided = false;
  // The amplifiers the swarm draws (amplifiers.h drawable_amplifiers; system.h Amplifier): each
  // run sets each of them to production or to an amplified value, drawn from its configuration
  // seed, and written into its scenario. Empty: every run keeps the scenario's values.
  std::vector<std::string> amplifiers;
  // Runs whose re-run may differ (the external system: a process outside wsim is the
  // reconciler, serve/README.md): each worker runs with recording and trace on and writes the
  // bundle of a failing run itself (into out_dir, under bundle_name); the parent reads that
  // bundle back as recorded (sim/report/recorded_run.h) instead of re-running the seed, and
  // checks no realism by re-runs (a finding at production values is realistic as usual).
  bool record_in_workers = false;
  // Appended to the repro lines (the replay of the bundle and the run of the seed): " -- COMMAND"
  // for an external hunt.
  std::string repro_suffix;
};

struct Finding {
  std::uint64_t seed = 0;  // The smallest failing seed of this kind.
  // The swarm seed of that run (guided hunts, proto::Scenario.swarm_seed), when not `seed`.
  std::optional<std::uint64_t> swarm_seed;
  Verdict verdict = Verdict::kPass;
  std::string invariant;  // Or "crash" for a worker that died.
  std::string object;
  std::string message;
  std::string bundle;       // Bundle directory; empty if none was written.
  std::uint64_t count = 0;  // Failing runs of this kind.
  // With HuntOptions::known: the KnownBug::name this finding carries, or empty (NEW).
  bool labelled = false;
  std::string known;
  std::string signature;  // Signature::text() of the re-run, when it has one.
  // Failing runs of this kind that amplified nothing (every amplifier at production), and the
  // smallest seed among them: evidence that the finding is realistic without a re-run.
  std::uint64_t production_runs = 0;
  std::optional<std::uint64_t> production_seed;
  // Per amplifier of the system, the smallest failing seed of this kind that had it at its
  // production value (whatever the others had): evidence that the bug does not need it
  // (realism.h narrowed_realism), for a row labelled with one known bug.
  std::map<std::string, std::uint64_t> failed_without;
  // The realism verdict (realism.h), once checked (re-run findings only); absent: not checked.
  std::optional<Realism> realism;
  // " --set NAME=VALUE" of the amplifiers the hunt drew amplified for `seed` (a repro command
  // needs them after --seed); empty when none.
  std::string amplifier_flags;
};

struct HuntResult {
  std::uint64_t runs = 0;
  std::uint64_t failures = 0;
  double seconds = 0;
  bool deadline_reached = false;
  bool interrupted = false;  // Stopped by Ctrl-C (SIGINT).
  // Every run index i < complete_below of this hunt's shard was run (its seed is seed_start + i).
  std::uint64_t complete_below = 0;
  // One per (verdict, invariant, label), in finding_order: by smallest seed, then verdict,
  // invariant and label (so a hunt's findings do not depend on how the workers raced).
  std::vector<Finding> findings;
  // Hits summed over every run, by name; every declared probe is listed, reached or not.
  std::vector<Probe> probes;

  bool unmasked = false;  // HuntOptions::unmasked.
  // 0 when nothing was found (with unmasked: nothing NEW); else the exit code of the first
  // (NEW) finding.
  int exit_code() const;
};

HuntResult hunt(const HuntOptions& options);

// The scenario of one run of a hunt: options.scenario with `seed`, `swarm_seed` (when set) and
// the amplifiers drawn for it (HuntOptions::amplifiers).
proto::Scenario hunt_run_scenario(const HuntOptions& options, std::uint64_t seed,
                                  std::optional<std::uint64_t> swarm_seed);

// The production-values seed that is evidence for this finding's own bug, if any. A row labelled
// with a known bug is that bug, so any of its production runs counts. A NEW or unlabelled row
// groups every failure of one invariant, possibly several bugs: only its own seed (the one its
// bundle, repro and realism check use) counts, else another bug's production run would call it
// realistic (a NEW S9 row said realistic on another seed while its own run needed the breaker).
std::optional<std::uint64_t> own_production_seed(const Finding& finding);

// Adds `more` to `into` (Finding::failed_without), each amplifier keeping its smallest seed.
void merge_failed_without(std::map<std::string, std::uint64_t>& into,
                          const std::map<std::string, std::uint64_t>& more);

// Realistic findings first (0), then those not checked (1), then those that need an amplifier
// (2); order_by_realism keeps the order within each group (the table of `wsim hunt`, issue #30).
int realism_rank(const Finding& finding);
void order_by_realism(std::vector<Finding>& findings);

// The order of HuntResult::findings (and of a merge's): smallest seed first, then verdict,
// invariant and label.
bool finding_order(const Finding& a, const Finding& b);

// "probes: N of M reached" and one line per probe (reached ones with their hits, then never).
// brief: one line, the count and the names of the probes never reached.
std::string render_probe_coverage(const std::vector<Probe>& probes, bool brief = false);

}  // namespace wsim::run
