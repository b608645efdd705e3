// Finding signatures and hunts that go past known bugs (sim/run/signature.h, issue #12 items 1–2):
// normalisation, matching, a run going past a known safety violation to a later different one,
// its bundle replaying exactly from the scenario's go_past entries, and a hunt that reports known
// findings but fails only for NEW ones. The corpus-based checks (two seeds of one corpus bug
// agree, two corpus bugs with the same invariant differ) are in signature_corpus_test.cc.
#include "sim/run/signature.h"

#include <filesystem>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/search/hunt.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kTwice =
    "selftest { version: \"twice\" violate_after_ms: 10000 }\nfault_phase_ms: 60000\n";

TEST(SignatureTest, NormalisesAwayTheSeedsNames) {
  EXPECT_EQ(normalize_event({5, "ws-daemon/node-2", "backup", "ws0-1", "ok", "version 2"}),
            "ws-daemon backup ok");
  EXPECT_EQ(normalize_event({5, "ws-manager", "patch", "Workspace/gitpod/ws0-1", "TooManyRequests",
                             "fault kube.api.throttle"}),
            "ws-manager patch Workspace fail");
  EXPECT_EQ(normalize_event({5, "ws-manager", "patch", "Workspace/gitpod/alice-1", "InternalError",
                             "scripted fault #6"}),
            "ws-manager patch Workspace fail");
  EXPECT_EQ(normalize_event({5, "link", "drop", "", "lost", ""}), "link drop fail");
}

TEST(SignatureTest, PathKeepsFaultsAndExternalActionsOnTheObjectOnly) {
  const std::vector<TraceEvent> trace = {
      {1, "user/alice", "start", "ws-1", "ok", ""},
      {2, "user/bob", "start", "ws-2", "ok", ""},
      {3, "ws-manager", "patch", "Workspace/ns/ws-1", "InternalError", "fault x"},
      {4, "ws-manager", "patch", "Workspace/ns/ws-10", "InternalError", "fault x"},
      {5, "ws-manager", "create", "Pod/ns/ws-1", "ok", ""},
  };
  const Signature signature =
      compute_signature({"user"}, trace, 4, Violation{"sys.S5", "ws-1", "pod after stop"});
  EXPECT_EQ(signature.invariant, "sys.S5");
  EXPECT_EQ(signature.culprit, "ws-manager create Pod ok");
  EXPECT_EQ(signature.path,
            (std::vector<std::string>{"user start", "ws-manager patch Workspace fail"}));
  EXPECT_EQ(signature.text(),
            "sys.S5 @ ws-manager create Pod ok [pod after stop] | user start; ws-manager patch "
            "Workspace fail");
}

TEST(SignatureTest, ContextIsTheObjectsStateWhenTheUserActed) {
  const std::vector<TraceEvent> trace = {
      // A fault injector names the pod before it exists, without its namespace: one object.
      {0, "breaker", "reject-once", "Pod/ws-ws-1", "armed", ""},
      {1, "ws-manager", "create", "Secret/ns/ws-1-env", "ok", ""},
      {2, "ws-manager", "create", "Workspace/ns/ws-1", "ok", ""},
      {3, "user/alice", "stop-reply", "ws-1", "OK", ""},
      {4, "ws-manager", "update", "Workspace/ns/ws-1", "ok", ""},
      {5, "ws-manager", "create", "Pod/ns/ws-ws-1", "ok", ""},
      {6, "kubelet/node-1", "reject", "Pod/ns/ws-ws-1", "OutOfcpu", ""},
      {7, "ws-manager", "delete", "Pod/ns/ws-ws-1", "ok", ""},
      {8, "kubelet/node-1", "remove", "Pod/ns/ws-ws-1", "waiting", ""},  // After the delete.
      {9, "ws-manager", "create", "Pod/ns/ws-ws-10", "ok", ""},          // Another workspace's.
      {10, "ws-manager", "get", "Pod/ns/ws-ws-1", "ok", ""},             // A read.
      {11, "user/alice", "stop-reply", "ws-1", "OK", ""},
      {12, "user/alice", "stop-reply", "ws-1", "OK", ""},        // The same context again: once.
      {13, "ws-manager", "create", "Pod/ns/ws-ws-1", "ok", ""},  // A new pod of the same name.
      {14, "user/alice", "write", "ws-1", "ok", ""},
  };
  EXPECT_EQ(action_context(trace, 3, "ws-1"), "user stop-reply: Secret=created Workspace=created");
  EXPECT_EQ(action_context(trace, 11, "ws-1"),
            "user stop-reply: Pod=deleted Pod@reject Secret=created Workspace=written");
  const Signature signature =
      compute_signature({"user"}, trace, std::nullopt,
                        Violation{"sys.L5", "ws-1", "1 pod(s) created after a successful Stop"});
  EXPECT_EQ(signature.contexts,
            (std::vector<std::string>{
                "user stop-reply: Secret=created Workspace=created",
                "user stop-reply: Pod=deleted Pod@reject Secret=created Workspace=written",
                "user write: Pod=created Secret=created Workspace=written"}));
  // Contexts are printed apart from the one-line text.
  EXPECT_THAT(signature.text(), Not(HasSubstr("Workspace=")));
  EXPECT_THAT(signature.contexts_text(), HasSubstr(" || user write: Pod=created"));
  // A violation of no object ("world") has no context.
  EXPECT_TRUE(compute_signature({"user"}, trace, std::nullopt, Violation{"sys.S1", "world", "x"})
                  .contexts.empty());
}

