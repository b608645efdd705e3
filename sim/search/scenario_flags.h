// What selects a scenario from the command line (`--scenario FILE`, `--bug FILE#N`, `--system S`,
// version flags and `--set field=value`, `--seed`, phase lengths), shared by `wsim run`, `hunt`,
// `fingerprint`, `shrink` and `serve --scenario`, and the repro command that selects it again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/run/shell_quote.h"

namespace wsim::run {

// One config or scenario field set on the command line, e.g. {"agent", "A0a", "--agent A0a"} or
// {"toy.namespaces", "4", "--set toy.namespaces=4"}.
struct FieldOverride {
  std::string field;
  std::string value;
  std::string flag;  // As typed, for messages and repro commands.
};

// What selects and adjusts a scenario: shared by run, hunt and fingerprint.
struct ScenarioFlags {
  std::string scenario_file;                     // --scenario FILE
  std::string bug;                               // --bug FILE#N (sim/run/corpus_bugs.h)
  std::string system;                            // --system NAME
  std::vector<FieldOverride> overrides;          // version flags (--agent A0a) and --set f=v
  std::optional<std::uint64_t> seed;             // --seed N
  std::optional<DurationMs> fault_phase_ms;      // --time-limit D (virtual fault phase)
  std::optional<DurationMs> settle_ms;           // --settle D
  std::uint64_t events_max = kDefaultEventsMax;  // --max-events N

  bool selects_something() const {
    return !scenario_file.empty() || !bug.empty() || !system.empty() || !overrides.empty();
  }
};

// Loads (or builds) the scenario, applies the overrides and validates it.
bool build_scenario(const ScenarioFlags& flags, LoadedScenario& loaded, std::string& error);
// "scripts/wsim run --scenario FILE --agent A0a" (without --seed): how to re-run from the flags.
std::string repro_command(const ScenarioFlags& flags);

}  // namespace wsim::run
