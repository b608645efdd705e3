// Amplifiers (amplifiers.h): reading and setting a system's amplified config values, which of
// them a scenario has off production, and the per-config-seed draw a hunt makes of them.
#include "sim/run/amplifiers.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/run/scenario.h"

namespace wsim::run {

std::string amplifier_field(const System& system, const Amplifier& amplifier) {
  const std::string prefix = system.name() + ".";
  WSIM_ASSERT_MSG(amplifier.name.rfind(prefix, 0) == 0,
                  "amplifier " << amplifier.name << " must start with " << prefix);
  WSIM_ASSERT_GT(amplifier.name.size(), prefix.size());
  return amplifier.name.substr(prefix.size());
}

std::string amplifier_value(const proto::Scenario& scenario, const System& system,
                            const Amplifier& amplifier) {
  std::string value;
  if (!config_value(scenario, system, amplifier_field(system, amplifier), value)) return "";
  return value;
}

std::vector<Amplifier> amplified_in(const proto::Scenario& scenario, const System& system) {
  std::vector<Amplifier> out;
  for (Amplifier& amplifier : system.amplifiers()) {
    if (amplifier_value(scenario, system, amplifier) != amplifier.production) {
      out.push_back(std::move(amplifier));
    }
  }
  return out;
}

std::optional<Amplifier> find_amplifier(const System& system, const std::string& name) {
  for (Amplifier& amplifier : system.amplifiers()) {
    WSIM_ASSERT(!amplifier.amplified.empty());  // As drawable_amplifiers checks.
    if (amplifier.name == name) return std::move(amplifier);
  }
  return std::nullopt;
}

void set_amplifier(proto::Scenario& scenario, const System& system, const Amplifier& amplifier,
                   const std::string& value) {
  LoadedScenario loaded;
  loaded.scenario = std::move(scenario);
  loaded.system = &system;
  loaded.origin = "amplifier";
  std::string error;
  const bool ok = set_field(loaded, amplifier_field(system, amplifier), value,
                            "--set " + amplifier.name + "=" + value, error);
  WSIM_ASSERT_MSG(ok, error);
  scenario = std::move(loaded.scenario);
  WSIM_ASSERT_EQ(amplifier_value(scenario, system, amplifier), value);
}

std::vector<std::string> drawable_amplifiers(const proto::Scenario& scenario, const System& system,
                                             const std::vector<std::string>& pinned) {
  std::vector<std::string> out;
  for (const Amplifier& amplifier : system.amplifiers()) {
    WSIM_ASSERT(!amplifier.amplified.empty());
    bool is_pinned = false;
    for (const std::string& name : pinned) is_pinned = is_pinned || name == amplifier.name;
    if (is_pinned) continue;
    if (amplifier_value(scenario, system, amplifier) != amplifier.production) continue;
    out.push_back(amplifier.name);
  }
  return out;
}

std::uint64_t config_seed_of(const proto::Scenario& scenario) {
  return scenario.has_swarm_seed() ? scenario.swarm_seed() : scenario.seed();
}

void draw_amplifiers(proto::Scenario& scenario, const System& system,
                     const std::vector<std::string>& drawable, std::uint64_t config_seed) {
  if (drawable.empty()) return;
  // A stream of its own, keyed by the configuration seed: the run's choice streams are untouched.
  Xoshiro256 prng(fnv1a64("amplifiers", config_seed ^ 0x9e3779b97f4a7c15ULL));
  for (const Amplifier& amplifier : system.amplifiers()) {
    bool wanted = false;
    for (const std::string& name : drawable) wanted = wanted || name == amplifier.name;
    if (!wanted) continue;
    WSIM_ASSERT(!amplifier.amplified.empty());  // Paired with drawable_amplifiers.
    // Two draws per amplifier whatever the outcome: one amplifier's draw never shifts another's.
    const bool amplify = prng.below(kAmplifiedShare.den) < kAmplifiedShare.num;
    const std::uint64_t which = prng.below(amplifier.amplified.size());
    WSIM_ASSERT_LT(which, amplifier.amplified.size());
    set_amplifier(scenario, system, amplifier,
                  amplify ? amplifier.amplified[which] : amplifier.production);
  }
}

std::string amplifier_flags(const proto::Scenario& scenario, const System& system,
                            const std::vector<std::string>& drawable) {
  std::string flags;
  for (const Amplifier& amplifier : amplified_in(scenario, system)) {
    bool drawn = false;
    for (const std::string& name : drawable) drawn = drawn || name == amplifier.name;
    if (!drawn) continue;
    flags += " --set " + amplifier.name + "=" + amplifier_value(scenario, system, amplifier);
  }
  return flags;
}

std::string render_parameters_and_amplifiers(const System& system) {
  std::string out;
  const std::vector<ParameterInfo> parameters = system.parameters();
  std::size_t width = 0;
  for (const ParameterInfo& p : parameters) width = std::max(width, p.name.size());
  if (!parameters.empty()) out += "  parameters (default = production value; source):\n";
  for (const ParameterInfo& p : parameters) {
    out += "    " + p.name + std::string(width - p.name.size() + 2, ' ') + p.value + "  " +
           p.source + "\n";
  }
  const std::vector<Amplifier> amplifiers = system.amplifiers();
  if (amplifiers.empty()) return out;
  out +=
      "  amplifiers (off by default; `wsim hunt` draws them, a finding that needs one says so):\n";
  for (const Amplifier& a : amplifiers) {
    WSIM_ASSERT(!a.amplified.empty());  // An amplifier has a value other than production.
    std::string amplified;
    for (const std::string& value : a.amplified)
      amplified += (amplified.empty() ? "" : ", ") + value;
    out += "    " + a.name + "  production " + a.production + ", amplified " + amplified + "\n";
    out += "        why: " + a.why + "\n";
    out += "        production value: " + a.source + "\n";
  }
  return out;
}

}  // namespace wsim::run
