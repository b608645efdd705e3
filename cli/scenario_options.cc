// The flags scenario-selecting subcommands share (scenario_options.h): the fixed ones, and one flag
// per config field of every registered system, made by reflection over scenario.proto (a field
// named like a fixed flag gets none). Call after the systems are registered.
#include "cli/scenario_options.h"

#include <algorithm>
#include <set>

#include <google/protobuf/descriptor.h>

#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/system.h"

namespace wsim::cli {

namespace {

namespace pb = google::protobuf;
using run::FieldOverride;
using run::ScenarioFlags;

const std::set<std::string>& reserved_flags() {
  static const std::set<std::string> names = {
      "scenario", "bug",        "system",     "set",           "seed",       "time-limit",
      "settle",   "max-events", "out",        "ignore-expect", "print-hash", "time",
      "runs",     "jobs",       "seed-start", "keep-going",    "guided",     "seeds",
      "shard",    "summary",    "junit",      "help"};
  return names;
}

// Help text per config field name, over every registered system: "gitlab.agent (A0, A1, ...)";
// systems that share a field name share its flag.
std::map<std::string, std::string> config_field_help() {
  std::map<std::string, std::string> help;
  for (const run::System* system : run::systems()) {
    run::LoadedScenario loaded;
    std::string error;
    if (!run::scenario_for_system(system->name(), loaded, error)) continue;
    const pb::Message* config = run::config_of(loaded.scenario, *system);
    std::map<std::string, const run::VersionAxis*> axes;
    const std::vector<run::VersionAxis> axis_list = system->axes();
    for (const auto& axis : axis_list) axes[axis.field] = &axis;
    const pb::Descriptor* descriptor = config->GetDescriptor();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const pb::FieldDescriptor* field = descriptor->field(i);
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
      std::string text = system->name() + "." + field->name();
      auto axis = axes.find(field->name());
      if (axis != axes.end()) {
        text += " (";
        for (std::size_t k = 0; k < axis->second->values.size(); ++k) {
          text += (k ? ", " : "") + axis->second->values[k];
        }
        text += ")";
      }
      std::string& entry = help[field->name()];
      entry += (entry.empty() ? "" : "; ") + text;
    }
  }
  return help;
}

}  // namespace

void add_scenario_options(CLI::App& app, ScenarioOptions& options, bool with_seed) {
  app.add_option("--scenario", options.scenario, "scenario file (text-format protobuf)");
  app.add_option("--bug", options.bug,
                 "a known bug of the corpus, FILE#N (expect block N of a regression file): its "
                 "versions with a random workload; hunt stops at that invariant");
  std::string names;
  for (const run::System* system : run::systems()) {
    names += (names.empty() ? "" : ", ") + system->name();
  }
  app.add_option("--system", options.system, "system under test (" + names + ")");
  if (with_seed) app.add_option("--seed", options.seed, "seed of the choice source");
  app.add_option("--time-limit", options.time_limit,
                 "virtual length of the fault phase, e.g. 10m (default: the system's)");
  app.add_option("--settle", options.settle,
                 "virtual settle time after healing, e.g. 30m (default: the system's)");
  app.add_option("--max-events", options.events_max,
                 "event budget of one run (a harness error beyond it)");
  app.add_option("--set", options.sets, "set any scalar field: FIELD=VALUE (repeatable)")
      ->type_size(1)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  // One flag per config field, shared between systems that have the same field name.
  const std::map<std::string, std::string> help = config_field_help();
  for (const auto& [field, text] : help) {
    std::string flag = field;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (reserved_flags().count(flag)) continue;  // Reachable with --set FIELD=VALUE.
    auto& slot = options.fields[field];
    slot.first = app.add_option("--" + flag, slot.second, "config field " + text);
    slot.first->group("Version and config flags");
  }
}

// Turns the parsed options into ScenarioFlags; false (with a message) on malformed values.
bool to_flags(const ScenarioOptions& options, ScenarioFlags& flags, std::string& error) {
  flags.scenario_file = options.scenario;
  flags.bug = options.bug;
  flags.system = options.system;
  flags.events_max = options.events_max;
  for (const auto& [field, slot] : options.fields) {
    if (slot.first->count() == 0) continue;
    std::string flag = field;
    std::replace(flag.begin(), flag.end(), '_', '-');
    flags.overrides.push_back(FieldOverride{field, slot.second, "--" + flag + " " + slot.second});
  }
  for (const std::string& set : options.sets) {
    const std::size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      error = "--set " + set + ": expected FIELD=VALUE";
      return false;
    }
    flags.overrides.push_back(FieldOverride{set.substr(0, eq), set.substr(eq + 1), "--set " + set});
  }
  if (!options.seed.empty()) {
    std::uint64_t seed = 0;
    if (!run::parse_u64(options.seed, seed)) {
      error = "--seed " + options.seed + ": expected an unsigned 64-bit integer";
      return false;
    }
    flags.seed = seed;
  }
  DurationMs ms = 0;
  if (!options.time_limit.empty()) {
    if (!run::parse_duration_ms(options.time_limit, ms, error)) {
      error = "--time-limit: " + error;
      return false;
    }
    flags.fault_phase_ms = ms;
  }
  if (!options.settle.empty()) {
    if (!run::parse_duration_ms(options.settle, ms, error)) {
      error = "--settle: " + error;
      return false;
    }
    flags.settle_ms = ms;
  }
  return true;
}

}  // namespace wsim::cli