TEST(SignatureTest, ContextsTellBugsWithOneMessageApart) {
  // Two known bugs with the same message and path: the user's stop came while the first pod
  // was rejected (a) or before any pod existed (b). Their starts' replies came at other times.
  Signature a{"sys.L5", "", {"user start-reply", "user stop-reply"}, "# pods after Stop", ""};
  a.actions = a.path;
  Signature b = a;
  a.contexts = {"user start-reply: Secret=created Workspace=created",
                "user stop-reply: Pod=deleted Pod@reject Secret=created Workspace=written"};
  b.contexts = {"user start-reply: Pod=created Pod@bind Secret=created Workspace=written",
                "user stop-reply: Secret=created Workspace=written"};
  const std::vector<KnownBug> known = {{"b.textproto#0", b}, {"a.textproto#0", a}};
  // The finding's stop is a's; its start's reply is b's. The message names the stop ("Stop"),
  // so only the stop's context counts.
  Signature finding = a;
  finding.contexts = {"user start-reply: Pod=created Pod@bind Secret=created Workspace=written",
                      "user stop-reply: Pod=created Pod@reject Secret=created Workspace=written",
                      "user stop-reply: Secret=deleted Workspace=deleted"};
  EXPECT_DOUBLE_EQ(context_similarity(a, finding, true), 0.6);  // 3 of 5 words; first stop.
  EXPECT_DOUBLE_EQ(context_similarity(b, finding, true), 0.5);  // 2 of 4.
  ASSERT_NE(match_known(finding, known), nullptr);
  EXPECT_EQ(match_known(finding, known)->name, "a.textproto#0");
  MatchOptions off;
  off.context = MatchOptions::Context::kOff;  // Without contexts: a tie, corpus order.
  EXPECT_EQ(match_known(finding, known, off)->name, "b.textproto#0");
  // A message that names no action: every context counts (each action's first).
  a.mechanism = "never done";
  EXPECT_DOUBLE_EQ(context_similarity(a, finding, true), (0.2 + 0.6) / 2);
  // An action the finding did not do is compared with its actions of the same actor and kind
  // (the start's reply stands for the stop: 1 of 5 words); a known bug with no context is
  // covered by any.
  finding.contexts = {"user start-reply: Secret=created Workspace=created"};
  EXPECT_DOUBLE_EQ(context_similarity(a, finding, true), (1.0 + 0.2) / 2);
  finding.contexts = {"kubectl delete Namespace: Namespace=created"};
  EXPECT_DOUBLE_EQ(context_similarity(a, finding, true), 0.0);
  EXPECT_DOUBLE_EQ(context_similarity(Signature{"sys.L5", "", {}}, finding, true), 1.0);
}

