// Scenario loading, validation and command-line overrides (sim/run/scenario.h): every bad input
// gets an error naming the file, the line and column, and the field (docs/architecture.md §10).
#include "sim/run/scenario.h"

#include <algorithm>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/run/driver.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using testing::register_test_systems;
using ::testing::StartsWith;

// Parses and validates `text` as file "s.textproto"; returns the error ("" when it is valid).
std::string error_of(const std::string& text) {
  register_test_systems();
  LoadedScenario loaded;
  std::string error;
  if (!parse_scenario(text, "s.textproto", loaded, error)) return error;
  if (!validate_scenario(loaded, error)) return error;
  return "";
}

TEST(ScenarioTest, ValidScenarioIsNormalized) {
  LoadedScenario loaded = testing::scenario_from_text("name: \"ok\"\ntoy { }\n");
  ASSERT_NE(loaded.system, nullptr);
  EXPECT_EQ(loaded.system->name(), "toy");
  EXPECT_EQ(loaded.scenario.toy().version(), "T1");
  EXPECT_EQ(loaded.scenario.toy().namespaces(), 3u);
  EXPECT_EQ(loaded.scenario.fault_phase_ms(), loaded.system->default_fault_phase_ms());
  EXPECT_EQ(loaded.scenario.settle_ms(), loaded.system->default_settle_ms());
  EXPECT_EQ(describe_config(loaded.scenario, *loaded.system),
            "version=T1 namespaces=3 actors=3 counters=1");
  EXPECT_EQ(version_tag(loaded.scenario, *loaded.system), "T1");
}

TEST(ScenarioTest, MalformedTextNamesLineColumnAndField) {
  EXPECT_EQ(error_of("name: \"x\"\ntoy {\n  version: \"T1\"\n"),
            "s.textproto:4:1: field toy: Expected identifier, got: end of file (is a closing '}' "
            "missing?)");
  EXPECT_THAT(error_of("name: \"x\"\nfault_phase_ms: abc\ntoy { }\n"),
              StartsWith("s.textproto:2:17: field fault_phase_ms: Expected integer"));
  EXPECT_THAT(error_of("toy { namespaces: -1 }\n"),
              StartsWith("s.textproto:1:19: field toy.namespaces:"));
}

TEST(ScenarioTest, UnknownFieldIsNamed) {
  EXPECT_EQ(error_of("name: \"x\"\ntoy {\n  verzion: \"T1\"\n}\n"),
            "s.textproto:3:10: field toy.verzion: Message type \"wsim.proto.ToyConfig\" has no "
            "field named \"verzion\".");
}

// muted_actors (docs/shrinking.md "Muting actors") names external actors only: muting a
// controller would make a world that cannot exist.
TEST(ScenarioTest, MutedActorsMustBeExternalActors) {
  EXPECT_EQ(error_of("toy { }\nmuted_actors: \"user/ws1\"\nmuted_actors: \"kubectl\"\n"), "");
  EXPECT_THAT(error_of("toy { }\nmuted_actors: \"user/ws1\"\nmuted_actors: \"ws-manager\"\n"),
              StartsWith("s.textproto:3:"));
  EXPECT_THAT(error_of("toy { }\nmuted_actors: \"ws-manager\"\n"),
              HasSubstr("field muted_actors[0]: 'ws-manager' is not an external actor"));
}

TEST(ScenarioTest, BadEnumIsNamed) {
  EXPECT_THAT(error_of("toy { }\nexpect { verdict: PAS }\n"), StartsWith("s.textproto:2:"));
  EXPECT_THAT(error_of("toy { }\nexpect { verdict: PAS }\n"),
              HasSubstr("field expect.verdict: Unknown enumeration value of \"PAS\""));
}

TEST(ScenarioTest, BadVersionPointsAtTheVersionField) {
  EXPECT_EQ(error_of("name: \"x\"\ntoy {\n  namespaces: 2\n  version: \"T9\"\n}\n"),
            "s.textproto:4:3: field toy.version: version \"T9\" is not one of: buggy, T1");
  EXPECT_EQ(error_of("toy { actors: 99 }\n"),
            "s.textproto:1:7: field toy.actors: actors 99 is out of range 1..8");
}

