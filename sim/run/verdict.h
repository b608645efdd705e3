// Verdicts of a run and the exit codes of the `wsim` CLI (docs/architecture.md §5):
//   0 pass · 1 usage or harness error · 2 safety violation · 3 liveness violation ·
//   4 nondeterminism (a replay whose trace hash differs from the recorded one) ·
//   5 expectation not met (the scenario expected a violation that did not happen).
#pragma once

#include <string>
#include <string_view>

#include "sim/proto/scenario.pb.h"

namespace wsim::run {

enum class Verdict { kPass, kSafety, kLiveness, kNondeterminism, kHarnessError };

inline constexpr int kExitPass = 0;
inline constexpr int kExitUsage = 1;  // Also harness errors: bad input, a crash, a budget hit.
inline constexpr int kExitSafety = 2;
inline constexpr int kExitLiveness = 3;
inline constexpr int kExitNondeterminism = 4;
inline constexpr int kExitExpectationNotMet = 5;

int exit_code(Verdict verdict);
// "PASS", "SAFETY_VIOLATION", "LIVENESS_VIOLATION", "NONDETERMINISM", "HARNESS_ERROR".
const char* verdict_name(Verdict verdict);
bool parse_verdict_name(std::string_view name, Verdict& verdict);

// The scenario-file spelling of a verdict (proto::Verdict) and back. kNondeterminism and
// kHarnessError have no proto spelling (they are never expected).
proto::Verdict to_proto(Verdict verdict);
Verdict from_proto(proto::Verdict verdict);

}  // namespace wsim::run
