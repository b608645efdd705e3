// Expected verdicts: the first expectation whose `when` matches the config applies.
#include "sim/run/expect.h"

#include <gtest/gtest.h>

#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

constexpr const char* kScenario = R"(
toy { version: "buggy" }
expect { when { key: "version" value: "buggy" } verdict: SAFETY_VIOLATION invariant: "toy.S1" }
expect { verdict: PASS }
)";

TEST(ExpectTest, FirstMatchingExpectationApplies) {
  LoadedScenario loaded = testing::scenario_from_text(kScenario);
  ExpectationCheck check =
      check_expectation(loaded.scenario, *loaded.system, Verdict::kSafety, "toy.S1");
  EXPECT_TRUE(check.applies);
  EXPECT_EQ(check.index, 0);
  EXPECT_TRUE(check.met);
  EXPECT_EQ(check.message, "as expected: SAFETY_VIOLATION toy.S1");
  EXPECT_EQ(expectation_exit_code(check, Verdict::kSafety), kExitPass);

  loaded.scenario.mutable_toy()->set_version("T1");
  check = check_expectation(loaded.scenario, *loaded.system, Verdict::kPass, "");
  EXPECT_EQ(check.index, 1);
  EXPECT_TRUE(check.met);
  EXPECT_EQ(expectation_exit_code(check, Verdict::kPass), kExitPass);
}

TEST(ExpectTest, MismatchesExitNonZero) {
  LoadedScenario loaded = testing::scenario_from_text(kScenario);
  // Expected a violation, the run passed: exit 5.
  ExpectationCheck check = check_expectation(loaded.scenario, *loaded.system, Verdict::kPass, "");
  EXPECT_FALSE(check.met);
  EXPECT_EQ(check.message,
            "NOT as expected: expected SAFETY_VIOLATION toy.S1 (expect[0]), got PASS");
  EXPECT_EQ(expectation_exit_code(check, Verdict::kPass), kExitExpectationNotMet);
  // The wrong invariant: the actual verdict's code.
  check = check_expectation(loaded.scenario, *loaded.system, Verdict::kSafety, "toy.S2");
  EXPECT_FALSE(check.met);
  EXPECT_EQ(expectation_exit_code(check, Verdict::kSafety), kExitSafety);
  // Expected a pass, got a liveness violation.
  loaded.scenario.mutable_toy()->set_version("T1");
  check = check_expectation(loaded.scenario, *loaded.system, Verdict::kLiveness, "toy.L1");
  EXPECT_FALSE(check.met);
  EXPECT_EQ(expectation_exit_code(check, Verdict::kLiveness), kExitLiveness);
}

TEST(ExpectTest, NoExpectationMeansTheRawVerdict) {
  LoadedScenario loaded = testing::scenario_from_text("toy { }\n");
  const ExpectationCheck check =
      check_expectation(loaded.scenario, *loaded.system, Verdict::kLiveness, "toy.L1");
  EXPECT_FALSE(check.applies);
  EXPECT_EQ(expectation_exit_code(check, Verdict::kLiveness), kExitLiveness);
  EXPECT_EQ(expectation_exit_code(check, Verdict::kPass), kExitPass);
}

TEST(ExpectTest, VerdictNamesAndCodes) {
  EXPECT_EQ(exit_code(Verdict::kPass), 0);
  EXPECT_EQ(exit_code(Verdict::kHarnessError), 1);
  EXPECT_EQ(exit_code(Verdict::kSafety), 2);
  EXPECT_EQ(exit_code(Verdict::kLiveness), 3);
  EXPECT_EQ(exit_code(Verdict::kNondeterminism), 4);
  for (Verdict v : {Verdict::kPass, Verdict::kSafety, Verdict::kLiveness,
                    Verdict::kNondeterminism, Verdict::kHarnessError}) {
    Verdict parsed = Verdict::kPass;
    ASSERT_TRUE(parse_verdict_name(verdict_name(v), parsed));
    EXPECT_EQ(parsed, v);
  }
}

}  // namespace
}  // namespace wsim::run