TEST(ScenarioTest, OversizeInputIsRejectedBeforeParsing) {
  const std::string big(kScenarioBytesMax + 1, '#');
  EXPECT_THAT(error_of(big), HasSubstr("the limit is 1048576 bytes"));
  const std::string dir = testing::scratch_dir("oversize");
  testing::write_text(dir + "/big.textproto", "# " + std::string(kScenarioBytesMax, 'x') + "\n");
  LoadedScenario loaded;
  std::string error;
  EXPECT_FALSE(load_scenario_file(dir + "/big.textproto", loaded, error));
  EXPECT_THAT(error, StartsWith(dir + "/big.textproto: file is 1048579 bytes; the limit is"));
  EXPECT_FALSE(load_scenario_file(dir + "/missing.textproto", loaded, error));
  EXPECT_THAT(error, HasSubstr("missing.textproto: cannot read"));
  EXPECT_FALSE(load_scenario_file(dir, loaded, error));
  EXPECT_THAT(error, HasSubstr("not a regular file"));
}

TEST(ScenarioTest, MissingOrUnknownSystem) {
  EXPECT_THAT(error_of("name: \"x\"\n"),
              StartsWith("s.textproto: field system: no system selected; add one of:"));
  // gitlab is in scenario.proto but not linked into the test binary.
  EXPECT_THAT(error_of("gitlab { agent: \"A0a\" }\n"),
              StartsWith("s.textproto:1:1: field gitlab: system 'gitlab' is not linked"));
  EXPECT_THAT(error_of("toy { }\nselftest { }\n"), HasSubstr("another member of oneof"));
}

TEST(ScenarioTest, CapsOnCountsDurationsAndRatios) {
  EXPECT_EQ(error_of("toy { }\nfault_phase_ms: -5\n"),
            "s.textproto:2:1: field fault_phase_ms: -5 is out of range (0 = the system's "
            "default, at most 604800000 ms = 7 days)");
  EXPECT_THAT(error_of("toy { }\nsettle_ms: 999999999999\n"),
              StartsWith("s.textproto:2:1: field settle_ms: 999999999999 is out of range"));
  EXPECT_EQ(error_of("toy { }\nfaults { name: \"toy.actor.crash\" fire_num: 3 fire_den: 2 }\n"),
            "s.textproto:2:46: field faults[0].fire_den: fire ratio 3/2 is not a probability "
            "(need 0 <= fire_num <= fire_den, 0 < fire_den <= 1000000)");
  EXPECT_THAT(error_of("toy { }\nfaults { name: \"nope\" }\n"),
              StartsWith("s.textproto:2:10: field faults[0].name: unknown fault point 'nope' ("));
  EXPECT_THAT(error_of("toy { }\nevents { at_ms: -1 action: \"x\" }\n"),
              StartsWith("s.textproto:2:10: field events[0].at_ms: -1 is out of range"));
  EXPECT_THAT(
      error_of("toy { }\nfault_phase_ms: 1000\nevents { at_ms: 2000 actor: \"kubectl\" action: "
               "\"delete_namespace\" target: \"toy-0\" }\n"),
      HasSubstr("field events[0].at_ms: scripted event at 2.000s is after the fault phase"));
  std::string many = "toy { }\n";
  for (int i = 0; i <= kScriptedEventsMax; ++i) many += "events { action: \"a\" }\n";
  EXPECT_THAT(error_of(many), HasSubstr("more than 10000 scripted events"));
  EXPECT_THAT(error_of("toy { }\nevents { at_ms: 1 actor: \"kubectl\" }\n"),
              HasSubstr("field events[0].action: a scripted event needs an action"));
}