TEST(SignatureTest, MatchesTheMostSpecificKnownBugAndElseIsNew) {
  const std::vector<KnownBug> known = {
      {"a.textproto#0", {"sys.S1", "m write X ok", {"user start ok"}}},
      {"b.textproto#0", {"sys.S1", "m write X ok", {"kubelet reject Pod error", "user start ok"}}},
      {"c.textproto#0", {"sys.S2", "", {"link drop lost"}}},
  };
  Signature finding{
      "sys.S1", "m write X ok", {"kubelet reject Pod error", "user start ok", "user stop ok"}};
  ASSERT_NE(match_known(finding, known), nullptr);
  EXPECT_EQ(match_known(finding, known)->name, "b.textproto#0");
  finding.path = {"user start ok", "user stop ok"};
  EXPECT_EQ(match_known(finding, known)->name, "a.textproto#0");
  finding.culprit = "m delete X ok";  // Same invariant, another mechanism: NEW.
  EXPECT_EQ(match_known(finding, known), nullptr);
  EXPECT_EQ(known_label(match_known(finding, known)), "NEW");
  // Below the coverage floor (1 of 3 < 2/3 of a known path): NEW.
  const std::vector<KnownBug> three = {
      {"d.textproto#0", {"sys.S2", "", {"a x ok", "b y ok", "link drop lost"}}}};
  EXPECT_EQ(match_known(Signature{"sys.S2", "", {"link drop lost"}}, three), nullptr);
  EXPECT_NE(match_known(Signature{"sys.S2", "", {"a x ok", "link drop lost"}}, three), nullptr);
  MatchOptions all;
  all.coverage_min = 1.0;
  EXPECT_EQ(match_known(Signature{"sys.S2", "", {"a x ok", "link drop lost"}}, three, all),
            nullptr);
}

// With the oracle's own description (the mechanism) on both sides, the culprit — whichever event
// happened to come last before the check — does not filter: it made known S14s NEW.
TEST(SignatureTest, TheCulpritFiltersOnlyWithoutAMechanism) {
  const std::vector<KnownBug> known = {
      {"a.textproto#0",
       {"sys.S1", "rails reconcile ok", {"user stop"}, "desired # set at # ms was not delivered"}}};
  Signature finding{
      "sys.S1", "scheduler bind Pod ok", {"user stop"}, "desired # set at # ms was not delivered"};
  ASSERT_NE(match_known(finding, known), nullptr);
  EXPECT_EQ(match_known(finding, known)->name, "a.textproto#0");
  finding.mechanism.clear();  // No description: the culprit tells them apart again.
  EXPECT_EQ(match_known(finding, known), nullptr);
}

TEST(SignatureTest, MechanismIsTheMessagesTemplate) {
  // Numbers → #, object references → their kind, the object's own name and quoted values dropped.
  EXPECT_EQ(normalize_text("request 12 saw 'x y' on Pod/ns/ws-3 (ws-3: 2 FULL cycles)", "ws-3"),
            "request # saw '' on Pod (: # FULL cycles)");
  EXPECT_EQ(normalize_text("pod ws-ws0-1 of ws0-1 doesn't exist, \"v12\" at 1500 ms", "ws0-1"),
            "pod of doesn't exist, \"\" at # ms");
  // Other objects' names keep their letters: their numbers are the seed's.
  EXPECT_EQ(normalize_text("  ws-7 and  ws-12  ", "ws-3"), "ws-# and ws-#");
  EXPECT_EQ(normalize_text("Deployment/ns-1/ws-3, ConfigMap/ns-1/inv.", ""),
            "Deployment, ConfigMap.");
  // Two seeds of one oracle agree; two mechanisms of one invariant differ.
  EXPECT_EQ(normalize_text("changed while request 3 was between its finder and its answer", "a"),
            normalize_text("changed while request 41 was between its finder and its answer", "b"));
  EXPECT_NE(
      normalize_text("termination never completed: desired Terminated, actual Running", ""),
      normalize_text("termination never completed: desired Terminated, actual Terminating", ""));
}

TEST(SignatureTest, StateIsTheObjectsFinalStateLines) {
  const std::string state =
      "agent A0a rails R1\n"
      "ws-1: desired Terminated, actual Terminating, updated_at 1200, responded_at NULL, no "
      "Deployment, not tracked\n"
      "ws-10: desired Running, actual Running, updated_at 300, responded_at 400, Deployment "
      "present, not tracked\n"
      "  pod ws-ws-1-2 on node-2 Running\n"
      "  pod ws-ws-1-3 on node-1 Running\n";
  EXPECT_EQ(normalize_state(state, "ws-1"),
            ": desired Terminated, actual Terminating, updated_at #, responded_at NULL, no "
            "Deployment, not tracked / pod on node-# Running");
  EXPECT_EQ(normalize_state(state, ""), "");
  EXPECT_EQ(normalize_state(state, "ws-2"), "");
  // Only a liveness violation's signature has a state; every violation has a mechanism.
  const std::vector<TraceEvent> trace = {{1, "user", "terminate", "ws-1", "ok", ""}};
  const Signature liveness = compute_signature(
      {"user"}, trace, std::nullopt, Violation{"sys.L1", "ws-1", "never done: ws-1 at 5"}, state);
  EXPECT_EQ(liveness.mechanism, "never done: at #");
  EXPECT_THAT(liveness.state, HasSubstr("actual Terminating"));
  EXPECT_EQ(liveness.text(), "sys.L1 [never done: at #] {" + liveness.state + "} | user terminate");
  const Signature safety =
      compute_signature({"user"}, trace, 0, Violation{"sys.S1", "ws-1", "bad 3"});
  EXPECT_EQ(safety.state, "");
  EXPECT_EQ(safety.text(), "sys.S1 @ user terminate ok [bad #] | user terminate");
}

