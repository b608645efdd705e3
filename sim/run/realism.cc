// Realism of a finding (realism.h): whether it still fails with the amplifiers at their
// production values, which amplifiers it needs, and the labels the reports print.
#include "sim/run/realism.h"

#include <optional>

#include "sim/core/assert.h"
#include "sim/run/amplifiers.h"

namespace wsim::run {

namespace {

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    WSIM_ASSERT(!name.empty());  // Amplifier names (amplifiers.h).
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

// The needed amplifiers' reasons, one after another.
std::string why_needed(const std::vector<Amplifier>& needed) {
  std::string why;
  for (const Amplifier& amplifier : needed) {
    WSIM_ASSERT(!amplifier.name.empty());
    why += (why.empty() ? "" : "; ") + amplifier.name + " " + amplifier.production +
           " in production: " + amplifier.why;
  }
  return why;
}

proto::Scenario at_production(proto::Scenario scenario, const System& system,
                              const std::vector<Amplifier>& amplifiers) {
  const std::uint64_t seed = scenario.seed();
  for (const Amplifier& amplifier : amplifiers) {
    set_amplifier(scenario, system, amplifier, amplifier.production);
  }
  WSIM_ASSERT_EQ(scenario.seed(), seed);  // Only the amplifiers change, never the seed.
  return scenario;
}

// The first of the `seeds` seeds after `candidate`'s whose run (with candidate's amplifier
// values) fails with the same bug, if any.
std::optional<std::uint64_t> other_seed_of_bug(const proto::Scenario& candidate,
                                               const Reproduces& same_bug, std::uint64_t seeds) {
  WSIM_ASSERT_GT(seeds, 0u);
  WSIM_ASSERT(static_cast<bool>(same_bug));
  for (std::uint64_t step = 1; step <= seeds; ++step) {
    proto::Scenario other = candidate;
    other.set_seed(candidate.seed() + step);  // Wraps past 2^64 - 1: still a seed.
    if (same_bug(other)) return other.seed();
  }
  return std::nullopt;
}

// Does the failure survive with `amplifier` alone put back to production: its own seed, or with
// a `same_bug` predicate one of kRealismAttributionSeeds seeds after it?
bool survives_without(const proto::Scenario& scenario, const System& system,
                      const Amplifier& amplifier, const Reproduces& reproduces,
                      const Reproduces& same_bug) {
  WSIM_ASSERT(static_cast<bool>(reproduces));
  const proto::Scenario candidate = at_production(scenario, system, {amplifier});
  if (reproduces(candidate)) return true;
  return same_bug && other_seed_of_bug(candidate, same_bug, kRealismAttributionSeeds);
}

}  // namespace

std::string realism_label(const Realism& realism) {
  return realism.realistic ? "realistic" : "needs";
}

std::string realism_short(const Realism& realism) {
  return realism.realistic ? "realistic" : "needs " + joined_names(realism.amplifiers);
}

std::string realism_text(const Realism& realism) {
  return realism.why.empty() ? realism_short(realism)
                             : realism_short(realism) + " (" + realism.why + ")";
}

Realism narrowed_realism(const Realism& checked, const System& system,
                         const std::map<std::string, std::uint64_t>& failed_without) {
  if (checked.realistic) return checked;
  WSIM_ASSERT(!checked.amplifiers.empty());
  std::vector<Amplifier> needed;
  std::vector<Amplifier> kept;
  std::string evidence;
  for (const std::string& name : checked.amplifiers) {
    const std::optional<Amplifier> amplifier = find_amplifier(system, name);
    WSIM_ASSERT_MSG(amplifier.has_value(), "no amplifier " + name);
    needed.push_back(*amplifier);
    const auto seen = failed_without.find(name);
    if (seen == failed_without.end()) {
      kept.push_back(*amplifier);
      continue;
    }
    evidence += "; not " + name + ": seed " + std::to_string(seen->second) +
                " failed with the same bug with it at production";
  }
  if (kept.empty() || evidence.empty()) return checked;
  // What check_realism said after the reasons (the seeds it looked at) stays.
  const std::string reasons = why_needed(needed);
  const std::string after =
      checked.why.rfind(reasons, 0) == 0 ? checked.why.substr(reasons.size()) : std::string();
  Realism narrowed{false, {}, why_needed(kept) + after + evidence};
  for (const Amplifier& amplifier : kept) narrowed.amplifiers.push_back(amplifier.name);
  WSIM_ASSERT_LT(narrowed.amplifiers.size(), checked.amplifiers.size());
  return narrowed;
}

Realism realistic_at_production(std::uint64_t seed) {
  return Realism{
      true,
      {},
      "fails with every amplifier at its production value (seed " + std::to_string(seed) + ")"};
}

bool is_unchecked(const Realism& realism) {
  return !realism.realistic && realism.why.rfind(kUncheckedRealism, 0) == 0;
}

Realism unchecked_realism(const proto::Scenario& scenario, const System& system) {
  const std::vector<Amplifier> amplified = amplified_in(scenario, system);
  if (amplified.empty()) return realistic_at_production(scenario.seed());
  Realism realism{false, {}, kUncheckedRealism + why_needed(amplified)};
  for (const Amplifier& amplifier : amplified) realism.amplifiers.push_back(amplifier.name);
  WSIM_ASSERT(is_unchecked(realism));  // Paired with is_unchecked: the prefix marks it.
  return realism;
}

Realism check_realism(const proto::Scenario& scenario, const System& system,
                      const Reproduces& reproduces, const Reproduces& same_bug) {
  WSIM_ASSERT(static_cast<bool>(reproduces));
  const std::vector<Amplifier> amplified = amplified_in(scenario, system);
  if (amplified.empty()) return realistic_at_production(scenario.seed());
  const proto::Scenario production = at_production(scenario, system, amplified);
  if (reproduces(production)) {
    return Realism{true,
                   {},
                   "seed " + std::to_string(scenario.seed()) +
                       " fails the same way with every amplifier at its production value"};
  }
  if (same_bug) {
    if (const std::optional<std::uint64_t> other =
            other_seed_of_bug(production, same_bug, kRealismSearchSeeds)) {
      WSIM_ASSERT_NE(*other, scenario.seed());
      return Realism{true,
                     {},
                     "seed " + std::to_string(*other) +
                         " fails with the same bug with every amplifier at its production value "
                         "(seed " +
                         std::to_string(scenario.seed()) + " itself passes there)"};
    }
  }
  // One amplifier alone is the all-production run already checked: it is needed.
  std::vector<Amplifier> needed;
  if (amplified.size() > 1) {
    for (std::size_t i = 0; i < amplified.size(); ++i) {
      // Past the bound the remaining amplifiers are named untested: never fewer than needed.
      if (i >= kRealismSingleChecksMax ||
          !survives_without(scenario, system, amplified[i], reproduces, same_bug)) {
        needed.push_back(amplified[i]);
      }
    }
  }
  // No single amplifier was needed alone, but all of them together were.
  if (needed.empty()) needed = amplified;
  std::string why = why_needed(needed);
  if (same_bug) {
    why += "; the bug was not seen at production values in seed " +
           std::to_string(scenario.seed()) + " or the " + std::to_string(kRealismSearchSeeds) +
           " seeds after it";
  }
  Realism realism{false, {}, why};
  for (const Amplifier& amplifier : needed) realism.amplifiers.push_back(amplifier.name);
  WSIM_ASSERT(!realism.amplifiers.empty());
  return realism;
}

}  // namespace wsim::run