// Pinned fault overrides (docs/shrinking.md §6): each bad value is named with its file, line and
// field; a request target on a point the API server does not evaluate per request is refused.
TEST(ScenarioTest, PinnedFaultOverridesAreChecked) {
  auto pinned = [](const std::string& fields) {
    return error_of("toy { }\nfaults { name: \"kube.api.timeout_lost_request\" " + fields + " }\n");
  };
  EXPECT_THAT(error_of("toy { }\nfaults { name: \"toy.actor.crash\" enabled: true verb: "
                       "\"create\" }\n"),
              StartsWith("s.textproto:2:48: field faults[0].verb: fault point 'toy.actor.crash' is "
                         "not evaluated per API request, so a pin on it takes no verb, object or "
                         "actor (only occurrence, from_ms, until_ms); request points: "
                         "kube.api.conflict, kube.api.error5xx,"));
  EXPECT_EQ(pinned("enabled: true verb: \"frob\""),
            "s.textproto:2:62: field faults[0].verb: 'frob' is not an API verb (get, list, "
            "watch, create, update, patch, delete, apply)");
  EXPECT_EQ(pinned("verb: \"create\""),
            "s.textproto:2:1: field faults[0].enabled: a pinned override (verb, object, actor, "
            "occurrence, from_ms or until_ms set) fires at its moment: it needs enabled: true");
  EXPECT_EQ(pinned("enabled: true occurrence: 2 fire_num: 1 fire_den: 2"),
            "s.textproto:2:88: field faults[0].fire_den: a pinned override fires without a draw: "
            "it takes no fire ratio");
  EXPECT_EQ(pinned("enabled: true from_ms: 5000 until_ms: 5000"),
            "s.textproto:2:76: field faults[0].until_ms: 5000 is out of range (after from_ms "
            "5000, at most 604800000 ms = 7 days)");
  EXPECT_EQ(pinned("enabled: true occurrence: 2000000"),
            "s.textproto:2:62: field faults[0].occurrence: 2000000 is out of range (0 or 1 = the "
            "first, at most 1000000)");
  EXPECT_EQ(pinned("enabled: true from_ms: -1"),
            "s.textproto:2:62: field faults[0].from_ms: -1 is out of range (0 to 604800000 ms = "
            "7 days)");
  EXPECT_THAT(pinned("enabled: true object: \"" + std::string(300, 'x') + "\""),
              StartsWith("s.textproto:2:62: field faults[0].object: value is 300 bytes"));
  // Valid: a window pin on a point evaluated outside requests; a request pin with its target.
  EXPECT_EQ(error_of("toy { }\nfaults { name: \"toy.actor.crash\" enabled: true occurrence: 3 "
                     "until_ms: 9000 }\n"),
            "");
  EXPECT_EQ(pinned("enabled: true verb: \"update\" object: \"ConfigMap/toy-1/counter-0\" "
                   "actor: \"toy/actor-2\" occurrence: 5 from_ms: 100 until_ms: 200000"),
            "");
}

// A request pin fires exactly at the named request (the 5th update of one ConfigMap by one
// actor) and nowhere else, although the seed's swarm enables the point (14 random lost requests
// without the pin); a second pin takes the first matching request from 60 s on.
TEST(ScenarioTest, PinnedFaultFiresAtTheNamedRequestAndNowhereElse) {
  constexpr const char* kLost = "kube.api.timeout_lost_request";
  constexpr const char* kObject = "ConfigMap/toy-1/counter-0";
  RunOptions keep;
  keep.keep_trace = true;
  auto firings = [&](const RunResult& run) {
    std::vector<const TraceEvent*> out;
    for (const TraceEvent& event : run.trace) {
      if (std::find(event.faults.begin(), event.faults.end(), kLost) != event.faults.end()) {
        out.push_back(&event);
      }
    }
    return out;
  };
  LoadedScenario plain = testing::scenario_from_text("seed: 3 toy { }\n");
  const RunResult unpinned = execute_run(*plain.system, plain.scenario, keep);
  EXPECT_GT(firings(unpinned).size(), 2u);

  LoadedScenario loaded = testing::scenario_from_text(
      std::string("seed: 3 toy { }\n") + "faults { name: \"" + kLost +
      "\" enabled: true verb: \"update\" object: \"" + kObject +
      "\" actor: \"toy/actor-2\" occurrence: 5 }\n" + "faults { name: \"" + kLost +
      "\" enabled: true verb: \"update\" object: \"" + kObject + "\" from_ms: 60000 }\n");
  const RunResult run = execute_run(*loaded.system, loaded.scenario, keep);
  const std::vector<const TraceEvent*> fired = firings(run);
  ASSERT_EQ(fired.size(), 2u);
  // The first: the 5th request of (toy/actor-2, update, the object) that reached the server.
  int seen = 0;
  const TraceEvent* fifth = nullptr;
  const TraceEvent* after_60s = nullptr;
  for (const TraceEvent& event : run.trace) {
    if (event.verb != "update" || event.object != kObject) continue;
    if (after_60s == nullptr && event.time_ms >= 60000) after_60s = &event;
    if (event.actor == "toy/actor-2" && ++seen == 5) fifth = &event;
  }
  EXPECT_EQ(fired[0], fifth);
  EXPECT_EQ(fired[0]->result, "lost");
  EXPECT_EQ(fired[1], after_60s);
  EXPECT_EQ(fired[1]->result, "lost");
  bool described = false;
  for (const auto& [name, value] : run.swarm)
    described |= name == kLost && value == "off (forced), 2 pins";
  EXPECT_TRUE(described);
}

