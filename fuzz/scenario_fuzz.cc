// Scenario-level libFuzzer targets (docs/architecture.md §7; docs/proto-mutator.md): the input
// is a binary wsim.proto.Scenario whose scripted events ARE the workload, not a choice stream.
// A system declares such a target in its CMakeLists.txt (wsim_add_scenario_fuzz_target(<name>
// BASE <choice target> DICT <file>), e.g. model/gitlab/CMakeLists.txt); this file is compiled once
// per target with WSIM_SCENARIO_TARGET = <name> and WSIM_SCENARIO_BASE_TARGET = <choice target>.
// The versions and phases are fixed by the base target (System::fuzz_targets()), with
// scripted_only on (no random workload, no fault swarm). From the input only `seed` (the
// latencies of the run) and `events` (at_ms, actor, action, target) are taken.
//
// A finding is one of the base target's bugs, or a harness error: the target prints the scenario
// as text format, so the repro is `scripts/wsim run --scenario FILE` (FILE = the printed text),
// and abort()s (libFuzzer saves crash-<sha1>, a binary Scenario: decode it with
//   protoc --decode=wsim.proto.Scenario -I build/<preset> -I . \
//          build/<preset>/sim/proto/scenario.proto < crash-<sha1>).
//
// Compiled twice per target: with the structure-aware mutator (fuzz/proto_mutator.h) as
// LLVMFuzzerCustomMutator / LLVMFuzzerCustomCrossOver, and with -DWSIM_NO_CUSTOM_MUTATOR as
// `<name>_bytes`, where libFuzzer mutates the serialized bytes itself (the comparison of
// docs/proto-mutator.md). Invalid scenarios (unknown actions, an event after the fault phase,
// ...) are rejected with -1: they never enter the corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "fuzz/proto_mutator.h"
#include "model/all_systems/all_systems.h"
#include "sim/run/scenario.h"
#include "sim/search/fuzz_targets.h"

// libFuzzer's own mutation of a byte range (it applies the -dict words too).
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

#if !defined(WSIM_SCENARIO_TARGET) || !defined(WSIM_SCENARIO_BASE_TARGET)
#error "fuzz/CMakeLists.txt defines WSIM_SCENARIO_TARGET and WSIM_SCENARIO_BASE_TARGET"
#endif
// The target whose versions and phases this one borrows (its canary bug is ours too).
constexpr const char* kBaseTarget = WSIM_SCENARIO_BASE_TARGET;
constexpr const char* kName = WSIM_SCENARIO_TARGET;
// More events do not make a better scenario, only a slower execution.
constexpr int kEventsMax = 32;

const wsim::run::FuzzTarget* g_target = nullptr;
wsim::run::LoadedScenario* g_base = nullptr;

#ifndef WSIM_NO_CUSTOM_MUTATOR
// Workspaces the vocabulary names (a scripted create may name any workspace).
constexpr int kWorkspacesCount = 3;
const wsim::fuzz::ProtoMutator* g_mutator = nullptr;

