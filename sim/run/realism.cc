#include "sim/run/realism.h"

#include "sim/core/assert.h"
#include "sim/run/amplifiers.h"

namespace wsim::run {

namespace {

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The needed amplifiers' reasons, one after another.
std::string why_needed(const std::vector<Amplifier>& needed) {
  std::string why;
  for (const Amplifier& amplifier : needed) {
    why += (why.empty() ? "" : "; ") + amplifier.name + " " + amplifier.production +
           " in production: " + amplifier.why;
  }
  return why;
}

proto::Scenario at_production(proto::Scenario scenario, const System& system,
                              const std::vector<Amplifier>& amplifiers) {
  for (const Amplifier& amplifier : amplifiers) {
    set_amplifier(scenario, system, amplifier, amplifier.production);
  }
  return scenario;
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
  return realism;
}

Realism check_realism(const proto::Scenario& scenario, const System& system,
                      const Reproduces& reproduces) {
  const std::vector<Amplifier> amplified = amplified_in(scenario, system);
  if (amplified.empty()) return realistic_at_production(scenario.seed());
  if (reproduces(at_production(scenario, system, amplified))) {
    return Realism{true,
                   {},
                   "seed " + std::to_string(scenario.seed()) +
                       " fails the same way with every amplifier at its production value"};
  }
  std::vector<Amplifier> needed;
  for (std::size_t i = 0; i < amplified.size(); ++i) {
    // Past the bound the remaining amplifiers are named untested: never fewer than needed.
    if (i >= kRealismSingleChecksMax ||
        !reproduces(at_production(scenario, system, {amplified[i]}))) {
      needed.push_back(amplified[i]);
    }
  }
  // No single amplifier was needed alone, but all of them together were.
  if (needed.empty()) needed = amplified;
  Realism realism{false, {}, why_needed(needed)};
  for (const Amplifier& amplifier : needed) realism.amplifiers.push_back(amplifier.name);
  WSIM_ASSERT(!realism.amplifiers.empty());
  return realism;
}

}  // namespace wsim::run