TEST(ScenarioTest, ScriptedEventsAreDryRun) {
  EXPECT_EQ(error_of("toy { }\nevents { at_ms: 1000 actor: \"kubectl\" action: "
                     "\"delete_namespace\" target: \"toy-9\" }\n"),
            "s.textproto:2:1: field events[0]: target 'toy-9' is not a toy namespace "
            "(toy-0..toy-2)");
  EXPECT_THAT(error_of("toy { }\nevents { actor: \"kubectl\" action: \"dance\" }\n"),
              HasSubstr("unknown action 'kubectl dance'"));
  EXPECT_EQ(error_of("toy { }\nevents { at_ms: 1000 actor: \"kubectl\" action: "
                     "\"delete_namespace\" target: \"toy-1\" }\n"),
            "");
}

TEST(ScenarioTest, ExpectationsAreChecked) {
  EXPECT_EQ(error_of("toy { }\nexpect { verdict: SAFETY_VIOLATION }\n"),
            "s.textproto:2:1: field expect[0].invariant: a violation expectation needs the "
            "invariant id (toy.S1, toy.S2, kube.S1, kube.S2, kube.S3, kube.S4, kube.S5)");
  EXPECT_THAT(error_of("toy { }\nexpect { verdict: SAFETY_VIOLATION invariant: \"toy.L1\" }\n"),
              HasSubstr("field expect[0].invariant: toy.L1 is a liveness invariant, but the "
                        "verdict is SAFETY_VIOLATION"));
  EXPECT_THAT(error_of("toy { }\nexpect { verdict: SAFETY_VIOLATION invariant: \"toy.S9\" }\n"),
              HasSubstr("unknown invariant 'toy.S9'"));
  EXPECT_THAT(
      error_of("toy { }\nexpect { when { key: \"agent\" value: \"A0a\" } verdict: PASS }\n"),
      HasSubstr("field expect[0].when: 'agent' is not a field of toy"));
  EXPECT_THAT(error_of("toy { }\nexpect { verdict: PASS invariant: \"toy.S1\" }\n"),
              HasSubstr("a PASS expectation names no invariant"));
  EXPECT_THAT(error_of("toy { }\nexpect { }\n"), HasSubstr("an expectation needs a verdict"));
}

TEST(ScenarioTest, OverridesSetFieldsByReflection) {
  register_test_systems();
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(scenario_for_system("toy", loaded, error)) << error;
  ASSERT_TRUE(set_field(loaded, "version", "buggy", "--version buggy", error)) << error;
  ASSERT_TRUE(set_field(loaded, "toy.namespaces", "5", "--set toy.namespaces=5", error)) << error;
  ASSERT_TRUE(set_field(loaded, "settle_ms", "5m", "--set settle_ms=5m", error)) << error;
  ASSERT_TRUE(set_field(loaded, "seed", "42", "--set seed=42", error)) << error;
  ASSERT_TRUE(set_field(loaded, "scripted_only", "true", "--set scripted_only=true", error));
  ASSERT_TRUE(validate_scenario(loaded, error)) << error;
  EXPECT_EQ(loaded.scenario.toy().version(), "buggy");
  EXPECT_EQ(loaded.scenario.toy().namespaces(), 5u);
  EXPECT_EQ(loaded.scenario.settle_ms(), 300000);
  EXPECT_EQ(loaded.scenario.seed(), 42u);
  EXPECT_TRUE(loaded.scenario.scripted_only());
}

