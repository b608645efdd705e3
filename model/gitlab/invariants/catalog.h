// The invariants of the GitLab system (docs/systems/gitlab.md §10) with stable ids
// ("gitlab.S1" … "gitlab.L6"), a one-line description and the real-world reference. Corpus
// expectations name these ids; never renumber them.
#pragma once

#include <string_view>
#include <vector>

#include "sim/run/system.h"

namespace wsim::gitlab {

inline constexpr std::string_view kS1 = "gitlab.S1";
inline constexpr std::string_view kS2 = "gitlab.S2";
inline constexpr std::string_view kS3 = "gitlab.S3";
inline constexpr std::string_view kS4 = "gitlab.S4";
inline constexpr std::string_view kS5 = "gitlab.S5";
inline constexpr std::string_view kS6 = "gitlab.S6";
inline constexpr std::string_view kS7 = "gitlab.S7";
inline constexpr std::string_view kS8 = "gitlab.S8";
inline constexpr std::string_view kS9 = "gitlab.S9";
inline constexpr std::string_view kS10 = "gitlab.S10";
inline constexpr std::string_view kS11 = "gitlab.S11";
inline constexpr std::string_view kS12 = "gitlab.S12";
inline constexpr std::string_view kS13 = "gitlab.S13";
inline constexpr std::string_view kS14 = "gitlab.S14";
inline constexpr std::string_view kS15 = "gitlab.S15";
inline constexpr std::string_view kS16 = "gitlab.S16";
inline constexpr std::string_view kS17 = "gitlab.S17";
inline constexpr std::string_view kS18 = "gitlab.S18";
inline constexpr std::string_view kL1 = "gitlab.L1";
inline constexpr std::string_view kL2 = "gitlab.L2";
inline constexpr std::string_view kL3 = "gitlab.L3";
inline constexpr std::string_view kL4 = "gitlab.L4";
inline constexpr std::string_view kL5 = "gitlab.L5";
inline constexpr std::string_view kL6 = "gitlab.L6";

// Every invariant, safety first, in id order.
std::vector<run::InvariantInfo> gitlab_invariants();

}  // namespace wsim::gitlab
