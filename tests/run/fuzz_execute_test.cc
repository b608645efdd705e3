// fuzz_execute's two ways of labelling a guard's execution (sim/search/fuzz_targets.h): a fast run
// repeated with the trace when it hits a known bug's invariant, or one run with the trace kept
// (FuzzTarget::label_in_one_run, gitpod_guard). Both must decide the same finding with the same
// verdict, violation, label and fingerprint on every input (docs/performance.md §10).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/all_systems/all_systems.h"
#include "sim/core/prng.h"
#include "sim/run/driver.h"
#include "sim/search/fuzz_targets.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {
namespace {

// Input number `i`: 0..max_len bytes from a splitmix64 stream (tests/bench/bench_fuzz_exec.cc).
std::vector<std::uint8_t> input(std::uint64_t i, std::size_t max_len) {
  SplitMix64 rng(0x9e3779b97f4a7c15ULL * (i + 1));
  std::vector<std::uint8_t> bytes(rng.next() % (max_len + 1));
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng.next());
  return bytes;
}

std::string invariant_of(const RunResult& result) {
  return result.violation ? result.violation->invariant_id : "";
}

TEST(FuzzExecute, OneRunLabellingDecidesWhatTheRepeatDecides) {
  register_all_systems();
  const FuzzTarget* declared = find_fuzz_target("gitpod_guard");
  ASSERT_NE(declared, nullptr);
  EXPECT_TRUE(declared->label_in_one_run);
  LoadedScenario loaded;
  std::vector<KnownBug> known;
  std::string error;
  ASSERT_TRUE(fuzz_target_scenario(*declared, loaded, error)) << error;
  ASSERT_TRUE(known_bugs(WSIM_SOURCE_DIR "/corpus/regressions", declared->system, known, error))
      << error;
  FuzzTarget once = *declared;
  once.label_in_one_run = true;
  FuzzTarget repeat = *declared;
  repeat.label_in_one_run = false;
  int labelled_known = 0;
  for (std::uint64_t i = 0; i < 24; ++i) {
    SCOPED_TRACE("input " + std::to_string(i));
    const std::vector<std::uint8_t> bytes = input(i, declared->input_bytes_max);
    const RunResult a = fuzz_execute(once, loaded, bytes, known);
    const RunResult b = fuzz_execute(repeat, loaded, bytes, known);
    EXPECT_EQ(fuzz_finding(once, a), fuzz_finding(repeat, b));
    EXPECT_EQ(a.verdict, b.verdict);
    EXPECT_EQ(invariant_of(a), invariant_of(b));
    EXPECT_EQ(a.known, b.known);
    EXPECT_EQ(a.fingerprint, b.fingerprint);
    EXPECT_EQ(a.events, b.events);
    EXPECT_TRUE(a.trace.empty());
    if (b.labelled) EXPECT_TRUE(a.labelled);  // What the repeat labelled, the one run labels.
    if (!a.known.empty()) ++labelled_known;
  }
  // The comparison covers inputs that go past a known bug, not only clean runs.
  EXPECT_GT(labelled_known, 0);
}

}  // namespace
}  // namespace wsim::run
