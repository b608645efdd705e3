// Not a port: the invariants are [reconstructed] properties of the design (docs/fidelity.md
// lists the upstream rules they judge).
//
// The Gitpod invariants with their stable ids (docs/systems/gitpod.md §11; docs/architecture.md
// §5): S1–S11 safety, L1–L6 liveness, plus the data oracle's two verdicts, reported separately:
//   gitpod.no_silent_loss     the last written version became unrecoverable without a visible
//                             loss marker (safety);
//   gitpod.acknowledged_loss  ... with a marker (BackupFailure, Aborted, mk1 backup failure);
//                             a violation only with GitpodConfig.report_acknowledged_loss.
#pragma once

#include <vector>

#include "sim/run/system.h"

namespace wsim::gitpod {

inline constexpr const char* kS1 = "gitpod.S1";
inline constexpr const char* kS2 = "gitpod.S2";
inline constexpr const char* kS3 = "gitpod.S3";
inline constexpr const char* kS4 = "gitpod.S4";
inline constexpr const char* kS5 = "gitpod.S5";
inline constexpr const char* kS6 = "gitpod.S6";
inline constexpr const char* kS7 = "gitpod.S7";
inline constexpr const char* kS8 = "gitpod.S8";
inline constexpr const char* kS9 = "gitpod.S9";
inline constexpr const char* kS10 = "gitpod.S10";
inline constexpr const char* kS11 = "gitpod.S11";
inline constexpr const char* kL1 = "gitpod.L1";
inline constexpr const char* kL2 = "gitpod.L2";
inline constexpr const char* kL3 = "gitpod.L3";
inline constexpr const char* kL4 = "gitpod.L4";
inline constexpr const char* kL5 = "gitpod.L5";
inline constexpr const char* kL6 = "gitpod.L6";
inline constexpr const char* kNoSilentLoss = "gitpod.no_silent_loss";
inline constexpr const char* kAcknowledgedLoss = "gitpod.acknowledged_loss";

std::vector<run::InvariantInfo> invariant_catalog();

}  // namespace wsim::gitpod
