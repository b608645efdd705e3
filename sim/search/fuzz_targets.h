// The libFuzzer targets of fuzz/ as data (docs/architecture.md §7), shared by the targets
// themselves and by `wsim replay --fuzz-target NAME FILE`, so a crash file replays into a full
// failure bundle with exactly the scenario the target ran.
//
// The targets themselves are declared by their systems (System::fuzz_targets(), sim/run/system.h).
// A target's input bytes are the beginning of the choice stream of one run
// (ChoiceSource::from_bytes): the first bytes draw the fault swarm (stream "swarm" is the first one
// a run uses), the rest the workload, latencies and faults; past the end the choices come from a
// xoshiro256** seeded by a hash of the input (BytesTail::kRandom). Coverage guidance therefore
// steers swarm configuration and the early interleavings directly, and every input, even a short
// one, is a whole eventful run. (Until 2026-11-22 the tail was 0, "nothing more happens": from an
// empty corpus libFuzzer's inputs grew too slowly for that — a gitpod run draws 3–5 KB of
// choices — and gitpod_canary found nothing in 2 × 60 s while the seed hunt needs ~2 runs.)
//
//   canary  a historical buggy version: the target MUST find its bug within the CI budget
//           (scripts/fuzz pr fails if it does not: the pipeline is broken);
//   guard   the current versions: any violation is a new bug, except one whose signature matches
//           a known bug of the regression corpus (signature.h; docs/signatures.md). A run goes
//           past known safety violations (execute_run_with_known), so a NEW one later in the
//           same run still fails the target. (Until issue #12 each guard kept a hand-written
//           list of invariant ids, which also hid any new bug with the same id.)
//
// Phases are shortened (and the gitlab full-sync interval with them) so one execution stays cheap.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/run/system.h"

namespace wsim::run {

// The short phases the targets of `system` run with (set_field path, value): the fault phase,
// the settle and, for gitlab, the full-sync interval (System::fast_phase_fields()). Empty for an
// unknown system.
std::vector<std::pair<std::string, std::string>> fast_phase_fields(const std::string& system);

// Every target of every registered system (System::fuzz_targets()), in name order.
const std::vector<FuzzTarget>& fuzz_targets();
const FuzzTarget* find_fuzz_target(const std::string& name);

// The validated scenario of a target (seed 0, the system registered beforehand).
bool fuzz_target_scenario(const FuzzTarget& target, LoadedScenario& loaded, std::string& error);

// Options for one fuzzing execution of `bytes`: random tail, no recording, no trace, a small
// event budget.
inline constexpr std::uint64_t kFuzzEventsMax = 2'000'000;
RunOptions fuzz_run_options(std::span<const std::uint8_t> bytes);

// True when `result` is a finding of `target`: for a canary a violation of its bug's invariants;
// for a guard a violation that is not labelled known (run it with execute_run_with_known and
// the corpus's KnownBugs), or a harness error (an event budget hit is a livelock worth keeping).
bool fuzz_finding(const FuzzTarget& target, const RunResult& result);

// One fuzzing execution of `bytes` through `target`: a guard goes past the known bugs in `known`
// (in one run with the trace kept when target.label_in_one_run, else a fast run repeated with the
// trace when it hits a known invariant: the same result either way).
RunResult fuzz_execute(const FuzzTarget& target, const LoadedScenario& loaded,
                       std::span<const std::uint8_t> bytes, const std::vector<KnownBug>& known);

// Hard cap of a fuzzer input read by `wsim replay --fuzz-target` (the targets' max_len is far
// smaller).
inline constexpr std::size_t kFuzzInputBytesMax = 1u << 20;

// The fuzzer input that makes the bytes backend hand out exactly the values of `record` (each
// value little-endian in as many bytes as its bound needs), cut at `max_bytes`.
std::vector<std::uint8_t> bytes_of_record(const std::vector<Choice>& record, std::size_t max_bytes);

}  // namespace wsim::run
