#include "sim/run/verdict.h"

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
  switch (verdict) {
    case Verdict::kPass:
      return proto::PASS;
    case Verdict::kSafety:
      return proto::SAFETY_VIOLATION;
    case Verdict::kLiveness:
      return proto::LIVENESS_VIOLATION;
    default:
      return proto::VERDICT_UNSPECIFIED;
  }
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
