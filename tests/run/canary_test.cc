// The canary (docs/architecture.md §5): the planted bug of the toy system's `buggy` version must be
// found by a short hunt on a run budget (never a time budget: the test must not depend on machine
// speed). If it is not, the harness itself is broken. The correct version T1 is the control: the
// same seeds find nothing.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/search/hunt.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;

TEST(CanaryTest, ShortHuntFindsThePlantedLostUpdate) {
  LoadedScenario loaded = testing::scenario_from_text("toy { version: \"buggy\" }\n");
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.runs = 100;
  options.jobs = 2;
  options.out_dir = testing::scratch_dir("canary");
  const HuntResult result = hunt(options);
  ASSERT_FALSE(result.findings.empty()) << "the canary was not found: the harness is broken";
  EXPECT_EQ(result.findings[0].verdict, Verdict::kSafety);
  EXPECT_EQ(result.findings[0].invariant, "toy.S1");
  EXPECT_THAT(result.findings[0].message, HasSubstr("count went backwards"));
  EXPECT_TRUE(std::filesystem::exists(result.findings[0].bundle + "/trace.txt"));
}

TEST(CanaryTest, TheCorrectVersionPassesTheSameSeeds) {
  LoadedScenario loaded = testing::scenario_from_text("toy { version: \"T1\" }\n");
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.runs = 40;
  options.jobs = 2;
  options.write_bundles = false;
  const HuntResult result = hunt(options);
  EXPECT_EQ(result.runs, 40u);
  EXPECT_TRUE(result.findings.empty())
      << verdict_name(result.findings[0].verdict) << " " << result.findings[0].invariant
      << " at seed " << result.findings[0].seed;
}

TEST(CanaryTest, CliHuntFindsItAndExitsWithTheSafetyCode) {
  const std::string dir = testing::scratch_dir("canary-cli");
  std::string output;
  EXPECT_EQ(testing::run_wsim(
                dir, "hunt --system toy --version buggy --runs 100 --jobs 2 --out out", &output),
            2)
      << output;
  EXPECT_THAT(output, HasSubstr("SAFETY_VIOLATION    toy.S1"));
  EXPECT_THAT(output, HasSubstr("scripts/wsim replay out/toy-buggy-s"));
  EXPECT_THAT(output, HasSubstr("probes: "));
}

}  // namespace
}  // namespace wsim::run
