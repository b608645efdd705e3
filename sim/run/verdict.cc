// Verdicts (verdict.h): their names, exit codes and scenario-file spellings.
#include "sim/run/verdict.h"

#include "sim/core/assert.h"

namespace wsim::run {

int exit_code(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return kExitPass;
    case Verdict::kSafety:
      return kExitSafety;
    case Verdict::kLiveness:
      return kExitLiveness;
    case Verdict::kNondeterminism:
      return kExitNondeterminism;
    case Verdict::kHarnessError:
      return kExitUsage;
  }
  WSIM_ASSERT_MSG(false, "unknown verdict " << static_cast<int>(verdict));
  return kExitUsage;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kSafety:
      return "SAFETY_VIOLATION";
    case Verdict::kLiveness:
      return "LIVENESS_VIOLATION";
    case Verdict::kNondeterminism:
      return "NONDETERMINISM";
    case Verdict::kHarnessError:
      return "HARNESS_ERROR";
  }
  WSIM_ASSERT_MSG(false, "unknown verdict " << static_cast<int>(verdict));
  return "HARNESS_ERROR";
}

bool parse_verdict_name(std::string_view name, Verdict& verdict) {
  for (Verdict v : {Verdict::kPass, Verdict::kSafety, Verdict::kLiveness, Verdict::kNondeterminism,
                    Verdict::kHarnessError}) {
    if (name == verdict_name(v)) {
      verdict = v;
      return true;
    }
  }
  return false;
}

proto::Verdict to_proto(Verdict verdict) {
  const proto::Verdict spelled = verdict == Verdict::kPass       ? proto::PASS
                                 : verdict == Verdict::kSafety   ? proto::SAFETY_VIOLATION
                                 : verdict == Verdict::kLiveness ? proto::LIVENESS_VIOLATION
                                                                 : proto::VERDICT_UNSPECIFIED;
  // Paired with from_proto: a spelled verdict reads back as itself.
  if (spelled != proto::VERDICT_UNSPECIFIED) WSIM_ASSERT(from_proto(spelled) == verdict);
  return spelled;
}

Verdict from_proto(proto::Verdict verdict) {
  switch (verdict) {
    case proto::SAFETY_VIOLATION:
      return Verdict::kSafety;
    case proto::LIVENESS_VIOLATION:
      return Verdict::kLiveness;
    default:
      return Verdict::kPass;
  }
}

}  // namespace wsim::run
