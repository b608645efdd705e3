// Validating a scenario (scenario.h validate_scenario), in named phases.
#include "sim/run/scenario.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>

#include "sim/core/sim.h"
#include "sim/run/duration.h"
#include "sim/run/scenario_internal.h"
#include "sim/run/signature.h"

namespace wsim::run {

namespace pb = google::protobuf;
using namespace scenario_internal;  // NOLINT: the helpers shared by the scenario files.

// ---- Validation ----------------------------------------------------------------------------

namespace {

const pb::FieldDescriptor* scenario_field(const char* name) {
  const pb::FieldDescriptor* field = proto::Scenario::descriptor()->FindFieldByName(name);
  WSIM_ASSERT_MSG(field != nullptr, "scenario.proto has no field " << name);
  return field;
}

const pb::FieldDescriptor* message_field(const pb::Descriptor* descriptor, const char* name) {
  const pb::FieldDescriptor* field = descriptor->FindFieldByName(name);
  WSIM_ASSERT_MSG(field != nullptr, descriptor->name() << " has no field " << name);
  return field;
}

bool check_string(const LoadedScenario& loaded, const FieldPath& path, const std::string& value,
                  std::size_t bytes_max, std::string& error) {
  WSIM_ASSERT_GT(bytes_max, 0u);
  WSIM_ASSERT(!path.empty());  // A string is located by its field.
  if (value.size() <= bytes_max) return true;
  error = locate(loaded, path,
                 "value is " + std::to_string(value.size()) + " bytes; the limit is " +
                     std::to_string(bytes_max));
  return false;
}

bool check_phase(const LoadedScenario& loaded, const char* name, std::int64_t value,
                 std::string& error) {
  WSIM_ASSERT(name != nullptr);
  if (value >= 0 && value <= kPhaseMsMax) return true;
  error = locate(loaded, {{scenario_field(name), -1}},
                 std::to_string(value) + " is out of range (0 = the system's default, at most " +
                     std::to_string(kPhaseMsMax) + " ms = 7 days)");
  return false;
}

// The config field named in a normalize() error, so the error can point at its line.
// N when the message names element N of the repeated field `field` at `at` ("invariants[2]: ..."
// → 2), so the error points at that element's line; -1 otherwise (the field as a whole).
int repeated_index(const std::string& message, std::size_t at, const pb::FieldDescriptor& field) {
  WSIM_ASSERT_LE(at + field.name().size(), message.size());  // `at` is where the name was found.
  if (!field.is_repeated()) return -1;
  std::size_t i = at + field.name().size();
  if (i >= message.size() || message[i] != '[') return -1;
  int index = 0;
  std::size_t digits = 0;
  for (++i; i < message.size() && message[i] >= '0' && message[i] <= '9' && digits < 6; ++i) {
    index = index * 10 + (message[i] - '0');
    ++digits;
  }
  if (digits == 0 || i >= message.size() || message[i] != ']') return -1;
  return index;
}

FieldPath path_for_system_error(const proto::Scenario& scenario, const System& system,
                                const std::string& message) {
  const pb::FieldDescriptor* config_field =
      proto::Scenario::descriptor()->FindFieldByName(system.name());
  WSIM_ASSERT(config_field != nullptr);  // selected_system found the system by this field.
  WSIM_ASSERT(!message.empty());         // normalize() said what is wrong.
  FieldPath path{{config_field, -1}};
  const pb::Message* config = config_of(scenario, system);
  if (config == nullptr) return path;
  const pb::Descriptor* descriptor = config->GetDescriptor();
  std::size_t best = std::string::npos;
  const pb::FieldDescriptor* best_field = nullptr;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const std::string& name = descriptor->field(i)->name();
    for (std::size_t at = message.find(name); at != std::string::npos;
         at = message.find(name, at + 1)) {
      const bool start_ok = at == 0 || !ident_char(message[at - 1]);
      const bool end_ok =
          at + name.size() == message.size() || !ident_char(message[at + name.size()]);
      if (start_ok && end_ok) {
        if (at < best) {
          best = at;
          best_field = descriptor->field(i);
        }
        break;
      }
    }
  }
  if (best_field != nullptr)
    path.emplace_back(best_field, repeated_index(message, best, *best_field));
  WSIM_ASSERT_LE(path.size(), 2u);  // The config field, then at most one of its fields.
  return path;
}

}  // namespace

