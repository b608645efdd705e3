// What one libFuzzer execution of a guard target costs without libFuzzer and the sanitizers
// (docs/performance.md §8): fuzz_execute() exactly as fuzz/choice_fuzz.cc calls it (the guard's
// scenario, its known bugs from corpus/regressions, random-tail inputs), on inputs drawn from a
// fixed generator, in the release build. Set beside the CI gate's execs/s (scripts/fuzz, ASan +
// UBSan + coverage), it splits a fuzz execution's cost into the run itself and the fuzzing build.
//
// Counters: execs/s (CPU-time rate), relabelled (share of executions whose first run hit an
// invariant some known bug has, so execute_run_with_known ran them a second time with the trace
// to label them), events/exec. BM_FuzzExecPlain runs the same inputs through execute_run only
// (no known bugs, no second run): the difference is what labelling costs. BM_FuzzExecOnce runs
// every input once the way the second run does (trace kept, known bugs labelled, past known
// violations) and never repeats one: what removing the repeat would cost instead (§9).
// gitpod_guard now does that itself (FuzzTarget::label_in_one_run, §10): BM_FuzzExecRepeat runs
// its inputs the old way (a fast run, repeated with the trace when it hits a known invariant).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/all_systems/all_systems.h"
#include "sim/core/prng.h"
#include "sim/run/driver.h"
#include "sim/search/fuzz_targets.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {
namespace {

struct Target {
  const FuzzTarget* target = nullptr;
  LoadedScenario loaded;
  std::vector<KnownBug> known;
};

const Target& load_target(const std::string& name) {
  static std::map<std::string, Target>* targets = new std::map<std::string, Target>();
  auto it = targets->find(name);
  if (it != targets->end()) return it->second;
  static const bool registered = [] {
    register_all_systems();
    return true;
  }();
  (void)registered;
  Target& t = (*targets)[name];
  t.target = find_fuzz_target(name);
  std::string error;
  if (t.target == nullptr) throw std::runtime_error("no fuzz target " + name);
  if (!fuzz_target_scenario(*t.target, t.loaded, error) ||
      !known_bugs(WSIM_SOURCE_DIR "/corpus/regressions", t.target->system, t.known, error)) {
    throw std::runtime_error(error);
  }
  return t;
}

// Input number `i`: 0..max_len bytes from a splitmix64 stream (the same inputs in every build).
std::vector<std::uint8_t> input(std::uint64_t i, std::size_t max_len) {
  SplitMix64 rng(0x9e3779b97f4a7c15ULL * (i + 1));
  std::vector<std::uint8_t> bytes(rng.next() % (max_len + 1));
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng.next());
  return bytes;
}

enum class Mode { kFuzzExecute, kPlain, kOnce, kRepeat };

RunResult execute(const Target& t, const std::vector<std::uint8_t>& bytes, Mode mode) {
  switch (mode) {
    case Mode::kFuzzExecute:
      return fuzz_execute(*t.target, t.loaded, bytes, t.known);
    case Mode::kPlain:
      return execute_run(*t.loaded.system, t.loaded.scenario, fuzz_run_options(bytes));
    case Mode::kOnce: {
      RunOptions options = fuzz_run_options(bytes);
      options.keep_trace = true;
      options.known = &t.known;
      options.go_past_known = true;
      return execute_run(*t.loaded.system, t.loaded.scenario, options);
    }
    case Mode::kRepeat: {
      FuzzTarget repeat = *t.target;
      repeat.label_in_one_run = false;
      return fuzz_execute(repeat, t.loaded, bytes, t.known);
    }
  }
  throw std::logic_error("mode");
}

void run_target(benchmark::State& state, const std::string& name, Mode mode) {
  const Target& t = load_target(name);
  std::uint64_t i = 0;
  std::uint64_t relabelled = 0;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const std::vector<std::uint8_t> bytes = input(i++, t.target->input_bytes_max);
    const RunResult result = execute(t, bytes, mode);
    relabelled += result.labelled ? 1 : 0;
    events += result.events;
  }
  state.counters["execs/s"] =
      benchmark::Counter(static_cast<double>(i), benchmark::Counter::kIsRate);
  state.counters["relabelled"] =
      benchmark::Counter(static_cast<double>(relabelled) / static_cast<double>(i));
  state.counters["events/exec"] =
      benchmark::Counter(static_cast<double>(events) / static_cast<double>(i));
}

void BM_FuzzExec(benchmark::State& state, const char* name) {
  run_target(state, name, Mode::kFuzzExecute);
}
void BM_FuzzExecPlain(benchmark::State& state, const char* name) {
  run_target(state, name, Mode::kPlain);
}
void BM_FuzzExecOnce(benchmark::State& state, const char* name) {
  run_target(state, name, Mode::kOnce);
}
void BM_FuzzExecRepeat(benchmark::State& state, const char* name) {
  run_target(state, name, Mode::kRepeat);
}

BENCHMARK_CAPTURE(BM_FuzzExec, toy_guard, "toy_guard")->MinTime(2.0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FuzzExecPlain, toy_guard, "toy_guard")
    ->MinTime(2.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FuzzExecOnce, toy_guard, "toy_guard")
    ->MinTime(2.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FuzzExec, gitlab_guard, "gitlab_guard")
    ->MinTime(3.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FuzzExecPlain, gitlab_guard, "gitlab_guard")
    ->MinTime(3.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FuzzExecOnce, gitlab_guard, "gitlab_guard")
    ->MinTime(3.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FuzzExec, gitpod_guard, "gitpod_guard")
    ->MinTime(3.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FuzzExecOnce, gitpod_guard, "gitpod_guard")
    ->MinTime(3.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FuzzExecRepeat, gitpod_guard, "gitpod_guard")
    ->MinTime(3.0)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wsim::run
