// Hunting with forked worker processes: run budgets, stopping at the first failure, keep-going
// de-duplication, worker crashes reported with their seed, the time budget through the clock
// callback, probe coverage.
#include "sim/run/hunt.h"

#include <csignal>
#include <filesystem>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

HuntOptions options_for(const std::string& text, const std::string& out) {
  LoadedScenario loaded = testing::scenario_from_text(text);
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.out_dir = out;
  options.repro_command = "scripts/wsim run --system selftest";
  return options;
}

TEST(HuntTest, RunBudgetWithoutFailures) {
  HuntOptions options = options_for("selftest { }\n", testing::scratch_dir("hunt-pass"));
  options.runs = 30;
  options.jobs = 3;
  const HuntResult result = hunt(options);
  EXPECT_EQ(result.runs, 30u);
  EXPECT_EQ(result.failures, 0u);
  EXPECT_TRUE(result.findings.empty());
  EXPECT_EQ(result.exit_code(), kExitPass);
  std::map<std::string, std::uint64_t> hits;
  for (const Probe& probe : result.probes) hits[probe.name] = probe.hits;
  ASSERT_EQ(hits.count("selftest.never"), 1u);
  EXPECT_EQ(hits["selftest.never"], 0u);
  EXPECT_GT(hits["selftest.glitch"], 0u);
  const std::string coverage = render_probe_coverage(result.probes);
  EXPECT_THAT(coverage, HasSubstr("probes: 1 of 2 reached"));
  EXPECT_THAT(coverage, HasSubstr("never            0  selftest.never"));
}

TEST(HuntTest, StopsAtTheFirstFailureAndWritesItsBundle) {
  const std::string out = testing::scratch_dir("hunt-stop");
  HuntOptions options = options_for("selftest { version: \"unsafe\" }\n", out);
  options.runs = 1'000'000;  // Far more than can run before the stop (every run fails at once).
  options.jobs = 2;
  std::ostringstream log;
  options.log = &log;
  const HuntResult result = hunt(options);
  ASSERT_FALSE(result.findings.empty());
  EXPECT_LT(result.runs, 1'000'000u);
  const Finding& finding = result.findings.front();
  EXPECT_EQ(finding.verdict, Verdict::kSafety);
  EXPECT_EQ(finding.invariant, "selftest.S1");
  EXPECT_EQ(result.exit_code(), kExitSafety);
  ASSERT_FALSE(finding.bundle.empty());
  EXPECT_TRUE(fs::exists(finding.bundle + "/choices.bin"));
  // The re-run printed its banner, verdict and the repro commands.
  EXPECT_THAT(log.str(), HasSubstr("SEED=" + std::to_string(finding.seed)));
  EXPECT_THAT(log.str(), HasSubstr("scripts/wsim replay " + finding.bundle));
  EXPECT_THAT(log.str(), HasSubstr("scripts/wsim run --system selftest --seed " +
                                   std::to_string(finding.seed)));
}

TEST(HuntTest, KeepGoingRecordsEveryFailureOnceBundled) {
  const std::string out = testing::scratch_dir("hunt-keep-going");
  HuntOptions options = options_for("selftest { version: \"unsafe\" }\n", out);
  options.runs = 20;
  options.jobs = 2;
  options.keep_going = true;
  const HuntResult result = hunt(options);
  EXPECT_EQ(result.runs, 20u);
  EXPECT_EQ(result.failures, 20u);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].count, 20u);
  EXPECT_LT(result.findings[0].seed, 2u);  // The first result of either worker.
  std::size_t bundles = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    (void)entry;
    ++bundles;
  }
  EXPECT_EQ(bundles, 1u);
}

TEST(HuntTest, AWorkerCrashIsReportedWithItsSeed) {
  HuntOptions options =
      options_for("selftest { version: \"crash\" }\n", testing::scratch_dir("hunt-crash"));
  options.runs = 10;
  options.jobs = 1;
  options.seed_start = 40;
  std::ostringstream log;
  options.log = &log;
  const HuntResult result = hunt(options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].verdict, Verdict::kHarnessError);
  EXPECT_EQ(result.findings[0].invariant, "crash");
  EXPECT_EQ(result.findings[0].seed, 40u);
  EXPECT_THAT(result.findings[0].message, HasSubstr("signal 6"));
  EXPECT_EQ(result.exit_code(), kExitUsage);
  EXPECT_THAT(log.str(), HasSubstr("HARNESS CRASH at seed 40"));
  EXPECT_THAT(log.str(), HasSubstr("scripts/wsim run --system selftest --seed 40"));
}

TEST(HuntTest, KeepGoingPastCrashesRespawnsWorkers) {
  HuntOptions options =
      options_for("selftest { version: \"crash\" }\n", testing::scratch_dir("hunt-crashes"));
  options.runs = 4;
  options.jobs = 2;
  options.keep_going = true;
  const HuntResult result = hunt(options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].count, 4u);  // Every seed crashed, and each was tried.
}

TEST(HuntTest, TimeBudgetComesFromTheClockCallback) {
  HuntOptions options = options_for("selftest { }\n", testing::scratch_dir("hunt-time"));
  int polls = 0;
  options.clock.deadline_reached = [&polls] { return ++polls > 5; };
  const HuntResult result = hunt(options);
  EXPECT_TRUE(result.deadline_reached);
  EXPECT_GE(result.runs, 1u);
  EXPECT_TRUE(result.findings.empty());
}

TEST(HuntTest, CtrlCStopsTheHuntWithoutCrashReports) {
  HuntOptions options = options_for("selftest { }\n", testing::scratch_dir("hunt-interrupt"));
  options.jobs = 2;
  int polls = 0;
  // Ctrl-C (SIGINT to the parent) on the third poll; no budget otherwise.
  options.clock.deadline_reached = [&polls] {
    if (++polls == 3) std::raise(SIGINT);
    return false;
  };
  const HuntResult result = hunt(options);
  EXPECT_TRUE(result.interrupted);
  EXPECT_FALSE(result.deadline_reached);
  EXPECT_TRUE(result.findings.empty());  // Stopped workers are not crashes.
  EXPECT_GE(result.runs, 1u);
}

}  // namespace
}  // namespace wsim::run