TEST(SignatureTest, TheMostSimilarMechanismAndStateWin) {
  const Signature limbo{"sys.L1",
                        "",
                        {"user terminate"},
                        "never done: desired Terminated",
                        "desired Terminated, actual Running, no Deployment, not tracked"};
  const Signature stuck{"sys.L1",
                        "",
                        {"user terminate"},
                        "never done: desired Terminated",
                        "desired Terminated, actual Terminating, Deployment present, tracked"};
  const std::vector<KnownBug> known = {{"limbo.textproto#0", limbo}, {"stuck.textproto#0", stuck}};
  EXPECT_EQ(match_known(limbo, known)->name, "limbo.textproto#0");
  EXPECT_EQ(match_known(stuck, known)->name, "stuck.textproto#0");
  // Another seed's actual state (the seed's, not the bug's): still nearest to the limbo.
  Signature other = limbo;
  other.state = "desired Terminated, actual CreationRequested, no Deployment, not tracked";
  EXPECT_EQ(match_known(other, known)->name, "limbo.textproto#0");
  other.state = "desired Terminated, actual Stopped, Deployment present, tracked";
  EXPECT_EQ(match_known(other, known)->name, "stuck.textproto#0");
  // A final state like neither (under kSimilarityMin): NEW; without states, the path decides.
  other.state = "phase=Stopped podStarts=# conditions: Failed=True";
  EXPECT_EQ(match_known(other, known), nullptr);
  MatchOptions no_state;
  no_state.state = MatchOptions::State::kOff;
  EXPECT_EQ(match_known(other, known, no_state)->name, "limbo.textproto#0");
  MatchOptions equal_state;
  equal_state.state = MatchOptions::State::kFilter;
  other.state = "desired Terminated, actual CreationRequested, no Deployment, not tracked";
  EXPECT_EQ(match_known(other, known, equal_state), nullptr);
  // Another template: NEW; a finding without one is judged by the rest.
  other = limbo;
  other.mechanism = "pod created for a workspace";
  EXPECT_EQ(match_known(other, known), nullptr);
  other.mechanism.clear();
  EXPECT_EQ(match_known(other, known)->name, "limbo.textproto#0");
  // The nearest template wins over corpus order.
  const std::vector<KnownBug> losses = {
      {"delete.textproto#0", {"sys.S1", "", {}, "version # lost: ws-daemon delete"}},
      {"orphan.textproto#0", {"sys.S1", "", {}, "version # lost: orphaned"}}};
  EXPECT_EQ(match_known(Signature{"sys.S1", "", {}, "version # of lost: orphaned"}, losses)->name,
            "orphan.textproto#0");
}

