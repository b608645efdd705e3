// Amplifiers in a scenario (system.h Amplifier; docs/fidelity.md "Amplifiers"): which ones a
// scenario sets away from production, setting them, and the hunt's swarm draw.
//
// A hunt draws, per run, each amplifier the user left at its production value: amplified (one of
// its amplified values) in one run of kAmplifiedShare, production otherwise. The draw depends only
// on the run's configuration seed (swarm_seed, else seed), never on the order the workers run in,
// and its result is written into the run's scenario (the bundle's scenario.textproto, the repro
// command's `--set`), so a seed replays exactly and nothing is amplified silently.
// Single-threaded; no global state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/prng.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/system.h"

namespace wsim::run {

// Share of a hunt's runs in which one drawable amplifier is amplified (drawn per amplifier).
inline constexpr Ratio kAmplifiedShare{1, 2};

// The config field an amplifier sets ("rails_clock_granularity_ms" of
// "gitlab.rails_clock_granularity_ms"). REQUIRES: the name starts with "<system>.".
std::string amplifier_field(const System& system, const Amplifier& amplifier);

// The value the scenario gives the amplifier (config_value); empty when the field is unknown.
std::string amplifier_value(const proto::Scenario& scenario, const System& system,
                            const Amplifier& amplifier);

// The amplifiers `scenario` sets to another value than production, in declaration order.
std::vector<Amplifier> amplified_in(const proto::Scenario& scenario, const System& system);

// The amplifier `name` of `system`, if it declares one.
std::optional<Amplifier> find_amplifier(const System& system, const std::string& name);

// Sets the amplifier's field of `scenario` to `value`. REQUIRES (asserted): a valid value of the
// field (the declarations are checked by tests/run/amplifiers_test.cc).
void set_amplifier(proto::Scenario& scenario, const System& system, const Amplifier& amplifier,
                   const std::string& value);

// The amplifiers a hunt of `scenario` draws: those at their production value in the normalized
// scenario and not in `pinned` (the `--set` keys the user gave on the command line).
std::vector<std::string> drawable_amplifiers(const proto::Scenario& scenario, const System& system,
                                             const std::vector<std::string>& pinned);

// Sets each amplifier of `drawable` in `scenario` to production or to a drawn amplified value,
// from `config_seed` alone (see the file comment).
void draw_amplifiers(proto::Scenario& scenario, const System& system,
                     const std::vector<std::string>& drawable, std::uint64_t config_seed);

// The configuration seed of a run: its swarm_seed when it has one, else its seed.
std::uint64_t config_seed_of(const proto::Scenario& scenario);

// " --set NAME=VALUE" for each amplifier of `drawable` that `scenario` amplifies: what a repro
// command needs on top of the hunt's own flags.
std::string amplifier_flags(const proto::Scenario& scenario, const System& system,
                            const std::vector<std::string>& drawable);

// `wsim list`'s lines for `system`: "  parameters (production values):" with each
// ParameterInfo and its source, then "  amplifiers (...):" with each Amplifier's production and
// amplified values and why. Empty when the system declares neither.
std::string render_parameters_and_amplifiers(const System& system);

}  // namespace wsim::run
