// Expected verdicts (scenario `expect` entries): the first entry whose `when` matches the config
// applies (docs/architecture.md §6, corpus/regressions/).
#pragma once

#include <string>

#include "sim/proto/scenario.pb.h"
#include "sim/run/system.h"
#include "sim/run/verdict.h"

namespace wsim::run {

struct ExpectationCheck {
  bool applies = false;  // Some expectation matched the config.
  int index = -1;        // Which one.
  Verdict expected = Verdict::kPass;
  std::string expected_invariant;
  bool met = false;
  std::string message;  // "as expected: ..." or "NOT as expected: expected ..., got ..."
};

// Compares the actual verdict (and violated invariant, empty for a pass) with the scenario's
// expectations. With no matching expectation, `applies` is false and `met` is true.
ExpectationCheck check_expectation(const proto::Scenario& scenario, const System& system,
                                   Verdict actual, const std::string& actual_invariant);

// The exit code of a run whose expectation was checked: the actual verdict's code when no
// expectation applies; 0 when one applies and is met; otherwise the actual verdict's code, or kExitExpectationNotMet when the run passed but a violation was expected.
int expectation_exit_code(const ExpectationCheck& check, Verdict actual);

}  // namespace wsim::run
