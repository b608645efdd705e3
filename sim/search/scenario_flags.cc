// scenario_flags.h: a scenario built from command-line selections, and the command that rebuilds
// it.
#include "sim/search/scenario_flags.h"

#include <google/protobuf/descriptor.h>

#include "sim/core/assert.h"
#include "sim/run/duration.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

namespace pb = google::protobuf;

namespace {

// The system whose config has every (undotted, non-scenario) overridden field, when no
// --system or --scenario says which: `wsim run --agent A0a` means gitlab.
const System* system_from_overrides(const std::vector<FieldOverride>& overrides,
                                    std::string& error) {
  WSIM_ASSERT(!overrides.empty());  // build_scenario asks only when flags were given.
  std::vector<const System*> candidates;
  for (const System* system : systems()) {
    LoadedScenario probe;
    std::string ignored;
    if (!scenario_for_system(system->name(), probe, ignored)) continue;
    bool all = true;
    bool any = false;
    for (const FieldOverride& o : overrides) {
      if (o.field.find('.') != std::string::npos) {
        all = all && o.field.rfind(system->name() + ".", 0) == 0;
        any = any || o.field.rfind(system->name() + ".", 0) == 0;
        continue;
      }
      const pb::Message* config = config_of(probe.scenario, *system);
      const bool has = config && config->GetDescriptor()->FindFieldByName(o.field) != nullptr;
      if (has) {
        any = true;
      } else if (proto::Scenario::descriptor()->FindFieldByName(o.field) == nullptr) {
        all = false;
      }
    }
    if (all && any) candidates.push_back(system);
  }
  if (candidates.size() == 1) return candidates.front();
  std::string names;
  for (const System* system : (candidates.empty() ? systems() : candidates)) {
    names += (names.empty() ? "" : ", ") + system->name();
  }
  error = candidates.empty()
              ? "no system has all of the given fields; give --system NAME (systems: " + names +
                    ") or --scenario FILE"
              : "the flags fit several systems (" + names + "); give --system NAME";
  WSIM_ASSERT(!error.empty());
  return nullptr;
}

}  // namespace

bool build_scenario(const ScenarioFlags& flags, LoadedScenario& loaded, std::string& error) {
  if (!flags.bug.empty()) {
    CorpusBug bug;
    if (!flags.scenario_file.empty()) {
      error = "--bug and --scenario: give one of them";
      return false;
    }
    if (!parse_corpus_bug(flags.bug, bug, error) || !corpus_bug_scenario(bug, loaded, error)) {
      error = "--bug " + flags.bug + ": " + error;
      return false;
    }
    WSIM_ASSERT(loaded.system != nullptr);  // corpus_bug_scenario validated it.
    if (!flags.system.empty() && loaded.system->name() != flags.system) {
      error = "--system " + flags.system + ": bug " + bug.name + " is a " + loaded.system->name() +
              " bug";
      return false;
    }
  } else if (!flags.scenario_file.empty()) {
    if (!load_scenario_file(flags.scenario_file, loaded, error)) return false;
    if (!flags.system.empty()) {
      std::string ignored;
      const System* selected = selected_system(loaded, ignored);
      if (selected != nullptr && selected->name() != flags.system) {
        error = "--system " + flags.system + ": " + flags.scenario_file + " is a " +
                selected->name() + " scenario";
        return false;
      }
    }
  } else {
    std::string name = flags.system;
    if (name.empty()) {
      if (flags.overrides.empty()) {
        error = "give --scenario FILE or --system NAME (`wsim list` shows the systems)";
        return false;
      }
      const System* system = system_from_overrides(flags.overrides, error);
      if (system == nullptr) return false;
      name = system->name();
    }
    if (!scenario_for_system(name, loaded, error)) return false;
  }
  for (const FieldOverride& o : flags.overrides) {
    if (!set_field(loaded, o.field, o.value, o.flag, error)) return false;
  }
  if (flags.seed) {
    loaded.scenario.set_seed(*flags.seed);
    loaded.overridden["seed"] = "--seed " + std::to_string(*flags.seed);
  }
  if (flags.fault_phase_ms) {
    loaded.scenario.set_fault_phase_ms(*flags.fault_phase_ms);
    loaded.overridden["fault_phase_ms"] =
        "--time-limit " + format_duration_ms(*flags.fault_phase_ms);
  }
  if (flags.settle_ms) {
    loaded.scenario.set_settle_ms(*flags.settle_ms);
    loaded.overridden["settle_ms"] = "--settle " + format_duration_ms(*flags.settle_ms);
  }
  if (!validate_scenario(loaded, error)) return false;
  WSIM_ASSERT(loaded.system != nullptr);
  if (!loaded.system->executable()) {
    error = loaded.system->executable_error();
    return false;
  }
  return true;
}

std::string repro_command(const ScenarioFlags& flags) {
  std::string out = "scripts/wsim run";
  if (!flags.scenario_file.empty()) out += " --scenario " + shell_quote(flags.scenario_file);
  if (!flags.bug.empty()) out += " --bug " + shell_quote(flags.bug);
  if (!flags.system.empty()) out += " --system " + shell_quote(flags.system);
  for (const FieldOverride& o : flags.overrides) {
    // The flag as typed: "--agent A0a" or "--set f=v"; re-quote the value part.
    const std::size_t space = o.flag.find(' ');
    out += " " + (space == std::string::npos
                      ? o.flag
                      : o.flag.substr(0, space) + " " + shell_quote(o.flag.substr(space + 1)));
  }
  if (flags.fault_phase_ms) out += " --time-limit " + format_duration_ms(*flags.fault_phase_ms);
  if (flags.settle_ms) out += " --settle " + format_duration_ms(*flags.settle_ms);
  if (flags.events_max != kDefaultEventsMax) {
    out += " --max-events " + std::to_string(flags.events_max);
  }
  return out;
}

}  // namespace wsim::run