TEST(SignatureTest, RelaxedTemplatesAndWordSimilarity) {
  EXPECT_EQ(relax_template("desired Stopped set at # ms (request #; not returned)"),
            "desired set at ms (request not returned)");
  EXPECT_EQ(relax_template("objects remain: Deployment Service"), "objects remain:");
  EXPECT_EQ(relax_template(""), "");
  EXPECT_DOUBLE_EQ(word_similarity("a b, c", "c; b a"), 1.0);
  EXPECT_DOUBLE_EQ(word_similarity("a b", "b c"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(word_similarity("", ""), 1.0);
  EXPECT_DOUBLE_EQ(word_similarity("a", ""), 0.0);
}

TEST(SignatureTest, ExternalActionsByActor) {
  // The script's user stopped; the hunt's user restarted: the same workload step.
  const std::vector<KnownBug> known = {{"k.textproto#0",
                                        {"sys.S1",
                                         "",
                                         {"link drop fail", "user create", "user stop"},
                                         "x",
                                         "",
                                         {"user create", "user stop"}}}};
  const Signature finding{"sys.S1", "", {"link drop fail", "user create", "user restart"},
                          "x",      "", {"user create", "user restart"}};
  MatchOptions exact;
  exact.actions = MatchOptions::Actions::kExact;
  exact.coverage_min = 2.0 / 3;
  exact.operator_actions_required = false;  // The share alone (RequiredActionsAndFaults).
  EXPECT_NE(match_known(finding, known, exact), nullptr);  // 2 of 3.
  const Signature no_fault{"sys.S1", "", {"user create", "user restart"},
                           "x",      "", {"user create", "user restart"}};
  EXPECT_EQ(match_known(no_fault, known, exact), nullptr);  // 1 of 3.
  MatchOptions by_actor = exact;
  by_actor.actions = MatchOptions::Actions::kByActor;
  EXPECT_NE(match_known(no_fault, known, by_actor), nullptr);  // 2 of 3: any user action.
  MatchOptions faults_only = exact;
  faults_only.actions = MatchOptions::Actions::kIgnored;
  EXPECT_EQ(match_known(no_fault, known, faults_only), nullptr);  // 0 of 1.
  EXPECT_NE(match_known(finding, known, faults_only), nullptr);   // 1 of 1.
}

TEST(SignatureTest, RareFeaturesOutweighCommonOnes) {
  // Every known bug has "user create": it names no mechanism. "link drop fail" is rare.
  const std::vector<KnownBug> known = {
      {"a.textproto#0", {"sys.L1", "", {"link drop fail", "user create", "user stop"}}},
      {"b.textproto#0", {"sys.L1", "", {"kubectl delete Namespace", "user create"}}},
      {"c.textproto#0", {"sys.S1", "", {"user create", "user stop"}}},
  };
  // Two of a's three features, but not its rare one: unweighted that is 2/3, a match; weighted,
  // the rare feature is most of a's path, so the finding is NEW.
  const Signature finding{"sys.L1", "", {"user create", "user stop"}};
  MatchOptions flat;
  flat.coverage_min = 2.0 / 3;
  MatchOptions rare = flat;
  rare.rarity = true;
  ASSERT_NE(match_known(finding, known, flat), nullptr);
  EXPECT_EQ(match_known(finding, known, flat)->name, "a.textproto#0");
  EXPECT_EQ(match_known(finding, known, rare), nullptr);
  // The rare feature alone covers most of a's path.
  EXPECT_EQ(
      match_known(Signature{"sys.L1", "", {"link drop fail", "user create"}}, known, rare)->name,
      "a.textproto#0");
  // Rarity is counted per system (the invariant id's prefix): another system's bugs, where the
  // feature is common, do not make it common here (counted, they would make `finding` match a).
  std::vector<KnownBug> more = known;
  for (int i = 0; i < 3; ++i)
    more.push_back({"d.textproto#0", {"other.L1", "", {"link drop fail"}}});
  EXPECT_EQ(match_known(finding, more, rare), nullptr);
}

// The signature of selftest.S1 in the "twice" run, as a known bug.
std::vector<KnownBug> known_s1(const LoadedScenario& loaded) {
  RunOptions options;
  options.keep_trace = true;
  const RunResult first = execute_run(*loaded.system, loaded.scenario, options);
  EXPECT_EQ(first.verdict, Verdict::kSafety);
  EXPECT_EQ(first.violation->invariant_id, "selftest.S1");
  EXPECT_TRUE(first.signature.has_value());
  return {KnownBug{"s1.textproto#0", *first.signature}};
}

TEST(UnmaskedRunTest, GoesPastAKnownSafetyViolationToALaterDifferentOne) {
  LoadedScenario loaded = testing::scenario_from_text(kTwice);
  const std::vector<KnownBug> known = known_s1(loaded);
  RunOptions options;
  options.keep_trace = true;
  options.known = &known;
  // Labels only: the run still stops at S1, now labelled known.
  const RunResult labelled = execute_run(*loaded.system, loaded.scenario, options);
  EXPECT_EQ(labelled.violation->invariant_id, "selftest.S1");
  EXPECT_TRUE(labelled.labelled);
  EXPECT_EQ(labelled.known, "s1.textproto#0");
  // Going past: S1 is recorded, the run goes on and S2, a NEW bug, decides the verdict.
  options.go_past_known = true;
  options.record_choices = true;
  const RunResult past = execute_run(*loaded.system, loaded.scenario, options);
  ASSERT_EQ(past.masked.size(), 1u);
  EXPECT_EQ(past.masked[0].violation.invariant_id, "selftest.S1");
  EXPECT_EQ(past.masked[0].known, "s1.textproto#0");
  ASSERT_TRUE(past.violation.has_value());
  EXPECT_EQ(past.verdict, Verdict::kSafety);
  EXPECT_EQ(past.violation->invariant_id, "selftest.S2");
  EXPECT_TRUE(past.known.empty());  // NEW
  EXPECT_GT(past.end_ms, labelled.end_ms);

  // The fast path (no trace first) gives the same run.
  RunOptions fast;
  const RunResult again = execute_run_with_known(*loaded.system, loaded.scenario, fast, known);
  EXPECT_EQ(again.trace_hash, past.trace_hash);
  EXPECT_EQ(again.violation->invariant_id, "selftest.S2");

  // Replayed from the scenario's go_past entries (no known list): the same trace hash.
  proto::Scenario replay = loaded.scenario;
  proto::KnownViolation* entry = replay.add_go_past();
  entry->set_invariant("selftest.S1");
  entry->set_object(past.masked[0].violation.object);
  entry->set_known("s1.textproto#0");
  RunOptions tape;
  tape.tape = tape_of(past.record);
  const RunResult replayed = execute_run(*loaded.system, replay, tape);
  EXPECT_EQ(replayed.trace_hash, past.trace_hash);
  EXPECT_EQ(replayed.violation->invariant_id, "selftest.S2");
}

TEST(UnmaskedRunTest, OnlyKnownViolationsEndAsTheFirstOfThem) {
  LoadedScenario loaded = testing::scenario_from_text(
      "selftest { version: \"twice\" violate_after_ms: 40000 }\nfault_phase_ms: 60000\n");
  const std::vector<KnownBug> known = known_s1(loaded);
  RunOptions options;
  options.keep_trace = true;
  options.known = &known;
  options.go_past_known = true;
  const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  // S2 would come after 80 s, past the 60 s fault phase: only the known S1 happened.
  ASSERT_EQ(result.masked.size(), 1u);
  EXPECT_EQ(result.verdict, Verdict::kSafety);
  EXPECT_EQ(result.violation->invariant_id, "selftest.S1");
  EXPECT_EQ(result.known, "s1.textproto#0");
  EXPECT_EQ(result.phase, RunPhase::kLiveness);  // It ran to the end.
}

// A liveness verdict of a run that went past a known safety violation is that bug's consequence:
// the world it broke never converges (a leak keeps the protocol busy), which is not NEW.
TEST(UnmaskedRunTest, LivenessAfterAKnownViolationIsItsConsequence) {
  LoadedScenario loaded = testing::scenario_from_text(
      "selftest { version: \"leaky\" violate_after_ms: 20000 }\nfault_phase_ms: 60000\n");
  const std::vector<KnownBug> known = known_s1(loaded);
  RunOptions options;
  options.keep_trace = true;
  options.known = &known;
  options.go_past_known = true;
  const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  ASSERT_EQ(result.masked.size(), 1u);
  ASSERT_TRUE(result.violation.has_value());
  EXPECT_EQ(result.verdict, Verdict::kLiveness);
  EXPECT_EQ(result.violation->invariant_id, "selftest.L1");
  EXPECT_EQ(result.known, "s1.textproto#0");
  // Without the known S1 the same liveness verdict is NEW.
  const std::vector<KnownBug> none;
  options.known = &none;
  const RunResult unknown = execute_run(*loaded.system, loaded.scenario, options);
  EXPECT_EQ(unknown.verdict, Verdict::kSafety);
  EXPECT_TRUE(unknown.known.empty());
}

TEST(UnmaskedRunTest, GoPastEntriesAreValidated) {
  testing::register_test_systems();
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(parse_scenario(std::string(kTwice) + "go_past { invariant: \"selftest.L1\" object: "
                                                   "\"ticker-0\" }\n",
                             "x.textproto", loaded, error));
  EXPECT_FALSE(validate_scenario(loaded, error));
  EXPECT_THAT(error, HasSubstr("x.textproto:3:"));
  EXPECT_THAT(error, HasSubstr("go_past"));
  EXPECT_THAT(error, HasSubstr("is not a safety invariant"));
}

TEST(UnmaskedHuntTest, ReportsKnownFindingsAndFailsOnlyForNewOnes) {
  LoadedScenario loaded = testing::scenario_from_text(kTwice);
  const std::vector<KnownBug> known = known_s1(loaded);
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.out_dir = testing::scratch_dir("hunt-unmasked");
  options.repro_command = "scripts/wsim run --system selftest";
  options.runs = 6;
  options.jobs = 2;
  options.known = &known;
  options.unmasked = true;
  options.keep_going = true;
  const HuntResult result = hunt(options);
  EXPECT_EQ(result.runs, 6u);
  std::map<std::string, const Finding*> by_invariant;
  for (const Finding& finding : result.findings) by_invariant[finding.invariant] = &finding;
  ASSERT_EQ(by_invariant.count("selftest.S1"), 1u);
  ASSERT_EQ(by_invariant.count("selftest.S2"), 1u);
  EXPECT_EQ(by_invariant["selftest.S1"]->known, "s1.textproto#0");
  EXPECT_EQ(by_invariant["selftest.S1"]->count, 6u);
  EXPECT_TRUE(by_invariant["selftest.S2"]->labelled);
  EXPECT_TRUE(by_invariant["selftest.S2"]->known.empty());
  EXPECT_EQ(result.exit_code(), kExitSafety);  // S2 is NEW.
  // The NEW finding's bundle goes past S1 when replayed.
  const std::string bundle = by_invariant["selftest.S2"]->bundle;
  ASSERT_FALSE(bundle.empty());
  Bundle read;
  std::string error;
  ASSERT_TRUE(read_bundle(bundle, read, error)) << error;
  ASSERT_EQ(read.scenario.scenario.go_past_size(), 1);
  RunOptions tape;
  tape.tape = tape_of(read.record);
  ASSERT_TRUE(validate_scenario(read.scenario, error)) << error;
  EXPECT_EQ(execute_run(*read.scenario.system, read.scenario.scenario, tape).trace_hash,
            read.trace_hash);

  // Both known: the hunt runs its whole budget and passes.
  std::vector<KnownBug> both = known;
  EXPECT_THAT(by_invariant["selftest.S2"]->signature, HasSubstr("selftest.S2 @ selftest tick"));
  both.push_back(KnownBug{"s2.textproto#0", Signature{"selftest.S2", "", {}}});
  options.keep_going = false;
  options.out_dir = testing::scratch_dir("hunt-unmasked-both");
  const HuntResult quiet = hunt(options);
  EXPECT_EQ(quiet.exit_code(), kExitSafety);  // Without S2 known it stops at S2 ...
  options.known = &both;
  const HuntResult all_known = hunt(options);
  EXPECT_EQ(all_known.runs, 6u);  // ... with it, nothing NEW: the whole budget, exit 0.
  EXPECT_EQ(all_known.exit_code(), kExitPass);
  EXPECT_FALSE(all_known.findings.empty());
}

// A kubectl action on one kind does not stand for one on another kind (the default rule); a
// user's action stands for another of the same user (a workspace has no kind).
TEST(SignatureTest, ExternalActionsByActorAndKind) {
  const std::vector<KnownBug> known = {{"k.textproto#0",
                                        {"sys.L1",
                                         "",
                                         {"kubectl delete ConfigMap", "user terminate"},
                                         "x",
                                         "",
                                         {"kubectl delete ConfigMap", "user terminate"}}}};
  auto finding = [](std::vector<std::string> actions) {
    return Signature{"sys.L1", "", actions, "x", "", actions};
  };
  MatchOptions options;
  options.coverage_min = 1.0;
  ASSERT_EQ(options.actions, MatchOptions::Actions::kByActorAndKind);
  EXPECT_NE(match_known(finding({"kubectl delete ConfigMap", "user stop"}), known, options),
            nullptr);
  EXPECT_NE(match_known(finding({"kubectl patch ConfigMap", "user stop"}), known, options),
            nullptr);
  EXPECT_EQ(match_known(finding({"kubectl delete Namespace", "user stop"}), known, options),
            nullptr);
  options.actions = MatchOptions::Actions::kByActor;  // The rule before: any kubectl action.
  EXPECT_NE(match_known(finding({"kubectl delete Namespace", "user stop"}), known, options),
            nullptr);
}

// An operator's upgrade on the known path is an input the bug needed, which no random workload
// produces: a finding whose run never upgraded covers the user's actions (2 of 3, enough for the
// coverage share) but not the bug (operator_actions_required, the default). A kubectl deletion
// is required only with actions_required (a fault can do what it did); fault_required asks one
// of the known path's faults.
TEST(SignatureTest, RequiredActionsAndFaults) {
  const std::vector<KnownBug> known = {{"upgrade.textproto#0",
                                        {"sys.S1",
                                         "",
                                         {"admin upgrade", "user start", "user write"},
                                         "lost: orphaned",
                                         "",
                                         {"admin upgrade", "user start", "user write"}}},
                                       {"inventory.textproto#0",
                                        {"sys.S1",
                                         "",
                                         {"kubectl delete ConfigMap", "user start", "user write"},
                                         "lost: orphaned",
                                         "",
                                         {"kubectl delete ConfigMap", "user start", "user write"}}},
                                       {"storm.textproto#0",
                                        {"sys.S1",
                                         "",
                                         {"mgr patch fail", "user start", "user stop"},
                                         "lost: orphaned",
                                         "",
                                         {"user start", "user stop"}}}};
  const Signature users_only{"sys.S1",         "", {"user start", "user write"},
                             "lost: orphaned", "", {"user start", "user write"}};
  const Signature upgraded{"sys.S1",         "", {"admin upgrade", "user start", "user write"},
                           "lost: orphaned", "", {"admin upgrade", "user start", "user write"}};
  MatchOptions options;
  ASSERT_TRUE(options.operator_actions_required);
  ASSERT_FALSE(options.actions_required);
  ASSERT_FALSE(options.fault_required);
  options.operator_actions_required = false;  // The share alone: the first of three, 2 of 3.
  ASSERT_NE(match_known(users_only, known, options), nullptr);
  EXPECT_EQ(match_known(users_only, known, options)->name, "upgrade.textproto#0");
  options.operator_actions_required = true;  // The default: no upgrade, not upgrade's bug.
  ASSERT_NE(match_known(users_only, known, options), nullptr);
  EXPECT_EQ(match_known(users_only, known, options)->name, "inventory.textproto#0");
  options.actions_required = true;  // No kubectl deletion either.
  ASSERT_NE(match_known(users_only, known, options), nullptr);
  EXPECT_EQ(match_known(users_only, known, options)->name, "storm.textproto#0");
  options.fault_required = true;  // storm's path has a fault, which the finding lacks.
  EXPECT_EQ(match_known(users_only, known, options), nullptr);
  ASSERT_NE(match_known(upgraded, known, options), nullptr);  // No fault on upgrade's path.
  EXPECT_EQ(match_known(upgraded, known, options)->name, "upgrade.textproto#0");
}

// By default the mechanism and the state are one text: a short state whose one word the seed
// changed ("Failed" or "Succeeded") still matches when the mechanism is the same, and a state
// whose situation words differ does not.
TEST(SignatureTest, MechanismAndStateAreJudgedAsOneText) {
  const std::vector<KnownBug> known = {
      {"k.textproto#0",
       {"sys.L2", "", {}, "pod stuck Terminating", "on node-# Failed Terminating finalizers=#"}}};
  Signature finding{
      "sys.L2", "", {}, "pod stuck Terminating", "on node-# Succeeded Terminating finalizers=#"};
  MatchOptions options;
  ASSERT_TRUE(options.combined);
  EXPECT_NE(match_known(finding, known, options), nullptr);  // 6 of 8 words: 0.75.
  options.combined = false;
  EXPECT_EQ(match_known(finding, known, options), nullptr);  // The state alone: 4 of 6.
  options.combined = true;
  finding.state = "phase=Running podStarts=# conditions: Deployed=True";
  EXPECT_EQ(match_known(finding, known, options), nullptr);
}

TEST(SignatureTest, WeightedWordsWeighWhatEveryKnownBugSaysLess) {
  const std::vector<KnownBug> known = {
      {"a#0", {"sys.L1", "", {}, "desired Terminated actual Running"}},
      {"b#0", {"sys.L1", "", {}, "desired Terminated actual Terminating"}},
      {"c#0", {"other.L1", "", {}, "Running Running"}},
  };
  const WordWeights weights = word_weights(known, "sys");
  EXPECT_EQ(weights.documents, 2);
  EXPECT_DOUBLE_EQ(weights.weight("desired"), 1.0);                 // In both: log(3/3) + 1.
  EXPECT_GT(weights.weight("Running"), weights.weight("desired"));  // In one.
  EXPECT_GT(weights.weight("unseen"), weights.weight("Running"));   // In none.
  // Unweighted 3 of 5 words; weighted the shared words are the common ones: less similar.
  EXPECT_DOUBLE_EQ(
      word_similarity("desired Terminated actual Running", "desired Terminated actual Terminating"),
      0.6);
  EXPECT_LT(weighted_word_similarity("desired Terminated actual Running",
                                     "desired Terminated actual Terminating", weights),
            0.6);
}

}  // namespace
}  // namespace wsim::run
