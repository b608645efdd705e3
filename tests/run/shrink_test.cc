// wsim shrink (sim/search/shrink.h): kept candidates fail with the same invariant, the result is a
// smaller run that replays exactly, scripted noise is dropped, and passing runs are refused.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "model/gitlab/register.h"
#include "model/gitpod/register.h"
#include "model/toy/register.h"
#include "sim/core/trace.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/search/shrink.h"

namespace wsim::run {
namespace {

LoadedScenario load(const std::string& text) {
  toy::register_toy_system();
  gitlab::register_gitlab_system();
  gitpod::register_gitpod_system();
  LoadedScenario loaded;
  std::string error;
  EXPECT_TRUE(parse_scenario(text, "shrink_test", loaded, error)) << error;
  EXPECT_TRUE(validate_scenario(loaded, error)) << error;
  return loaded;
}

std::size_t nonzero(const std::vector<std::uint64_t>& tape) {
  std::size_t n = 0;
  for (auto v : tape) n += v != 0;
  return n;
}

// The limbo of gitlab#411205 buried in unrelated user actions: shrinking keeps the three that
// matter (create, delete the namespace, terminate) and the same invariant.
TEST(Shrink, DropsScriptedNoiseAndKeepsTheInvariant) {
  LoadedScenario loaded = load(R"(
    seed: 1 scripted_only: true fault_phase_ms: 600000 settle_ms: 4000000
    gitlab { agent: "A0a" rails: "R1" full_interval_ms: 600000 }
    events { at_ms: 1000 actor: "user" action: "create" target: "ws-0" }
    events { at_ms: 2000 actor: "user" action: "create" target: "ws-1" }
    events { at_ms: 30000 actor: "user" action: "stop" target: "ws-1" }
    events { at_ms: 60000 actor: "user" action: "start" target: "ws-1" }
    events { at_ms: 90000 actor: "admin" action: "update_agent_config" }
    events { at_ms: 120000 actor: "kubectl" action: "delete_namespace" target: "ws-0" }
    events { at_ms: 120500 actor: "user" action: "terminate" target: "ws-0" }
    events { at_ms: 200000 actor: "user" action: "restart" target: "ws-1" }
  )");
  const RunResult original = execute_run(*loaded.system, loaded.scenario, {});
  ASSERT_EQ(original.verdict, Verdict::kLiveness);
  ASSERT_TRUE(original.violation);
  const std::string invariant = original.violation->invariant_id;

  ShrinkOptions options;
  options.max_runs = 400;
  RunOptions record;
  record.record_choices = true;
  const RunResult recorded = execute_run(*loaded.system, loaded.scenario, record);
  const ShrinkResult result =
      shrink_run(*loaded.system, loaded.scenario, tape_of(recorded.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.invariant, invariant);
  EXPECT_EQ(result.scripted_before, 8);
  EXPECT_LE(result.scripted_after, 3);
  EXPECT_LE(result.external_after, result.external_before);
  EXPECT_LE(result.choices_after, result.choices_before);

  // The shrunk run replays exactly from its tape.
  RunOptions replay;
  replay.tape = result.tape;
  const RunResult again = execute_run(*loaded.system, result.scenario, replay);
  EXPECT_EQ(again.fingerprint, result.run.fingerprint);
  ASSERT_TRUE(again.violation);
  EXPECT_EQ(again.violation->invariant_id, invariant);
}

// A random run of the toy canary: the choice record shrinks and still trips toy.S1.
TEST(Shrink, ShrinksARandomChoiceRecord) {
  LoadedScenario loaded = load(R"(fault_phase_ms: 10000 toy { version: "buggy" })");
  RunOptions record;
  record.record_choices = true;
  RunResult failing;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    loaded.scenario.set_seed(seed);
    failing = execute_run(*loaded.system, loaded.scenario, record);
    if (failing.violation && failing.violation->invariant_id == "toy.S1") break;
  }
  ASSERT_TRUE(failing.violation && failing.violation->invariant_id == "toy.S1");
  ShrinkOptions options;
  options.max_runs = 120;
  const ShrinkResult result =
      shrink_run(*loaded.system, loaded.scenario, tape_of(failing.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.invariant, "toy.S1");
  EXPECT_LT(result.nonzero_after, result.nonzero_before);
  EXPECT_EQ(nonzero(result.tape), result.nonzero_after);
  EXPECT_LE(result.runs, options.max_runs + 2);
  ASSERT_TRUE(result.run.violation);
  EXPECT_EQ(result.run.violation->invariant_id, "toy.S1");
}

// With known bugs, the shrunk run keeps the original finding's label, not only its invariant: a
// hunted bug does not drift to another bug of the same invariant. Here the known bug is the
// failing run's own signature, so the label to keep is that bug's name; and against an empty list
// the label to keep is NEW.
TEST(Shrink, KeepsTheFindingsLabelWithKnownBugs) {
  LoadedScenario loaded = load(R"(fault_phase_ms: 10000 toy { version: "buggy" })");
  RunOptions record;
  record.record_choices = true;
  record.keep_trace = true;
  RunResult failing;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    loaded.scenario.set_seed(seed);
    failing = execute_run(*loaded.system, loaded.scenario, record);
    if (failing.violation && failing.violation->invariant_id == "toy.S1") break;
  }
  ASSERT_TRUE(failing.violation && failing.signature);
  const std::vector<KnownBug> known = {KnownBug{"self.textproto#0", *failing.signature}};
  ShrinkOptions options;
  options.max_runs = 60;
  options.known = &known;
  ShrinkResult result =
      shrink_run(*loaded.system, loaded.scenario, tape_of(failing.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_TRUE(result.labelled);
  EXPECT_EQ(result.known, "self.textproto#0");
  EXPECT_TRUE(result.run.labelled);
  EXPECT_EQ(result.run.known, "self.textproto#0");
  EXPECT_LE(result.nonzero_after, result.nonzero_before);

  const std::vector<KnownBug> none;
  options.known = &none;
  result = shrink_run(*loaded.system, loaded.scenario, tape_of(failing.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_TRUE(result.run.labelled);
  EXPECT_EQ(result.known, "");
  EXPECT_EQ(result.run.known, "");
}

// A random GitLab run (A0a+R1, the workload's own actions) that ends in the limbo of
// gitlab#411205: the tape shrinks, and the scripted form renders the issue's story from the trace
// alone (create, kubectl delete_namespace, terminate), is verified by running its text from its
// seed, and says so only when that run violates the same invariant.
// FIFO ties (priority_ties: false): the scripted form is a FIFO run, and the test is about
// shrinking and rendering, not about the scheduler.
TEST(Shrink, RendersAVerifiedScriptedScenario) {
  LoadedScenario loaded = load(R"(priority_ties: false gitlab { agent: "A0a" rails: "R1" })");
  RunOptions record;
  record.record_choices = true;
  RunResult failing;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    loaded.scenario.set_seed(seed);
    failing = execute_run(*loaded.system, loaded.scenario, record);
    if (failing.violation && failing.violation->invariant_id == "gitlab.L1") break;
  }
  ASSERT_TRUE(failing.violation && failing.violation->invariant_id == "gitlab.L1");
  ShrinkOptions options;
  options.max_runs = 600;
  const ShrinkResult shrunk =
      shrink_run(*loaded.system, loaded.scenario, tape_of(failing.record), options);
  ASSERT_TRUE(shrunk.ok) << shrunk.error;

  ScriptedOptions scripted_options;
  scripted_options.max_runs = 200;
  const ScriptedResult scripted =
      render_scripted(*loaded.system, loaded.scenario, shrunk.run, shrunk.verdict, shrunk.invariant,
                      scripted_options);
  ASSERT_TRUE(scripted.reproduces) << ::testing::PrintToString(scripted.tried);
  EXPECT_FALSE(scripted.form.empty());
  EXPECT_TRUE(scripted.scenario.scripted_only());
  EXPECT_LE(scripted.events_kept, 8);
  EXPECT_LE(scripted.events_kept, scripted.events_rendered);
  bool deletes_namespace = false, terminates = false;
  for (const proto::ScriptedEvent& event : scripted.scenario.events()) {
    deletes_namespace |= event.actor() == "kubectl" && event.action() == "delete_namespace";
    terminates |= event.actor() == "user" && event.action() == "terminate";
  }
  EXPECT_TRUE(deletes_namespace);
  EXPECT_TRUE(terminates);
  ASSERT_EQ(scripted.scenario.expect_size(), 1);
  EXPECT_EQ(scripted.scenario.expect(0).invariant(), "gitlab.L1");
  EXPECT_EQ(scripted.scenario.expect(0).when().at("agent"), "A0a");

  // Independently of render_scripted: the text a reader gets, loaded and run from its seed.
  const std::string text = scripted_to_text(scripted.scenario, *loaded.system);
  EXPECT_NE(text.find("events { at_ms: "), std::string::npos) << text;
  RunResult again;
  std::string error;
  ASSERT_TRUE(run_scenario_text(text, again, error)) << error << "\n" << text;
  EXPECT_EQ(again.verdict, Verdict::kLiveness);
  ASSERT_TRUE(again.violation);
  EXPECT_EQ(again.violation->invariant_id, "gitlab.L1");
}

// The trace → catalog mapping: an action traced under its object (kubectl delete Namespace/...)
// becomes the catalog action and the workspace target; the driver's "scripted" marker is skipped.
TEST(Shrink, MapsTraceEventsToCatalogActions) {
  LoadedScenario loaded = load(R"(gitlab { agent: "A0a" rails: "R1" })");
  const std::vector<TraceEvent> trace = {
      {1000, "user", "create", "ws-1", "scripted", "", TraceKind::kScripted},
      {1000, "user", "create", "ws-1", "ok", ""},
      {2000, "kubectl", "delete", "Namespace/gl-rd-ns-ws-1", "ok", ""},
      {3000, "kubectl", "delete", "ConfigMap/gl-rd-ns-ws-1/ws-1-workspace-inventory", "ok", ""},
      {4000, "agentk", "restart", "", "ok", ""},
      {5000, "agentk", "get", "Namespace/gl-rd-ns-ws-1", "ok", ""},
      {6000, "user", "terminate", "ws-1", "ok", ""},
  };
  const std::vector<proto::ScriptedEvent> events = scripted_events_of(*loaded.system, trace);
  ASSERT_EQ(events.size(), 5u);
  auto is = [](const proto::ScriptedEvent& e, std::int64_t at_ms, const char* actor,
               const char* action, const char* target) {
    return e.at_ms() == at_ms && e.actor() == actor && e.action() == action && e.target() == target;
  };
  EXPECT_TRUE(is(events[0], 1000, "user", "create", "ws-1")) << events[0].ShortDebugString();
  EXPECT_TRUE(is(events[1], 2000, "kubectl", "delete_namespace", "ws-1"))
      << events[1].ShortDebugString();
  EXPECT_TRUE(is(events[2], 3000, "kubectl", "delete_inventory", "ws-1"))
      << events[2].ShortDebugString();
  EXPECT_TRUE(is(events[3], 4000, "agent", "restart", "")) << events[3].ShortDebugString();
  EXPECT_TRUE(is(events[4], 6000, "user", "terminate", "ws-1")) << events[4].ShortDebugString();
}

// A workload fault named after a catalog action of the event's actor renders as that action
// (docs/shrinking.md §4): a scripted_only run never draws the workload's random faults.
TEST(Shrink, MapsWorkloadFaultsToTheirCatalogActions) {
  LoadedScenario loaded = load(R"(gitpod { manager: "mk2" })");
  std::vector<TraceEvent> trace = {
      {500, "user/ws2", "start-reply", "ws2-1", "OK", ""},
      {1000, "ws-manager", "stop", "", "ok", ""},
      {2000, "kubelet/node-1", "reject", "Pod/gitpod/ws-ws2-1", "NodeAffinity", "re-admitted"},
      {3000, "kubelet/node-1", "reject", "Pod/gitpod/ws-ws2-1", "NodeAffinity", "admission"},
      {4000, "ws-daemon/node-2", "stop", "", "ok", ""},
  };
  trace[1].faults = {"gitpod.manager.restart"};
  trace[2].faults = {"gitpod.kubelet.reject_after_ready"};
  trace[4].faults = {"gitpod.daemon.restart"};
  const std::vector<proto::ScriptedEvent> events =
      scripted_events_of(*loaded.system, trace, TargetFrom::kObjectFirst);
  // ws-manager's stop is not the catalog's `manager` actor: not rendered (shrink_scripted.cc
  // action_of_fault).
  ASSERT_EQ(events.size(), 4u);
  auto text = [](const proto::ScriptedEvent& e) {
    return e.actor() + " " + e.action() + " " + e.target();
  };
  EXPECT_EQ(text(events[0]), "user start ws2");
  EXPECT_EQ(text(events[1]), "kubelet reject_after_ready ws2");
  EXPECT_EQ(text(events[2]), "kubelet reject ws2");  // No fault: the admission reject.
  EXPECT_EQ(text(events[3]), "ws-daemon restart node-2");
}

// A form that does not reproduce is reported as such: asked for an invariant the events do not
// break (gitlab.S2 instead of the limbo's L1), every variant is tried and `reproduces` stays false,
// with what the text really gives.
TEST(Shrink, ScriptedFormThatDoesNotReproduceIsSaidSo) {
  LoadedScenario loaded = load(R"(
    seed: 1 scripted_only: true fault_phase_ms: 600000
    gitlab { agent: "A0a" rails: "R1" }
    events { at_ms: 1000 actor: "user" action: "create" target: "ws-0" }
    events { at_ms: 120000 actor: "kubectl" action: "delete_namespace" target: "ws-0" }
    events { at_ms: 120500 actor: "user" action: "terminate" target: "ws-0" }
  )");
  RunOptions keep;
  keep.keep_trace = true;
  const RunResult failing = execute_run(*loaded.system, loaded.scenario, keep);
  ASSERT_TRUE(failing.violation);
  ASSERT_EQ(failing.violation->invariant_id, "gitlab.L1");
  // Claim a different invariant than the one the events give: no variant can reproduce it.
  ScriptedOptions scripted_options;
  scripted_options.max_runs = 30;
  const ScriptedResult scripted = render_scripted(*loaded.system, loaded.scenario, failing,
                                                  Verdict::kSafety, "gitlab.S2", scripted_options);
  EXPECT_FALSE(scripted.reproduces);
  EXPECT_TRUE(scripted.form.empty());
  EXPECT_FALSE(scripted.tried.empty());
  EXPECT_EQ(scripted.verdict, Verdict::kLiveness);
  EXPECT_EQ(scripted.invariant, "gitlab.L1");
  EXPECT_LE(scripted.runs, scripted_options.max_runs + 1);
}

// The limbo of gitlab#411205 on ws-0, with three uninvolved workspaces acting around it (their
// events interleaved with the bug's). Shrinking drops each uninvolved workspace whole (one run
// each) before trying single events: within 6 runs only ws-0's three events are left. The old
// shrinker (halves, quarters, ... of the event list) needed far more runs, every chunk of the
// interleaved list holding one of the bug's events.
constexpr const char* kLimboWithNoise = R"(
    seed: 1 scripted_only: true fault_phase_ms: 600000 settle_ms: 4000000
    gitlab { agent: "A0a" rails: "R1" full_interval_ms: 600000 }
    events { at_ms: 1000 actor: "user" action: "create" target: "ws-0" }
    events { at_ms: 2000 actor: "user" action: "create" target: "ws-1" }
    events { at_ms: 3000 actor: "user" action: "create" target: "ws-2" }
    events { at_ms: 4000 actor: "user" action: "create" target: "ws-3" }
    events { at_ms: 30000 actor: "user" action: "stop" target: "ws-1" }
    events { at_ms: 31000 actor: "user" action: "stop" target: "ws-2" }
    events { at_ms: 32000 actor: "user" action: "stop" target: "ws-3" }
    events { at_ms: 60000 actor: "user" action: "start" target: "ws-1" }
    events { at_ms: 61000 actor: "user" action: "start" target: "ws-2" }
    events { at_ms: 62000 actor: "user" action: "start" target: "ws-3" }
    events { at_ms: 120000 actor: "kubectl" action: "delete_namespace" target: "ws-0" }
    events { at_ms: 120500 actor: "user" action: "terminate" target: "ws-0" }
    events { at_ms: 200000 actor: "user" action: "restart" target: "ws-1" }
    events { at_ms: 201000 actor: "user" action: "restart" target: "ws-2" }
    events { at_ms: 202000 actor: "user" action: "restart" target: "ws-3" }
  )";

TEST(Shrink, DropsUninvolvedWorkspacesWhole) {
  LoadedScenario loaded = load(kLimboWithNoise);
  RunOptions record;
  record.record_choices = true;
  const RunResult recorded = execute_run(*loaded.system, loaded.scenario, record);
  ASSERT_TRUE(recorded.violation);
  const std::string invariant = recorded.violation->invariant_id;
  ShrinkOptions options;
  options.max_runs = 6;
  const ShrinkResult result =
      shrink_run(*loaded.system, loaded.scenario, tape_of(recorded.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.invariant, invariant);
  EXPECT_EQ(result.scripted_before, 15);
  EXPECT_EQ(result.scripted_after, 3);
  for (const proto::ScriptedEvent& event : result.scenario.events()) {
    EXPECT_EQ(event.target(), "ws-0") << event.ShortDebugString();
  }
}

// The same at the scripted level: the readable form rendered from the run's trace drops the
// uninvolved workspaces whole (a few runs), not event by event.
TEST(Shrink, ScriptedFormDropsUninvolvedWorkspacesWhole) {
  LoadedScenario loaded = load(kLimboWithNoise);
  RunOptions keep;
  keep.keep_trace = true;
  const RunResult failing = execute_run(*loaded.system, loaded.scenario, keep);
  ASSERT_TRUE(failing.violation);
  ScriptedOptions scripted_options;
  scripted_options.max_runs = 9;
  const ScriptedResult scripted =
      render_scripted(*loaded.system, loaded.scenario, failing, failing.verdict,
                      failing.violation->invariant_id, scripted_options);
  ASSERT_TRUE(scripted.reproduces) << ::testing::PrintToString(scripted.tried);
  EXPECT_GE(scripted.events_rendered, 15);
  EXPECT_LE(scripted.events_kept, 3);
  for (const proto::ScriptedEvent& event : scripted.scenario.events()) {
    EXPECT_EQ(event.target(), "ws-0") << event.ShortDebugString();
  }
}

// A scripted source (a corpus file's script) is tried first as it is, before any rendering from
// the trace: its own events are the most faithful form, and the shrink goes on from them.
TEST(Shrink, ScriptedSourceIsTriedAsItIs) {
  LoadedScenario loaded = load(kLimboWithNoise);
  RunOptions keep;
  keep.keep_trace = true;
  const RunResult failing = execute_run(*loaded.system, loaded.scenario, keep);
  ASSERT_TRUE(failing.violation);
  ScriptedOptions scripted_options;
  scripted_options.max_runs = 1;
  const ScriptedResult scripted =
      render_scripted(*loaded.system, loaded.scenario, failing, failing.verdict,
                      failing.violation->invariant_id, scripted_options);
  EXPECT_TRUE(scripted.reproduces) << ::testing::PrintToString(scripted.tried);
  EXPECT_EQ(scripted.form, "the scenario's own events (seed 1)");
  EXPECT_EQ(scripted.events_kept, 15);
}

// The groups come from the scenario's own structure: one per subject (an object that names a
// target at a '-'/'/' boundary counts as that target's), largest first, then one per actor; a
// group of every event is left out; ties in key order.
TEST(Shrink, EventGroupsComeFromTargetsAndActors) {
  proto::Scenario scenario;
  auto add = [&](const char* actor, const char* action, const char* target) {
    proto::ScriptedEvent* event = scenario.add_events();
    event->set_actor(actor);
    event->set_action(action);
    event->set_target(target);
  };
  add("user", "start", "alice");               // 0
  add("user", "start", "bob");                 // 1
  add("api", "error", "Pod/ws-alice-1");       // 2: alice's
  add("kubectl", "delete_node", "node-1");     // 3
  add("user", "stop", "alice");                // 4
  add("manager", "restart", "");               // 5: no target
  add("kubelet", "reject", "Pod/ws-bobby-1");  // 6: not bob's ("bobby")
  // Subjects, largest first, ties in key order ("Pod/ws-bobby-1" < "bob" < "node-1"), then the
  // actors not already a group: user (3 events), api, manager (kubectl's and kubelet's events
  // are node-1's and Pod/ws-bobby-1's groups already).
  const std::vector<std::vector<int>> expected = {{0, 2, 4}, {6}, {1}, {3}, {0, 1, 4}, {2}, {5}};
  EXPECT_EQ(event_groups(scenario), expected);
  EXPECT_EQ(without_events(scenario, {0, 2, 4}).events_size(), 4);
}

// A scripted run's fault phase is cut to what the violation needs: the limbo is set up by 121 s,
// so the 10-minute fault phase shrinks (the settle phase stays: a liveness verdict needs it).
TEST(Shrink, ShortensTheFaultPhase) {
  LoadedScenario loaded = load(R"(
    seed: 1 scripted_only: true fault_phase_ms: 600000 settle_ms: 4000000
    gitlab { agent: "A0a" rails: "R1" full_interval_ms: 600000 }
    events { at_ms: 1000 actor: "user" action: "create" target: "ws-0" }
    events { at_ms: 120000 actor: "kubectl" action: "delete_namespace" target: "ws-0" }
    events { at_ms: 120500 actor: "user" action: "terminate" target: "ws-0" }
  )");
  RunOptions record;
  record.record_choices = true;
  const RunResult recorded = execute_run(*loaded.system, loaded.scenario, record);
  ASSERT_TRUE(recorded.violation);
  ShrinkOptions options;
  options.max_runs = 200;
  const ShrinkResult result =
      shrink_run(*loaded.system, loaded.scenario, tape_of(recorded.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.scripted_after, 3);
  EXPECT_LT(result.scenario.fault_phase_ms(), 600000);
  EXPECT_GE(result.scenario.fault_phase_ms(), 120500);
  EXPECT_EQ(result.scenario.settle_ms(), 4000000);
  ASSERT_TRUE(result.run.violation);
  EXPECT_EQ(result.run.violation->invariant_id, recorded.violation->invariant_id);
}

// Gitpod traces its StopWorkspace calls as "stop-reply" with the policy in the detail: the
// rendering picks the catalog action the detail names (abort) or whose other words it holds
// (stop_immediate), and a kubelet rejection of a workspace's pod, traced under the node's actor,
// is rendered with the node as target (actor first) or with the workspace the pod belongs to
// (objects first).
TEST(Shrink, MapsDetailNamedActionsAndObjectTargets) {
  LoadedScenario loaded = load(R"(gitpod { manager: "mk2" })");
  const std::vector<TraceEvent> trace = {
      {1000, "user/ws0", "start-reply", "ws0-1", "OK", ""},
      {2000, "user", "stop-reply", "ws0-1", "OK", "abort"},
      {3000, "user", "stop-reply", "ws0-1", "OK", "immediate"},
      {4000, "user", "stop-reply", "ws0-1", "OK", "normal"},
      {5000, "kubelet/node-1", "reject", "Pod/gitpod/ws-ws0-2", "NodeAffinity", ""},
  };
  const std::vector<proto::ScriptedEvent> actor_first = scripted_events_of(*loaded.system, trace);
  ASSERT_EQ(actor_first.size(), 5u);
  EXPECT_EQ(actor_first[1].action(), "abort") << actor_first[1].ShortDebugString();
  EXPECT_EQ(actor_first[1].target(), "ws0");
  EXPECT_EQ(actor_first[2].action(), "stop_immediate") << actor_first[2].ShortDebugString();
  EXPECT_EQ(actor_first[3].action(), "stop") << actor_first[3].ShortDebugString();
  EXPECT_EQ(actor_first[4].action(), "reject");
  EXPECT_EQ(actor_first[4].target(), "node-1");
  const std::vector<proto::ScriptedEvent> object_first =
      scripted_events_of(*loaded.system, trace, TargetFrom::kObjectFirst);
  ASSERT_EQ(object_first.size(), 5u);
  EXPECT_EQ(object_first[4].target(), "ws0") << object_first[4].ShortDebugString();
}

// A hunted Gitpod run of three workspaces (mk2, seed 9: ws2's pod created after a successful
// StopWorkspace, corpus stop-before-first-pod) needs one workspace's user: the mute pass
// (docs/shrinking.md "Muting actors") silences the other users whole, their choices taken out of
// a keyed tape so the rest of the run stays put; the result replays exactly from its own flat
// tape with the muted actors in its scenario.
TEST(Shrink, MutesTheUsersTheFailureDoesNotNeed) {
  LoadedScenario loaded = load(R"(
    seed: 9 fault_phase_ms: 7200000 settle_ms: 7200000
    gitpod { manager: "mk2" fixes: "all" workspaces: 3 nodes: 2 user_action_interval_ms: 60000 }
  )");
  RunOptions record;
  record.record_choices = true;
  record.keep_trace = true;
  const RunResult recorded = execute_run(*loaded.system, loaded.scenario, record);
  ASSERT_EQ(recorded.verdict, Verdict::kLiveness);
  ASSERT_TRUE(recorded.violation);
  ASSERT_EQ(recorded.violation->invariant_id, "gitpod.L5");
  ShrinkOptions options;
  options.max_runs = 400;
  const ShrinkResult result =
      shrink_run(*loaded.system, loaded.scenario, tape_of(recorded.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(result.muted.size(), 2u);
  ASSERT_TRUE(result.run.violation);
  const std::string& object = result.run.violation->object;  // "ws2-2": workspace ws2.
  const std::string culprit = "user/" + object.substr(0, object.find('-'));
  for (const std::string& actor : result.muted) {
    EXPECT_EQ(actor.rfind("user/ws", 0), 0u) << actor;
    EXPECT_NE(actor, culprit);
  }
  EXPECT_LE(result.external_after, 20u);
  EXPECT_LT(result.external_after * 5, result.external_before);
  // The shrunk run replays from its flat tape and scenario (what the shrunk bundle holds).
  RunOptions replay;
  replay.tape = result.tape;
  const RunResult again = execute_run(*loaded.system, result.scenario, replay);
  EXPECT_EQ(again.fingerprint, result.run.fingerprint);
  ASSERT_TRUE(again.violation);
  EXPECT_EQ(again.violation->invariant_id, "gitpod.L5");
  // Without the muted actors the same tape is another run.
  proto::Scenario unmuted = result.scenario;
  unmuted.clear_muted_actors();
  EXPECT_NE(execute_run(*loaded.system, unmuted, replay).fingerprint, again.fingerprint);
}

// A fault-timed failure (issue #30 item 5; docs/shrinking.md §6): Gitpod's N4, ws-daemon deletes
// the content after one BackupComplete write answered 5xx. The readable form renders the fault
// pinned to that request (update of the Workspace by ws-daemon, after the previous one) and
// reproduces from its seed; the same scenario with the point on for the whole run instead (what
// the readable form was before pins) does not.
TEST(Shrink, ScriptedFormPinsTheFaultOfTheMomentAndReproduces) {
  gitpod::register_gitpod_system();
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(load_scenario_file(
      std::string(WSIM_SOURCE_DIR) +
          "/corpus/regressions/gitpod/backup-condition-5xx-then-delete.textproto",
      loaded, error))
      << error;
  for (const auto& [path, value] :
       {std::pair{"gitpod.manager", "mk2"}, std::pair{"gitpod.fixes", ""},
        std::pair{"gitpod.upgrade", "none"},
        std::pair{"gitpod.daemon_keep_content_until_recorded", "false"}}) {
    ASSERT_TRUE(set_field(loaded, path, value, std::string("--set ") + path, error)) << error;
  }
  ASSERT_TRUE(validate_scenario(loaded, error)) << error;
  RunOptions record;
  record.record_choices = true;
  const RunResult failing = execute_run(*loaded.system, loaded.scenario, record);
  ASSERT_TRUE(failing.violation);
  ASSERT_EQ(failing.violation->invariant_id, "gitpod.S2");
  const ShrinkResult shrunk =
      shrink_run(*loaded.system, loaded.scenario, tape_of(failing.record), ShrinkOptions{});
  ASSERT_TRUE(shrunk.ok) << shrunk.error;

  const ScriptedResult scripted = render_scripted(*loaded.system, shrunk.scenario, shrunk.run,
                                                  shrunk.verdict, shrunk.invariant, {});
  ASSERT_TRUE(scripted.reproduces) << ::testing::PrintToString(scripted.tried);
  EXPECT_EQ(scripted.form.rfind("faults pinned", 0), 0u) << scripted.form;
  EXPECT_GT(scripted.faults_pinned, 0);
  EXPECT_LE(scripted.events_kept, 4);
  int pins = 0;
  proto::Scenario whole_run = scripted.scenario;
  for (proto::FaultOverride& fault : *whole_run.mutable_faults()) {
    if (!is_pinned(fault)) continue;
    ++pins;
    EXPECT_EQ(fault.name(), "kube.api.error5xx");
    EXPECT_EQ(fault.verb(), "update");
    EXPECT_EQ(fault.object().rfind("Workspace/gitpod/", 0), 0u) << fault.object();
    EXPECT_EQ(fault.actor().rfind("ws-daemon/", 0), 0u) << fault.actor();
    proto::FaultOverride plain;
    plain.set_name(fault.name());
    plain.set_enabled(true);
    fault = plain;
  }
  EXPECT_EQ(pins, 1);
  // The reader's text, run from its seed: the invariant; without the pin's moment: not.
  RunResult again;
  ASSERT_TRUE(run_scenario_text(scripted_to_text(scripted.scenario, *loaded.system), again, error))
      << error;
  ASSERT_TRUE(again.violation);
  EXPECT_EQ(again.violation->invariant_id, "gitpod.S2");
  RunResult unpinned;
  ASSERT_TRUE(run_scenario_text(scripted_to_text(whole_run, *loaded.system), unpinned, error))
      << error;
  EXPECT_FALSE(unpinned.violation && unpinned.violation->invariant_id == "gitpod.S2");
}

TEST(Shrink, RefusesAPassingRun) {
  LoadedScenario loaded = load(R"(seed: 3 toy { version: "T1" })");
  const ShrinkResult result = shrink_run(*loaded.system, loaded.scenario, {}, ShrinkOptions{});
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("nothing to shrink"), std::string::npos) << result.error;
}

}  // namespace
}  // namespace wsim::run
