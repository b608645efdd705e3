// Same-build determinism (docs/architecture.md §2): the same seed gives the same fingerprint twice,
// different seeds give different ones, recording and trace storage do not change a run, and
// replaying a run's choice record through the tape backend reproduces it exactly. The CLI's
// `wsim fingerprint` (used by scripts/check-determinism across builds) agrees with the library.
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/core/log.h"
#include "sim/run/driver.h"
#include "sim/run/duration.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

RunResult run_seed(LoadedScenario& loaded, std::uint64_t seed, RunOptions options = {}) {
  loaded.scenario.set_seed(seed);
  return execute_run(*loaded.system, loaded.scenario, options);
}

TEST(DeterminismTest, SameSeedTwiceSameFingerprint) {
  for (const char* text : {"toy { }\n", "toy { version: \"buggy\" }\n", "selftest { }\n"}) {
    LoadedScenario loaded = testing::scenario_from_text(text);
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      const RunResult a = run_seed(loaded, seed);
      const RunResult b = run_seed(loaded, seed);
      EXPECT_EQ(a.fingerprint, b.fingerprint) << text << " seed " << seed;
      EXPECT_EQ(a.trace_hash, b.trace_hash);
      EXPECT_EQ(a.events, b.events);
      EXPECT_EQ(a.verdict, b.verdict);
    }
  }
}

// The virtual-time log (sim/core/log.h) only reads the run: on or off, the same hashes.
TEST(DeterminismTest, LoggingDoesNotChangeTheRun) {
  LoadedScenario loaded = testing::scenario_from_text("toy { version: \"buggy\" }\n");
  std::ostringstream log;
  set_log_stream(log);
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    RunOptions options;
    options.keep_trace = true;
    ASSERT_TRUE(set_log_level("off"));
    const RunResult quiet = run_seed(loaded, seed, options);
    ASSERT_TRUE(set_log_level("trace"));
    const RunResult logged = run_seed(loaded, seed, options);
    ASSERT_TRUE(set_log_level("off"));
    EXPECT_EQ(quiet.fingerprint, logged.fingerprint) << "seed " << seed;
    EXPECT_EQ(quiet.trace_hash, logged.trace_hash) << "seed " << seed;
  }
  set_log_stream(std::cerr);
  EXPECT_NE(log.str().find("[debug] "), std::string::npos);  // The log was on and wrote lines.
}

TEST(DeterminismTest, DifferentSeedsDiffer) {
  LoadedScenario loaded = testing::scenario_from_text("toy { }\n");
  std::set<std::uint64_t> fingerprints;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    fingerprints.insert(run_seed(loaded, seed).fingerprint);
  }
  EXPECT_EQ(fingerprints.size(), 40u);
}

TEST(DeterminismTest, RecordingAndTraceStorageDoNotChangeTheRun) {
  LoadedScenario loaded = testing::scenario_from_text("toy { version: \"buggy\" }\n");
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    RunOptions full;
    full.record_choices = true;
    full.keep_trace = true;
    const RunResult quiet = run_seed(loaded, seed);
    const RunResult recorded = run_seed(loaded, seed, full);
    EXPECT_EQ(quiet.fingerprint, recorded.fingerprint) << "seed " << seed;
    EXPECT_EQ(recorded.record.size(), recorded.choices);
    EXPECT_EQ(recorded.trace.size(), recorded.trace_events);
  }
}

TEST(DeterminismTest, ChoiceRecordReplayReproducesTheRun) {
  for (const char* text : {"toy { }\n", "toy { version: \"buggy\" }\n",
                           "selftest { version: \"stuck\" }\n"}) {
    LoadedScenario loaded = testing::scenario_from_text(text);
    for (std::uint64_t seed = 0; seed < 6; ++seed) {
      RunOptions record;
      record.record_choices = true;
      const RunResult original = run_seed(loaded, seed, record);
      RunOptions replay;
      replay.tape = tape_of(original.record);
      const RunResult replayed = run_seed(loaded, seed, replay);
      EXPECT_EQ(replayed.fingerprint, original.fingerprint) << text << " seed " << seed;
      EXPECT_EQ(replayed.verdict, original.verdict);
      EXPECT_EQ(replayed.choices, original.choices);
      EXPECT_FALSE(replayed.tape_exhausted);
    }
  }
}

TEST(DeterminismTest, CliFingerprintsMatchTheLibrary) {
  LoadedScenario loaded = testing::scenario_from_text("toy { }\n");
  std::ostringstream expected;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    expected << seed << " " << format_hash(run_seed(loaded, seed).fingerprint) << "\n";
  }
  const std::string dir = testing::scratch_dir("determinism-cli");
  std::string output;
  ASSERT_EQ(testing::run_wsim(dir, "fingerprint --system toy --seeds 0..4", &output), 0) << output;
  EXPECT_EQ(output, expected.str());
}

}  // namespace
}  // namespace wsim::run