// `go_past` entries (issue #12): at most kExpectationsMax, each naming a safety invariant of the
// system and an object.
bool validate_go_past(const LoadedScenario& loaded, const std::vector<InvariantInfo>& invariants,
                      std::string& error) {
  const proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* go_past_field = scenario_field("go_past");
  WSIM_ASSERT(go_past_field != nullptr);
  if (scenario.go_past_size() > kExpectationsMax) {
    error = locate(loaded, {{go_past_field, kExpectationsMax}},
                   "more than " + std::to_string(kExpectationsMax) + " go_past entries");
    return false;
  }
  const pb::Descriptor* kd = proto::KnownViolation::descriptor();
  for (int i = 0; i < scenario.go_past_size(); ++i) {
    const proto::KnownViolation& entry = scenario.go_past(i);
    const auto safety = std::find_if(invariants.begin(), invariants.end(), [&](const auto& info) {
      return info.id == entry.invariant() && info.kind == InvariantKind::kSafety;
    });
    if (safety == invariants.end()) {
      error = locate(loaded, {{go_past_field, i}, {message_field(kd, "invariant"), -1}},
                     "'" + entry.invariant().substr(0, 64) +
                         "' is not a safety invariant of this system (`wsim list`)");
      return false;
    }
    if (entry.object().empty()) {
      error = locate(loaded, {{go_past_field, i}, {message_field(kd, "object"), -1}},
                     "a go_past entry needs the object of the violation");
      return false;
    }
  }
  return true;
}

