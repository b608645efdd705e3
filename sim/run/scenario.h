// Scenarios: loading (text-format protobuf), command-line overrides by field name (reflection)
// and validation (docs/architecture.md §6, §10).
//
// Scenario files come from other people's machines. Every problem is reported as
//   FILE:LINE:COL: field PATH: message
// (LINE and COL 1-based; "FILE: field PATH: message" when no position is known, e.g. for a value
// set on the command line), and nothing else happens: no crash, no unbounded allocation. Sizes,
// counts and durations are capped below.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <google/protobuf/text_format.h>

#include "sim/core/time.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/system.h"

namespace wsim::run {

inline constexpr std::size_t kScenarioBytesMax = 1 << 20;    // 1 MiB
inline constexpr DurationMs kPhaseMsMax = 7 * 24 * kHourMs;  // fault phase, settle: 7 days
inline constexpr int kScriptedEventsMax = 10'000;
inline constexpr int kFaultOverridesMax = 1'000;
inline constexpr int kExpectationsMax = 100;
inline constexpr int kEventArgsMax = 32;
inline constexpr std::size_t kFieldBytesMax = 4096;  // one string field
inline constexpr std::uint32_t kFireDenominatorMax = 1'000'000;
inline constexpr int kNestingMax = 16;
inline constexpr std::uint32_t kPinOccurrenceMax = 1'000'000;

// True when the override pins its point to one moment (FaultOverride fields 5-10: verb, object,
// actor, occurrence, from_ms, until_ms; docs/shrinking.md §6) rather than forcing it for the run.
bool is_pinned(const proto::FaultOverride& fault);

// A scenario and where it came from, so that errors can point into the file.
struct LoadedScenario {
  proto::Scenario scenario;
  const System* system = nullptr;  // Set by validate_scenario (and by scenario_for_system).
  std::string origin;              // The file path, or "command line".
  // Where each field was in the text (null when the scenario was not parsed from text).
  std::shared_ptr<const google::protobuf::TextFormat::ParseInfoTree> locations;
  // Fields set on the command line (dotted path from Scenario → the flag), so errors about them
  // name the flag rather than a line of the file.
  std::map<std::string, std::string> overridden;
  // A corpus bug's hunting scenario (sim/triage/corpus_bugs.h): the invariant it hunts for.
  std::string hunted_invariant;
};

// Parses text-format `text`; `origin` names it in errors. Rejects more than kScenarioBytesMax.
bool parse_scenario(std::string_view text, const std::string& origin, LoadedScenario& out,
                    std::string& error);
// Reads and parses a file (refusing files larger than kScenarioBytesMax before reading them).
bool load_scenario_file(const std::string& path, LoadedScenario& out, std::string& error);
// A scenario for `--system NAME`: the system's config message present and empty (defaults).
bool scenario_for_system(const std::string& system_name, LoadedScenario& out, std::string& error);

// Sets one field from its text value. `path` is either a field of the selected system's config
// message ("agent"), a top-level Scenario field ("settle_ms", "seed"), or a dotted path from the
// Scenario ("toy.namespaces"). Repeated scalars take a comma-separated list. *_ms fields also
// accept durations ("5m"). `flag` is how the user wrote it, for error messages.
bool set_field(LoadedScenario& loaded, const std::string& path, const std::string& value,
               const std::string& flag, std::string& error);

// The system the scenario selects (its `system` oneof), or null with an error.
const System* selected_system(const LoadedScenario& loaded, std::string& error);

// Checks caps, lets the system normalize its config (defaults, valid versions), fills the default
// phase lengths, checks expectations and fault names, and dry-runs the scripted events.
bool validate_scenario(LoadedScenario& loaded, std::string& error);

// The system's config message inside the scenario (the oneof member named like the system).
const google::protobuf::Message* config_of(const proto::Scenario& scenario, const System& system);
google::protobuf::Message* mutable_config_of(proto::Scenario& scenario, const System& system);

// The value of a config field as text ("A0a", "3", "true", comma-joined for repeated fields).
// Returns false for an unknown field.
bool config_value(const proto::Scenario& scenario, const System& system, const std::string& field,
                  std::string& value);
// "agent=A0a rails=R1 namespace_mode=unique workspaces=3": every config field, in number order.
std::string describe_config(const proto::Scenario& scenario, const System& system);
// "agent=A0a rails=R1 namespace_mode=unique": the version axes only.
std::string describe_versions(const proto::Scenario& scenario, const System& system);
// The values of the system's version axes, joined by '-' ("A0a-R1-unique"): for bundle names.
std::string version_tag(const proto::Scenario& scenario, const System& system);

// Text format of the scenario (deterministic: map entries sorted).
std::string scenario_to_text(const proto::Scenario& scenario);

// Reads a whole file of at most `bytes_max` bytes. False with an error naming the file if it is
// missing, unreadable or too large.
bool read_file_capped(const std::string& path, std::size_t bytes_max, std::string& out,
                      std::string& error);

}  // namespace wsim::run
