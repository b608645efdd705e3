// The flags every scenario-selecting subcommand (run, hunt, fingerprint) shares: --scenario,
// --bug, --system, --seed, --time-limit, --settle, --max-events, --set FIELD=VALUE, and one flag
// per config field of every registered system (--agent A0a sets gitlab { agent: "A0a" }), made
// by reflection over scenario.proto. Call after the systems are registered.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands/commands.h"

namespace wsim::cli {

struct ScenarioOptions {
  std::string scenario;
  std::string bug;
  std::string system;
  std::vector<std::string> sets;
  std::string seed;
  std::string time_limit;
  std::string settle;
  std::uint64_t events_max = run::kDefaultEventsMax;
  // field name → (option, value)
  std::map<std::string, std::pair<CLI::Option*, std::string>> fields;
};

// Adds the shared flags (with --seed when `with_seed`) to `app`, parsing into `options`.
// REQUIRES: `options` outlives the parse.
void add_scenario_options(CLI::App& app, ScenarioOptions& options, bool with_seed);

// Turns the parsed options into ScenarioFlags; false (with a message naming the flag) on
// malformed values.
bool to_flags(const ScenarioOptions& options, run::ScenarioFlags& flags, std::string& error);

}  // namespace wsim::cli