namespace {

// The phases of validate_scenario, in order: each checks one part of the scenario and may
// assume the phases before it passed.
enum class ValidationPhase {
  kHeader,          // name, description, phase lengths
  kFaultOverrides,  // counts and fire ratios (names: kDryRun)
  kScriptedEvents,  // counts, times, sizes
  kSystemChecks,    // System::normalize, the defaults, events inside the fault phase
  kExpectations,    // known invariants of the right kind, `when` keys naming config fields
  kGoPast,          // go_past entries
  kEvidence,        // upstream, needs (scenario_evidence.cc)
  kDryRun,          // a throwaway world: fault names declared, scripted events understood
};
constexpr ValidationPhase kValidationPhases[] = {
    ValidationPhase::kHeader,         ValidationPhase::kFaultOverrides,
    ValidationPhase::kScriptedEvents, ValidationPhase::kSystemChecks,
    ValidationPhase::kExpectations,   ValidationPhase::kGoPast,
    ValidationPhase::kEvidence,       ValidationPhase::kDryRun};

// muted_actors: at most kMutedActorsMax exact names of the system's external actors.
bool validate_muted_actors(const LoadedScenario& loaded, const System& system, std::string& error) {
  constexpr int kMutedActorsMax = 256;
  const proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* field = scenario_field("muted_actors");
  if (scenario.muted_actors_size() > kMutedActorsMax) {
    error = locate(loaded, {{field, kMutedActorsMax}},
                   "more than " + std::to_string(kMutedActorsMax) + " muted actors");
    return false;
  }
  const std::set<std::string, std::less<>> external = external_actors_of(system);
  WSIM_ASSERT(!external.empty());  // user, kubectl and admin at least (external_actors_of).
  for (int i = 0; i < scenario.muted_actors_size(); ++i) {
    const std::string& name = scenario.muted_actors(i);
    if (!check_string(loaded, {{field, i}}, name, 200, error)) return false;
    if (external.contains(name.substr(0, name.find('/')))) continue;
    std::string names;
    for (const std::string& actor : external) names += (names.empty() ? "" : ", ") + actor;
    error = locate(loaded, {{field, i}},
                   "'" + name.substr(0, 64) +
                       "' is not an external actor of this system (an actor name starting with " +
                       names + ", e.g. \"user/ws1\")");
    return false;
  }
  return true;
}

// Name, description and phase lengths.
bool validate_header(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  if (!check_string(loaded, {{scenario_field("name"), -1}}, scenario.name(), 200, error) ||
      !check_string(loaded, {{scenario_field("description"), -1}}, scenario.description(),
                    64 * 1024, error) ||
      !check_phase(loaded, "fault_phase_ms", scenario.fault_phase_ms(), error) ||
      !check_phase(loaded, "settle_ms", scenario.settle_ms(), error)) {
    return false;
  }
  const std::string& bug = scenario.bug();
  const bool token = std::all_of(bug.begin(), bug.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
  if (!token || bug.size() > 40) {
    error = locate(
        loaded, {{scenario_field("bug"), -1}},
        "'" + bug.substr(0, 60) + "' is not a bug id (letters, digits, '-', '_'; at most 40)");
    return false;
  }
  return validate_muted_actors(loaded, system, error);
}

// A pinned override's values (FaultOverride fields 5-10; docs/shrinking.md §6). Whether the
// point takes a request target is checked in the dry run, where the points are declared.
bool validate_fault_pin(LoadedScenario& loaded, int i, std::string& error) {
  WSIM_ASSERT_GE(i, 0);
  WSIM_ASSERT_LT(i, loaded.scenario.faults_size());
  const proto::FaultOverride& fault = loaded.scenario.faults(i);
  WSIM_ASSERT(is_pinned(fault));  // validate_fault_overrides sends only pinned ones here.
  const pb::FieldDescriptor* faults_field = scenario_field("faults");
  const pb::Descriptor* d = proto::FaultOverride::descriptor();
  auto at = [&](const char* field, const std::string& message) {
    error = locate(loaded, {{faults_field, i}, {message_field(d, field), -1}}, message);
    return false;
  };
  if (!fault.enabled()) {
    return at("enabled",
              "a pinned override (verb, object, actor, occurrence, from_ms or "
              "until_ms set) fires at its moment: it needs enabled: true");
  }
  if (fault.fire_num() != 0 || fault.fire_den() != 0) {
    return at("fire_den", "a pinned override fires without a draw: it takes no fire ratio");
  }
  static constexpr const char* kVerbs[] = {"get",    "list",  "watch",  "create",
                                           "update", "patch", "delete", "apply"};
  if (!fault.verb().empty() &&
      std::find(std::begin(kVerbs), std::end(kVerbs), fault.verb()) == std::end(kVerbs)) {
    return at("verb", "'" + fault.verb().substr(0, 60) +
                          "' is not an API verb (get, list, watch, create, update, patch, delete, "
                          "apply)");
  }
  for (const char* field : {"object", "actor"}) {
    const std::string& value = std::string(field) == "object" ? fault.object() : fault.actor();
    if (!check_string(loaded, {{faults_field, i}, {message_field(d, field), -1}}, value, 256,
                      error)) {
      return false;
    }
  }
  if (fault.occurrence() > kPinOccurrenceMax) {
    return at("occurrence", std::to_string(fault.occurrence()) + " is out of range (0 or 1 = " +
                                "the first, at most " + std::to_string(kPinOccurrenceMax) + ")");
  }
  if (fault.has_from_ms() && (fault.from_ms() < 0 || fault.from_ms() > kPhaseMsMax)) {
    return at("from_ms", std::to_string(fault.from_ms()) + " is out of range (0 to " +
                             std::to_string(kPhaseMsMax) + " ms = 7 days)");
  }
  const std::int64_t from_ms = fault.has_from_ms() ? fault.from_ms() : 0;
  if (fault.has_until_ms() && (fault.until_ms() <= from_ms || fault.until_ms() > kPhaseMsMax)) {
    return at("until_ms", std::to_string(fault.until_ms()) + " is out of range (after from_ms " +
                              std::to_string(from_ms) + ", at most " + std::to_string(kPhaseMsMax) +
                              " ms = 7 days)");
  }
  return true;
}

// Fault overrides: counts and ratios (names are checked against the declared points in
// the dry run).
bool validate_fault_overrides(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  // The header phase passed (kValidationPhases order).
  WSIM_ASSERT_LE(scenario.fault_phase_ms(), kPhaseMsMax);
  const pb::FieldDescriptor* faults_field = scenario_field("faults");
  if (scenario.faults_size() > kFaultOverridesMax) {
    error = locate(loaded, {{faults_field, kFaultOverridesMax}},
                   "more than " + std::to_string(kFaultOverridesMax) + " fault overrides");
    return false;
  }
  for (int i = 0; i < scenario.faults_size(); ++i) {
    const proto::FaultOverride& fault = scenario.faults(i);
    const pb::Descriptor* d = proto::FaultOverride::descriptor();
    if (!check_string(loaded, {{faults_field, i}, {message_field(d, "name"), -1}}, fault.name(),
                      256, error)) {
      return false;
    }
    if (is_pinned(fault)) {
      if (!validate_fault_pin(loaded, i, error)) return false;
      continue;
    }
    if (fault.fire_num() == 0 && fault.fire_den() == 0) continue;
    if (fault.fire_den() == 0 || fault.fire_num() > fault.fire_den() ||
        fault.fire_den() > kFireDenominatorMax) {
      error = locate(
          loaded, {{faults_field, i}, {message_field(d, "fire_den"), -1}},
          "fire ratio " + std::to_string(fault.fire_num()) + "/" +
              std::to_string(fault.fire_den()) + " is not a probability (need 0 <= " +
              "fire_num <= fire_den, 0 < fire_den <= " + std::to_string(kFireDenominatorMax) + ")");
      return false;
    }
  }
  return true;
}

// Scripted events: counts, times, sizes.
bool validate_scripted_events(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  // The phases before passed: the header and the fault overrides.
  WSIM_ASSERT_LE(scenario.settle_ms(), kPhaseMsMax);
  WSIM_ASSERT_LE(scenario.faults_size(), kFaultOverridesMax);
  const pb::FieldDescriptor* events_field = scenario_field("events");
  if (scenario.events_size() > kScriptedEventsMax) {
    error = locate(loaded, {{events_field, kScriptedEventsMax}},
                   "more than " + std::to_string(kScriptedEventsMax) + " scripted events");
    return false;
  }
  const pb::Descriptor* ed = proto::ScriptedEvent::descriptor();
  for (int i = 0; i < scenario.events_size(); ++i) {
    const proto::ScriptedEvent& event = scenario.events(i);
    if (event.at_ms() < 0 || event.at_ms() > kPhaseMsMax) {
      error = locate(loaded, {{events_field, i}, {message_field(ed, "at_ms"), -1}},
                     std::to_string(event.at_ms()) + " is out of range (0 .. 7 days)");
      return false;
    }
    if (!check_string(loaded, {{events_field, i}, {message_field(ed, "actor"), -1}}, event.actor(),
                      256, error) ||
        !check_string(loaded, {{events_field, i}, {message_field(ed, "action"), -1}},
                      event.action(), 256, error) ||
        !check_string(loaded, {{events_field, i}, {message_field(ed, "target"), -1}},
                      event.target(), 256, error)) {
      return false;
    }
    if (event.action().empty()) {
      error = locate(loaded, {{events_field, i}, {message_field(ed, "action"), -1}},
                     "a scripted event needs an action (`wsim list` shows them)");
      return false;
    }
    if (event.args_size() > kEventArgsMax) {
      error = locate(loaded, {{events_field, i}, {message_field(ed, "args"), -1}},
                     "more than " + std::to_string(kEventArgsMax) + " args");
      return false;
    }
    for (const auto& [key, value] : event.args()) {
      if (key.size() > 256 || value.size() > kFieldBytesMax) {
        error = locate(loaded, {{events_field, i}, {message_field(ed, "args"), -1}},
                       "arg '" + key.substr(0, 64) + "' is too long");
        return false;
      }
    }
  }
  return true;
}

// The system's own checks and defaults; scripted events inside the fault phase.
bool validate_system_checks(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* events_field = scenario_field("events");
  const pb::Descriptor* ed = proto::ScriptedEvent::descriptor();
  WSIM_ASSERT_LE(scenario.events_size(), kScriptedEventsMax);  // The scripted-events phase passed.
  std::string problem;
  if (!system.normalize(scenario, problem)) {
    const FieldPath path = path_for_system_error(scenario, system, problem);
    WSIM_ASSERT(!path.empty());
    // Systems often prefix their message with the field ("gitlab.agent: ..."): say it once.
    for (const std::string& prefix : {path_name(path) + ": ", path.back().first->name() + ": "}) {
      if (problem.rfind(prefix, 0) == 0) {
        problem.erase(0, prefix.size());
        break;
      }
    }
    error = locate(loaded, path, problem);
    return false;
  }
  if (scenario.fault_phase_ms() == 0) scenario.set_fault_phase_ms(system.default_fault_phase_ms());
  if (scenario.settle_ms() == 0) scenario.set_settle_ms(system.default_settle_ms());
  WSIM_ASSERT_GT(scenario.fault_phase_ms(), 0);  // A system's default phase is never empty.
  for (int i = 0; i < scenario.events_size(); ++i) {
    if (scenario.events(i).at_ms() > scenario.fault_phase_ms()) {
      error = locate(loaded, {{events_field, i}, {message_field(ed, "at_ms"), -1}},
                     "scripted event at " + format_duration_ms(scenario.events(i).at_ms()) +
                         " is after the fault phase, which ends at " +
                         format_duration_ms(scenario.fault_phase_ms()) +
                         " (external actions stop when the world heals)");
      return false;
    }
  }
  return true;
}

// Expectation `i`: `when` keys naming config fields, a verdict, a known invariant of its kind.
bool validate_expectation(const LoadedScenario& loaded, const System& system,
                          const std::vector<InvariantInfo>& invariants, int i, std::string& error) {
  const proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* expect_field = scenario_field("expect");
  const pb::Descriptor* xd = proto::Expectation::descriptor();
  WSIM_ASSERT_GE(i, 0);
  WSIM_ASSERT_LT(i, scenario.expect_size());
  // The error below lists the config's fields: the selected system has one.
  WSIM_ASSERT(config_of(scenario, system) != nullptr);
  const proto::Expectation& expect = scenario.expect(i);
  auto fail = [&](const char* field, const std::string& message) {
    error = locate(loaded, {{expect_field, i}, {message_field(xd, field), -1}}, message);
    return false;
  };
  for (const auto& [key, value] : expect.when()) {
    std::string actual;
    if (!config_value(scenario, system, key, actual)) {
      return fail("when",
                  "'" + key.substr(0, 64) + "' is not a field of " + system.name() + " (fields: " +
                      field_names(config_of(scenario, system)->GetDescriptor(), true) + ")");
    }
  }
  if (expect.verdict() == proto::VERDICT_UNSPECIFIED) {
    return fail("verdict",
                "an expectation needs a verdict: PASS, SAFETY_VIOLATION or LIVENESS_VIOLATION");
  }
  if (expect.verdict() == proto::PASS) {
    if (!expect.invariant().empty())
      return fail("invariant", "a PASS expectation names no invariant");
    return true;
  }
  const InvariantKind kind = expect.verdict() == proto::SAFETY_VIOLATION ? InvariantKind::kSafety
                                                                         : InvariantKind::kLiveness;
  const InvariantInfo* found = nullptr;
  for (const InvariantInfo& info : invariants) {
    if (info.id == expect.invariant()) found = &info;
  }
  if (found == nullptr) {
    std::string ids;
    for (const InvariantInfo& info : invariants) {
      if (info.kind != kind) continue;
      if (!ids.empty()) ids += ", ";
      ids += info.id;
    }
    return fail("invariant",
                expect.invariant().empty()
                    ? "a violation expectation needs the invariant id (" + ids + ")"
                    : "unknown invariant '" + expect.invariant().substr(0, 64) + "' (" + ids + ")");
  }
  if (found->kind != kind) {
    return fail("invariant", found->id + " is a " +
                                 (found->kind == InvariantKind::kSafety ? "safety" : "liveness") +
                                 " invariant, but the verdict is " +
                                 proto::Verdict_Name(expect.verdict()));
  }
  return true;
}

// Expectations: at most kExpectationsMax, each valid (validate_expectation).
bool validate_expectations(LoadedScenario& loaded, const System& system, std::string& error) {
  const proto::Scenario& scenario = loaded.scenario;
  WSIM_ASSERT_GT(scenario.fault_phase_ms(), 0);  // The system checks set the defaults.
  if (scenario.expect_size() > kExpectationsMax) {
    error = locate(loaded, {{scenario_field("expect"), kExpectationsMax}},
                   "more than " + std::to_string(kExpectationsMax) + " expectations");
    return false;
  }
  const std::vector<InvariantInfo> invariants = system.invariants();
  for (int i = 0; i < scenario.expect_size(); ++i) {
    if (!validate_expectation(loaded, system, invariants, i, error)) return false;
  }
  return true;
}

// Dry run on a throwaway world: fault names must be declared; every scripted event must be
// understood by the system.
bool validate_dry_run(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* faults_field = scenario_field("faults");
  const pb::FieldDescriptor* events_field = scenario_field("events");
  Sim dummy(ChoiceSource::from_seed(scenario.seed()));
  std::unique_ptr<SystemRun> run = system.create(dummy, scenario);
  WSIM_ASSERT(run != nullptr);
  const pb::Descriptor* fd = proto::FaultOverride::descriptor();
  for (int i = 0; i < scenario.faults_size(); ++i) {
    FaultId id = 0;
    if (!dummy.faults().find(scenario.faults(i).name(), id)) {
      std::string names;
      std::set<std::string> sorted;
      for (std::size_t k = 0; k < dummy.faults().size(); ++k) {
        sorted.insert(dummy.faults().point(static_cast<FaultId>(k)).name);
      }
      for (const std::string& name : sorted) names += (names.empty() ? "" : ", ") + name;
      error = locate(loaded, {{faults_field, i}, {message_field(fd, "name"), -1}},
                     "unknown fault point '" + scenario.faults(i).name() + "' (" + names + ")");
      return false;
    }
    // A request target (verb, object, actor) only means something for the points the API server
    // evaluates per request (sim/core/fault.h set_per_request).
    const proto::FaultOverride& fault = scenario.faults(i);
    const char* target = !fault.verb().empty()     ? "verb"
                         : !fault.object().empty() ? "object"
                         : !fault.actor().empty()  ? "actor"
                                                   : nullptr;
    if (target != nullptr && !dummy.faults().point(id).per_request) {
      std::string request_points;
      for (std::size_t k = 0; k < dummy.faults().size(); ++k) {
        const FaultPoint& point = dummy.faults().point(static_cast<FaultId>(k));
        if (point.per_request) request_points += (request_points.empty() ? "" : ", ") + point.name;
      }
      error = locate(loaded, {{faults_field, i}, {message_field(fd, target), -1}},
                     "fault point '" + fault.name() +
                         "' is not evaluated per API request, so a pin on it takes no verb, "
                         "object or actor (only occurrence, from_ms, until_ms); request points: " +
                         request_points);
      return false;
    }
  }
  if (scenario.events_size() > 0) {
    run->start();
    for (int i = 0; i < scenario.events_size(); ++i) {
      std::string why;
      if (!run->perform(scenario.events(i), why)) {
        error = locate(loaded, {{events_field, i}}, why);
        return false;
      }
    }
  }
  WSIM_ASSERT_EQ(dummy.now_ms(), 0);  // A dry run runs no event.
  return true;
}

bool validate_phase(ValidationPhase phase, LoadedScenario& loaded, const System& system,
                    std::string& error) {
  WSIM_ASSERT(loaded.system == &system);  // validate_scenario selected it first.
  switch (phase) {
    case ValidationPhase::kHeader:
      return validate_header(loaded, system, error);
    case ValidationPhase::kFaultOverrides:
      return validate_fault_overrides(loaded, system, error);
    case ValidationPhase::kScriptedEvents:
      return validate_scripted_events(loaded, system, error);
    case ValidationPhase::kSystemChecks:
      return validate_system_checks(loaded, system, error);
    case ValidationPhase::kExpectations:
      return validate_expectations(loaded, system, error);
    case ValidationPhase::kGoPast:
      return validate_go_past(loaded, system.invariants(), error);
    case ValidationPhase::kEvidence:
      return validate_evidence(loaded, system, error);
    case ValidationPhase::kDryRun:
      return validate_dry_run(loaded, system, error);
  }
  WSIM_ASSERT(false);
  return false;
}

}  // namespace

bool validate_scenario(LoadedScenario& loaded, std::string& error) {
  const System* system = selected_system(loaded, error);
  if (system == nullptr) return false;
  loaded.system = system;
  for (ValidationPhase phase : kValidationPhases) {
    if (!validate_phase(phase, loaded, *system, error)) {
      WSIM_ASSERT(!error.empty());  // Bad input gets an error naming file, line and field.
      return false;
    }
  }
  // Normalized: the driver relies on the phase lengths being set.
  WSIM_ASSERT_GT(loaded.scenario.fault_phase_ms(), 0);
  return true;
}

}  // namespace wsim::run