TEST(ScenarioTest, OverrideErrorsNameTheFlag) {
  register_test_systems();
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(scenario_for_system("toy", loaded, error));
  EXPECT_FALSE(set_field(loaded, "colour", "red", "--set colour=red", error));
  EXPECT_THAT(error, StartsWith("--set colour=red: unknown field 'colour' (fields of toy: "
                                "version, namespaces, actors, counters;"));
  EXPECT_FALSE(set_field(loaded, "actors", "many", "--actors many", error));
  EXPECT_EQ(error, "--actors many: field toy.actors: 'many' is not a non-negative integer");
  EXPECT_FALSE(set_field(loaded, "actors", "99999999999", "--actors 99999999999", error));
  EXPECT_THAT(error, HasSubstr("out of range"));
  EXPECT_FALSE(set_field(loaded, "selftest.version", "ok", "--set selftest.version=ok", error));
  EXPECT_EQ(error, "--set selftest.version=ok: the scenario selects toy, not selftest");
  EXPECT_FALSE(set_field(loaded, "faults.name", "x", "--set faults.name=x", error));
  EXPECT_THAT(error, HasSubstr("is not a singular message field"));

  // A bad value set on the command line is reported against the flag, not a line of a file.
  ASSERT_TRUE(set_field(loaded, "version", "T9", "--version T9", error));
  EXPECT_FALSE(validate_scenario(loaded, error));
  EXPECT_EQ(error,
            "command line (--version T9): field toy.version: version \"T9\" is not one of: "
            "buggy, T1");
}

TEST(ScenarioTest, OverrideOnAFileKeepsItsOtherFields) {
  register_test_systems();
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(parse_scenario("seed: 7\ntoy { namespaces: 2 }\n", "f", loaded, error));
  ASSERT_TRUE(set_field(loaded, "version", "buggy", "--version buggy", error)) << error;
  ASSERT_TRUE(validate_scenario(loaded, error)) << error;
  EXPECT_EQ(loaded.scenario.seed(), 7u);
  EXPECT_EQ(loaded.scenario.toy().namespaces(), 2u);
  EXPECT_EQ(loaded.scenario.toy().version(), "buggy");
}

TEST(ScenarioTest, TextRoundTrip) {
  LoadedScenario loaded = testing::scenario_from_text(
      "name: \"r\"\nseed: 9\ntoy { version: \"buggy\" }\nevents { at_ms: 5 actor: \"user\" "
      "action: \"increment\" target: \"toy-0/counter-0\" args { key: \"b\" value: \"2\" } args "
      "{ key: \"a\" value: \"1\" } }\n");
  const std::string text = scenario_to_text(loaded.scenario);
  LoadedScenario again;
  std::string error;
  ASSERT_TRUE(parse_scenario(text, "again", again, error)) << error;
  EXPECT_EQ(scenario_to_text(again.scenario), text);
  EXPECT_LT(text.find("key: \"a\""), text.find("key: \"b\""));  // Map entries sorted.
}

TEST(ScenarioTest, HostileBytesNeverCrash) {
  register_test_systems();
  // (input, accepted): every rejected input must say why (docs/architecture.md §10: file, line,
  // field).
  const std::pair<std::string, bool> inputs[] = {
      {std::string("\0\0\0", 3), false},
      {"toy {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{", false},
      {"\xff\xfe\"", false},
      {"toy { version: \"\\x00\" }", false},
      {"events " + std::string(200, '{'), false},
      {"seed: 99999999999999999999", false},
      {"toy < version: 'T1' >", true},
  };
  for (const auto& [input, accepted] : inputs) {
    LoadedScenario loaded;
    std::string error;
    const bool ok = parse_scenario(input, "hostile.textproto", loaded, error) &&
                    validate_scenario(loaded, error);
    EXPECT_EQ(ok, accepted) << input;
    if (!ok) {
      EXPECT_FALSE(error.empty()) << "rejected without an error: " << input;
      EXPECT_NE(error.find("hostile.textproto"), std::string::npos) << error;
    }
  }
}

}  // namespace
}  // namespace wsim::run
