// Checking a run's verdict against the scenario's `expect` blocks (expect.h), and the exit code
// that follows from it.
#include "sim/run/expect.h"

#include "sim/core/assert.h"
#include "sim/run/scenario.h"

namespace wsim::run {

namespace {

std::string describe(Verdict verdict, const std::string& invariant) {
  std::string out = verdict_name(verdict);
  if (!invariant.empty()) out += " " + invariant;
  return out;
}

}  // namespace

ExpectationCheck check_expectation(const proto::Scenario& scenario, const System& system,
                                   Verdict actual, const std::string& actual_invariant) {
  ExpectationCheck check;
  for (int i = 0; i < scenario.expect_size(); ++i) {
    const proto::Expectation& expect = scenario.expect(i);
    bool matches = true;
    for (const auto& [key, value] : expect.when()) {
      std::string config;
      if (!config_value(scenario, system, key, config) || config != value) {
        matches = false;
        break;
      }
    }
    if (!matches) continue;
    check.applies = true;
    check.index = i;
    check.expected = from_proto(expect.verdict());
    check.expected_invariant = expect.invariant();
    break;
  }
  const std::string got = describe(actual, actual_invariant);
  if (!check.applies) {
    check.met = true;
    check.message = "no expectation for this configuration: " + got;
    return check;
  }
  WSIM_ASSERT_GE(check.index, 0);
  WSIM_ASSERT_LT(check.index, scenario.expect_size());
  // validate_expectation: a violation expectation names its invariant.
  if (check.expected != Verdict::kPass) WSIM_ASSERT(!check.expected_invariant.empty());
  const std::string wanted = describe(check.expected, check.expected_invariant);
  check.met = actual == check.expected &&
              (check.expected == Verdict::kPass || check.expected_invariant == actual_invariant);
  check.message = check.met ? "as expected: " + got
                            : "NOT as expected: expected " + wanted + " (expect[" +
                                  std::to_string(check.index) + "]), got " + got;
  return check;
}

int expectation_exit_code(const ExpectationCheck& check, Verdict actual) {
  if (!check.applies) WSIM_ASSERT(check.met);  // Paired with check_expectation.
  if (!check.applies) return exit_code(actual);
  if (check.met) return kExitPass;
  if (actual == Verdict::kPass) return kExitExpectationNotMet;
  return exit_code(actual);
}

}  // namespace wsim::run
