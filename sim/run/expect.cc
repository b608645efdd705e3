#include "sim/run/expect.h"

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
  const std::string wanted = describe(check.expected, check.expected_invariant);
  check.met = actual == check.expected &&
              (check.expected == Verdict::kPass || check.expected_invariant == actual_invariant);
  check.message = check.met ? "as expected: " + got
                            : "NOT as expected: expected " + wanted + " (expect[" +
                                  std::to_string(check.index) + "]), got " + got;
  return check;
}

int expectation_exit_code(const ExpectationCheck& check, Verdict actual) {
  if (!check.applies) return exit_code(actual);
  if (check.met) return kExitPass;
  if (actual == Verdict::kPass) return kExitExpectationNotMet;
  return exit_code(actual);
}

}  // namespace wsim::run