// The scripted-action catalog of the system (`wsim list`) and the workspace names.
wsim::fuzz::ProtoMutatorHooks scenario_hooks(const wsim::run::System& system,
                                             std::int64_t fault_phase_ms) {
  namespace proto = wsim::proto;
  const std::string event = proto::ScriptedEvent::descriptor()->full_name();
  const std::string scenario = proto::Scenario::descriptor()->full_name();
  wsim::fuzz::ProtoMutatorHooks hooks;
  hooks.mutable_fields = {scenario + ".seed", scenario + ".events", event + ".at_ms",
                          event + ".actor",   event + ".action",    event + ".target"};
  const std::vector<wsim::run::ActionInfo> actions = system.actions();
  std::set<std::string> actors;
  std::set<std::string> verbs;
  for (const wsim::run::ActionInfo& action : actions) {
    actors.insert(action.actor);
    verbs.insert(action.action);
  }
  std::vector<std::string> targets;
  for (int i = 0; i < kWorkspacesCount; ++i) targets.push_back("ws-" + std::to_string(i));
  hooks.strings[event + ".actor"] = {actors.begin(), actors.end()};
  hooks.strings[event + ".action"] = {verbs.begin(), verbs.end()};
  hooks.strings[event + ".target"] = targets;
  hooks.int_ranges[event + ".at_ms"] = {0, fault_phase_ms};
  // A new event is a valid one: an (actor, action) pair of the catalog, a workspace, a time on
  // the 500 ms grid of tests/run/scenario_prop_test.cc.
  hooks.builders[scenario + ".events"] = [actions, targets, fault_phase_ms](
                                             google::protobuf::Message& message,
                                             wsim::Xoshiro256& prng) {
    auto& built = static_cast<proto::ScriptedEvent&>(message);
    const wsim::run::ActionInfo& action = actions[prng.below(actions.size())];
    built.set_actor(action.actor);
    built.set_action(action.action);
    built.set_target(targets[prng.below(targets.size())]);
    built.set_at_ms(500 * static_cast<std::int64_t>(
                              prng.below(static_cast<std::uint64_t>(fault_phase_ms / 500) + 1)));
  };
  // A scalar mutation of `action` alone would mostly give pairs no actor performs ("user
  // delete_namespace"), which validation rejects: give the action its actor instead.
  hooks.post_process = [actions](google::protobuf::Message& message) {
    for (proto::ScriptedEvent& event : *static_cast<proto::Scenario&>(message).mutable_events()) {
      const wsim::run::ActionInfo* owner = nullptr;
      for (const wsim::run::ActionInfo& action : actions) {
        if (action.action != event.action()) continue;
        if (action.actor == event.actor()) {
          owner = nullptr;
          break;
        }
        if (owner == nullptr) owner = &action;
      }
      if (owner != nullptr) event.set_actor(owner->actor);
      if (event.actor() == "user" && event.target().empty()) event.set_target("ws-0");
    }
  };
  hooks.mutate_bytes = [](std::uint8_t* data, std::size_t size, std::size_t max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  };
  hooks.repeated_max = kEventsMax;
  return hooks;
}
#endif

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  wsim::register_all_systems();
  g_target = wsim::run::find_fuzz_target(kBaseTarget);
  g_base = new wsim::run::LoadedScenario();
  std::string error;
  if (g_target == nullptr || !wsim::run::fuzz_target_scenario(*g_target, *g_base, error)) {
    std::fprintf(stderr, "fuzz: %s: base target %s: %s\n", kName, kBaseTarget, error.c_str());
    std::abort();
  }
  g_base->scenario.set_name(std::string("fuzz-") + kName);
  g_base->scenario.set_description(std::string("libFuzzer target ") + kName +
                                   ": scripted events on the versions of " + kBaseTarget + " (" +
                                   g_target->reference + ")");
  g_base->scenario.set_scripted_only(true);
#ifndef WSIM_NO_CUSTOM_MUTATOR
  g_mutator = new wsim::fuzz::ProtoMutator(
      wsim::proto::Scenario::descriptor(),
      scenario_hooks(*g_base->system, g_base->scenario.fault_phase_ms()));
#endif
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wsim::proto::Scenario input;
  const google::protobuf::LogSilencer quiet;  // invalid UTF-8 in mutated bytes logs otherwise
  if (!input.ParseFromArray(data, static_cast<int>(size))) return -1;
  if (input.events_size() > kEventsMax) return -1;
  // Only seed and events come from the input (the versions are the target's).
  wsim::run::LoadedScenario loaded;
  loaded.scenario = g_base->scenario;
  loaded.origin = kName;
  loaded.scenario.set_seed(input.seed());
  *loaded.scenario.mutable_events() = input.events();
  for (wsim::proto::ScriptedEvent& event : *loaded.scenario.mutable_events()) {
    event.clear_args();  // Not fuzzed (not a mutable field of scenario_hooks).
  }
  std::string error;
  if (!wsim::run::validate_scenario(loaded, error)) return -1;
  // From the scenario's seed, not from bytes: the input is the scenario (an empty byte stream
  // would make every choice 0 and the seed meaningless).
  wsim::run::RunOptions options;
  options.events_max = wsim::run::kFuzzEventsMax;
  const wsim::run::RunResult result =
      wsim::run::execute_run(*loaded.system, loaded.scenario, options);
  if (!wsim::run::fuzz_finding(*g_target, result)) return 0;
  std::fprintf(stderr, "\nWSIM-FINDING %s %s %s%s%s\n", kName,
               wsim::run::verdict_name(result.verdict),
               result.violation ? result.violation->invariant_id.c_str() : "",
               result.violation ? ": " : result.harness_error.c_str(),
               result.violation ? result.violation->message.c_str() : "");
  std::fprintf(stderr, "scenario (scripts/wsim run --scenario FILE):\n%s\n",
               wsim::run::scenario_to_text(loaded.scenario).c_str());
  std::abort();
}

#ifndef WSIM_NO_CUSTOM_MUTATOR
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return g_mutator->mutate_bytes(data, size, max_size, seed);
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* data1, std::size_t size1,
                                                 const std::uint8_t* data2, std::size_t size2,
                                                 std::uint8_t* out, std::size_t max_out_size,
                                                 unsigned int seed) {
  return g_mutator->cross_over_bytes(data1, size1, data2, size2, out, max_out_size, seed);
}
#endif
