// serve/api_invariants.h: the scenario's invariants over API state — parsing (with errors that
// say what was expected) and checking them on a fake API server.
#include "serve/api_invariants.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "serve/external_system.h"

#include "sim/core/choice.h"
#include "sim/kube/api_server.h"
#include "sim/run/scenario.h"

namespace wsim::serve {
namespace {

struct Fixture {
  Sim sim{ChoiceSource::from_seed(1)};
  kube::ApiServer api{sim};

  Fixture() { add("Namespace", "", "default"); }

  void add(const std::string& kind, const std::string& ns, const std::string& name,
           std::map<std::string, std::string> labels = {},
           std::map<std::string, std::string> spec = {}) {
    kube::Object object;
    object.kind = kind;
    object.meta.namespace_ = ns;
    object.meta.name = name;
    object.meta.labels = std::move(labels);
    object.spec = std::move(spec);
    ASSERT_TRUE(api.server_create(object, "test").ok());
  }

  // Writes spec KEY or status KEY (key "status.phase") of an object.
  void set(const std::string& kind, const std::string& ns, const std::string& name,
           const std::string& key, const std::string& value) {
    const kube::Object* current = api.peek(kube::ObjectRef{kind, ns, name});
    ASSERT_NE(current, nullptr);
    kube::Object object = *current;
    const bool status = key.rfind("status.", 0) == 0;
    (status ? object.status : object.spec)[key.substr(key.find('.') + 1)] = value;
    ASSERT_TRUE(api.server_update(object,
                                  status ? kube::Subresource::kStatus : kube::Subresource::kMain,
                                  "test")
                    .ok());
  }

  void remove(const std::string& kind, const std::string& ns, const std::string& name) {
    ASSERT_TRUE(api.server_delete(kube::ObjectRef{kind, ns, name}, {}, "test").ok());
  }
};

std::string parse_error(const std::string& text) {
  ApiInvariant inv;
  std::string error;
  EXPECT_FALSE(parse_api_invariant(text, inv, error)) << text;
  return error;
}

ApiInvariant parsed(const std::string& text) {
  ApiInvariant inv;
  std::string error;
  EXPECT_TRUE(parse_api_invariant(text, inv, error)) << error;
  inv.id = "external.X";
  return inv;
}

TEST(ServeApiInvariants, ParseErrorsSayWhatWasExpected) {
  ApiInvariant inv;
  std::string error;
  EXPECT_FALSE(parse_api_invariant("sometimes: at most 1 Pod per label a", inv, error));
  EXPECT_NE(error.find("'always:', 'eventually:'"), std::string::npos) << error;
  EXPECT_FALSE(parse_api_invariant("always: at most x Pod per label a", inv, error));
  EXPECT_NE(error.find("at most N KIND per label KEY"), std::string::npos) << error;
  EXPECT_FALSE(parse_api_invariant("eventually: at most 1 Pod per label a", inv, error));
  EXPECT_FALSE(parse_api_invariant("always: every Pod has", inv, error));
  EXPECT_FALSE(parse_api_invariant("always: every Pod has Workspace a b c", inv, error));
  EXPECT_FALSE(parse_api_invariant("always: no Pod in", inv, error));
  std::vector<ApiInvariant> list;
  EXPECT_FALSE(parse_api_invariants({"always: no Pod", "bad"}, list, error));
  EXPECT_NE(error.find("invariants[1]"), std::string::npos) << error;
}

TEST(ServeApiInvariants, IdsAreNumberedPerKindInOrder) {
  std::vector<ApiInvariant> list;
  std::string error;
  ASSERT_TRUE(parse_api_invariants(
      {"always: no Pod", "eventually: no Pod", "always: at most 2 Pod per label a"}, list, error))
      << error;
  EXPECT_EQ(list[0].id, "external.S1");
  EXPECT_EQ(list[1].id, "external.L1");
  EXPECT_EQ(list[2].id, "external.S2");
  EXPECT_EQ(list[2].at_most, 2);
}

TEST(ServeApiInvariants, AtMostCountsLiveObjectsPerLabelValue) {
  Fixture f;
  const ApiInvariant inv = parsed("always: at most 1 Pod per label workspace");
  f.add("Pod", "default", "a", {{"workspace", "w1"}});
  f.add("Pod", "default", "b", {{"workspace", "w2"}});
  f.add("Pod", "default", "c");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
  f.add("Pod", "default", "d", {{"workspace", "w1"}});
  const std::vector<run::Violation> found = check_api_invariant(inv, f.api);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant_id, "external.X");
  EXPECT_EQ(found[0].object, "Pod workspace=w1");
  EXPECT_NE(found[0].message.find("(a, d)"), std::string::npos) << found[0].message;
}

TEST(ServeApiInvariants, EveryHasFindsTheOwnerByTemplateOrLabel) {
  Fixture f;
  const ApiInvariant owner =
      parsed("eventually: every Pod labelled workspace has Workspace default/{label:workspace}");
  const ApiInvariant pod = parsed(
      "eventually: every Workspace in default has Pod labelled "
      "workspace={name}");
  f.add("Namespace", "", "ws-a");
  f.add("Pod", "ws-a", "p", {{"workspace", "a"}});
  ASSERT_EQ(check_api_invariant(owner, f.api).size(), 1u);
  EXPECT_EQ(check_api_invariant(owner, f.api)[0].object, "Pod/ws-a/p");
  f.add("Workspace", "default", "a");
  EXPECT_TRUE(check_api_invariant(owner, f.api).empty());
  EXPECT_TRUE(check_api_invariant(pod, f.api).empty());
  f.add("Workspace", "default", "b");
  ASSERT_EQ(check_api_invariant(pod, f.api).size(), 1u);
  EXPECT_EQ(check_api_invariant(pod, f.api)[0].object, "Workspace/default/b");
}

TEST(ServeApiInvariants, NoForbidsEveryMatchingObject) {
  Fixture f;
  const ApiInvariant inv = parsed("always: no ConfigMap in default labelled orphan");
  f.add("ConfigMap", "default", "kept");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
  f.add("ConfigMap", "default", "o", {{"orphan", "yes"}});
  EXPECT_EQ(check_api_invariant(inv, f.api).size(), 1u);
}

// --- Ordering and state rules (issue #33 item 4) ---

TEST(ServeApiInvariants, ParsesImpliesWithinAndHistoryRules) {
  ApiInvariant inv = parsed(
      "always: Workspace in default with status.phase == Running and not deleting implies "
      "spec.desired == running");
  EXPECT_EQ(inv.form, ApiInvariant::Form::kImplies);
  EXPECT_EQ(inv.namespace_, "default");
  ASSERT_EQ(inv.with.size(), 2u);
  EXPECT_EQ(inv.with[0].op, ApiAtom::Op::kEquals);
  EXPECT_EQ(inv.with[0].path, "status.phase");
  EXPECT_EQ(inv.with[1].op, ApiAtom::Op::kNotDeleting);
  ASSERT_EQ(inv.then.size(), 1u);
  EXPECT_EQ(inv.then[0].text, "spec.desired == running");

  inv = parsed("always: Pod with label workspace implies Workspace {label:workspace} exists");
  ASSERT_EQ(inv.then.size(), 1u);
  EXPECT_EQ(inv.then[0].op, ApiAtom::Op::kExists);
  EXPECT_EQ(inv.then[0].target.kind, "Workspace");
  EXPECT_EQ(inv.then[0].target.ref, "{label:workspace}");

  inv = parsed(
      "eventually within 60s: every Workspace with spec.desired == stopped has no Pod labelled "
      "workspace={name}");
  EXPECT_TRUE(inv.always);
  EXPECT_EQ(inv.within_ms, 60000);
  EXPECT_EQ(inv.form, ApiInvariant::Form::kEveryHas);
  EXPECT_TRUE(inv.target_absent);
  EXPECT_EQ(inv.target_label, "workspace");
  EXPECT_EQ(inv.target_value, "{name}");

  inv = parsed("history: Workspace status.phase never Stopped -> Running, \"\" -> Stopped");
  EXPECT_EQ(inv.form, ApiInvariant::Form::kHistory);
  EXPECT_EQ(inv.history, ApiInvariant::History::kNever);
  EXPECT_EQ(inv.path, "status.phase");
  ASSERT_EQ(inv.transitions.size(), 2u);
  EXPECT_EQ(inv.transitions[1], std::make_pair(std::string(), std::string("Stopped")));
  inv = parsed("history: Workspace labelled a status.phase only * -> Failed, Pending -> Running");
  EXPECT_EQ(inv.history, ApiInvariant::History::kOnly);
  EXPECT_EQ(inv.label, "a");
  inv = parsed("history: Workspace spec.desired after deleted never running");
  EXPECT_EQ(inv.history, ApiInvariant::History::kAfterNever);

  std::vector<ApiInvariant> list;
  std::string error;
  ASSERT_TRUE(parse_api_invariants({"eventually: no Pod", "history: Pod spec.a never x -> y",
                                    "eventually within 5m: no Pod", "always: Pod implies label a"},
                                   list, error))
      << error;
  EXPECT_EQ(list[0].id, "external.L1");
  EXPECT_EQ(list[1].id, "external.S1");
  EXPECT_EQ(list[2].id, "external.S2");
  EXPECT_EQ(list[3].id, "external.S3");
}

TEST(ServeApiInvariants, BadOrderingRulesSayWhatWasExpected) {
  EXPECT_NE(
      parse_error("always: Pod with phase == x implies label a").find("unknown field 'phase'"),
      std::string::npos);
  EXPECT_NE(parse_error("always: Pod with label a").find("'KIND [with CONDITION] implies"),
            std::string::npos);
  EXPECT_NE(parse_error("always: Pod implies spec.a ==").find("expected a value"),
            std::string::npos);
  EXPECT_NE(parse_error("always: Pod implies Workspace x").find("unknown condition"),
            std::string::npos);
  EXPECT_NE(parse_error("always: Pod implies label a xor label b").find("unexpected 'xor'"),
            std::string::npos);
  EXPECT_NE(parse_error("eventually within soon: no Pod").find("bad duration 'soon'"),
            std::string::npos);
  EXPECT_NE(parse_error("eventually within 60s no Pod").find("'eventually within DURATION:'"),
            std::string::npos);
  EXPECT_NE(parse_error("eventually within 1m: at most 1 Pod per label a").find("safety"),
            std::string::npos);
  EXPECT_NE(parse_error("history: Pod status.phase never Stopped Running").find("'A -> B"),
            std::string::npos);
  EXPECT_NE(parse_error("history: Pod status.phase sometimes a -> b").find("never A -> B"),
            std::string::npos);
  EXPECT_NE(parse_error("history: Pod phase never a -> b").find("unknown field 'phase'"),
            std::string::npos);
  EXPECT_NE(parse_error("always: every Pod has no").find("has [no] KIND2"), std::string::npos);
  std::vector<ApiInvariant> list;
  std::string error;
  EXPECT_FALSE(parse_api_invariants(
      {"always: no Pod", "eventually: no Pod", "always: Pod with x == 1 implies label a"}, list,
      error));
  EXPECT_EQ(error.rfind("invariants[2] \"always: Pod with x == 1", 0), 0u) << error;
}

TEST(ServeApiInvariants, ImpliesComparesFieldsOfTheSameObject) {
  Fixture f;
  const ApiInvariant inv =
      parsed("always: Workspace with status.phase == Running implies spec.desired == running");
  f.add("Workspace", "default", "a", {}, {{"desired", "running"}});
  f.add("Workspace", "default", "b", {}, {{"desired", "stopped"}});
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());  // No phase yet: not selected.
  f.set("Workspace", "default", "a", "status.phase", "Running");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
  f.set("Workspace", "default", "b", "status.phase", "Running");
  const std::vector<run::Violation> found = check_api_invariant(inv, f.api);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].object, "Workspace/default/b");
  EXPECT_NE(found[0].message.find("not spec.desired == running"), std::string::npos)
      << found[0].message;
  // "" is no value.
  const ApiInvariant unset = parsed("always: Workspace implies status.reason == \"\"");
  EXPECT_TRUE(check_api_invariant(unset, f.api).empty());
  f.set("Workspace", "default", "a", "status.reason", "x");
  EXPECT_EQ(check_api_invariant(unset, f.api).size(), 1u);
}

TEST(ServeApiInvariants, ExistsLooksInTheSubjectsNamespaceForABareName) {
  Fixture f;
  const ApiInvariant inv =
      parsed("always: Pod with label workspace implies Workspace {label:workspace} exists");
  const ApiInvariant ns = parsed("always: Pod implies Namespace {namespace} exists");
  f.add("Pod", "default", "p", {{"workspace", "w"}});
  f.add("Pod", "default", "unlabelled");
  ASSERT_EQ(check_api_invariant(inv, f.api).size(), 1u);
  EXPECT_EQ(check_api_invariant(inv, f.api)[0].object, "Pod/default/p");
  EXPECT_TRUE(check_api_invariant(ns, f.api).empty());  // Cluster-scoped: by name alone.
  f.add("Namespace", "", "other");
  f.add("Workspace", "other", "w");
  EXPECT_EQ(check_api_invariant(inv, f.api).size(), 1u);  // Not in the Pod's namespace.
  f.add("Workspace", "default", "w");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
}

TEST(ServeApiInvariants, EveryHasNoAndWithSelectTheirObjects) {
  Fixture f;
  const ApiInvariant inv = parsed(
      "always: every Workspace with spec.desired == stopped has no Pod labelled "
      "workspace={name}");
  const ApiInvariant none = parsed("always: no Pod with deleting");
  f.add("Workspace", "default", "a", {}, {{"desired", "running"}});
  f.add("Pod", "default", "pa", {{"workspace", "a"}});
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
  f.set("Workspace", "default", "a", "spec.desired", "stopped");
  const std::vector<run::Violation> found = check_api_invariant(inv, f.api);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("Workspace/default/a has Pod labelled workspace=a"),
            std::string::npos)
      << found[0].message;
  EXPECT_TRUE(check_api_invariant(none, f.api).empty());
  f.remove("Pod", "default", "pa");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
}

TEST(ServeApiInvariants, WithinFiresOnlyAfterTheDeadlineWithoutABreak) {
  Fixture f;
  std::vector<ApiInvariant> rules;
  std::string error;
  ASSERT_TRUE(parse_api_invariants(
      {"eventually within 60s: every Workspace with spec.desired == stopped has no Pod labelled "
       "workspace={name}"},
      rules, error))
      << error;
  ApiMonitor monitor(rules, f.api);
  f.add("Workspace", "default", "a", {}, {{"desired", "stopped"}});
  f.add("Pod", "default", "pa", {{"workspace", "a"}});
  EXPECT_FALSE(monitor.check_safety(1000));
  EXPECT_EQ(monitor.next_deadline_ms(), std::optional<TimeMs>(61001));
  EXPECT_FALSE(monitor.check_safety(61000));  // Exactly 60 s: still in time.
  std::optional<run::Violation> late = monitor.check_safety(61001);
  ASSERT_TRUE(late);
  EXPECT_EQ(late->invariant_id, "external.S1");
  EXPECT_EQ(late->object, "Workspace/default/a");
  EXPECT_NE(late->message.find("for longer than"), std::string::npos) << late->message;
  EXPECT_FALSE(monitor.check_safety(70000));  // Reported once.
  EXPECT_FALSE(monitor.next_deadline_ms());

  // Another object whose obligation ends in time, then starts again: the clock restarts.
  f.add("Workspace", "default", "b", {}, {{"desired", "stopped"}});
  f.add("Pod", "default", "pb", {{"workspace", "b"}});
  EXPECT_FALSE(monitor.check_safety(100000));
  f.remove("Pod", "default", "pb");
  EXPECT_FALSE(monitor.check_safety(150000));
  EXPECT_FALSE(monitor.next_deadline_ms());
  f.add("Pod", "default", "pb2", {{"workspace", "b"}});
  EXPECT_FALSE(monitor.check_safety(170000));
  EXPECT_FALSE(monitor.check_safety(200000));  // 30 s since the new pod, not 100 s.
  EXPECT_TRUE(monitor.check_safety(230001));
}

TEST(ServeApiInvariants, HistoryNeverSeesEachCommittedTransition) {
  Fixture f;
  std::vector<ApiInvariant> rules;
  std::string error;
  ASSERT_TRUE(parse_api_invariants({"history: Workspace status.phase never Stopped -> Running"},
                                   rules, error))
      << error;
  ApiMonitor monitor(rules, f.api);
  f.add("Workspace", "default", "a");
  f.set("Workspace", "default", "a", "status.phase", "Running");
  f.set("Workspace", "default", "a", "status.phase", "Stopped");
  EXPECT_FALSE(monitor.check_safety(0));
  // Two writes between checks: the monitor sees both, not only the last state.
  f.set("Workspace", "default", "a", "status.phase", "Running");
  f.set("Workspace", "default", "a", "status.phase", "Stopped");
  std::optional<run::Violation> found = monitor.check_safety(0);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->invariant_id, "external.S1");
  EXPECT_NE(found->message.find("status.phase 'Stopped' -> 'Running'"), std::string::npos)
      << found->message;
  EXPECT_FALSE(monitor.check_safety(0));
}

TEST(ServeApiInvariants, HistoryOnlyAllowsTheListedTransitions) {
  Fixture f;
  std::vector<ApiInvariant> rules;
  std::string error;
  ASSERT_TRUE(parse_api_invariants(
      {"history: Workspace status.phase only \"\" -> Pending, Pending -> Running, * -> Failed"},
      rules, error))
      << error;
  ApiMonitor monitor(rules, f.api);
  f.add("Workspace", "default", "a");
  f.set("Workspace", "default", "a", "status.phase", "Pending");
  f.set("Workspace", "default", "a", "status.phase", "Running");
  f.set("Workspace", "default", "a", "spec.x", "1");  // The field does not change.
  f.set("Workspace", "default", "a", "status.phase", "Failed");
  EXPECT_FALSE(monitor.check_safety(0));
  f.set("Workspace", "default", "a", "status.phase", "Running");
  std::optional<run::Violation> found = monitor.check_safety(0);
  ASSERT_TRUE(found);
  EXPECT_NE(found->message.find("'Failed' -> 'Running'"), std::string::npos) << found->message;
}

TEST(ServeApiInvariants, HistoryAfterNeverIsPerObjectIncarnation) {
  Fixture f;
  std::vector<ApiInvariant> rules;
  std::string error;
  ASSERT_TRUE(parse_api_invariants({"history: Workspace spec.desired after stopped never running"},
                                   rules, error))
      << error;
  ApiMonitor monitor(rules, f.api);
  f.add("Workspace", "default", "a", {}, {{"desired", "stopped"}});
  f.add("Workspace", "default", "b", {}, {{"desired", "running"}});
  f.set("Workspace", "default", "b", "spec.desired", "stopped");
  f.remove("Workspace", "default", "a");
  f.add("Workspace", "default", "a", {}, {{"desired", "running"}});  // A new object.
  EXPECT_FALSE(monitor.check_safety(0));
  f.set("Workspace", "default", "b", "spec.desired", "paused");
  EXPECT_FALSE(monitor.check_safety(0));
  f.set("Workspace", "default", "b", "spec.desired", "running");
  std::optional<run::Violation> found = monitor.check_safety(0);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->object, "Workspace/default/b");
}

TEST(ServeApiInvariants, MonitorGivesEachViolationOnceThenTheNext) {
  Fixture f;
  std::vector<ApiInvariant> rules;
  std::string error;
  ASSERT_TRUE(parse_api_invariants({"always: no Pod", "eventually: no ConfigMap"}, rules, error));
  ApiMonitor monitor(rules, f.api);
  f.add("Pod", "default", "a");
  f.add("Pod", "default", "b");
  f.add("ConfigMap", "default", "c");
  std::optional<run::Violation> first = monitor.check_safety(0);
  std::optional<run::Violation> second = monitor.check_safety(0);
  ASSERT_TRUE(first);
  ASSERT_TRUE(second);
  EXPECT_EQ(first->object, "Pod/default/a");
  EXPECT_EQ(second->object, "Pod/default/b");
  EXPECT_FALSE(monitor.check_safety(0));
  ASSERT_EQ(monitor.check_liveness().size(), 1u);
  EXPECT_EQ(monitor.check_liveness()[0].invariant_id, "external.L1");
}

// Quoted values (issue #33 item 4's gaps): a value with spaces in double quotes, never a keyword.
TEST(ServeApiInvariants, QuotedValuesMayHoldSpacesAndKeywords) {
  Fixture f;
  const ApiInvariant inv = parsed(
      "always: Workspace with spec.image == \"ide 2 and more\" implies status.note == "
      "\"a \\\"quoted\\\" word\"");
  ASSERT_EQ(inv.with.size(), 1u);
  EXPECT_EQ(inv.with[0].value, "ide 2 and more");
  ASSERT_EQ(inv.then.size(), 1u);
  EXPECT_EQ(inv.then[0].value, "a \"quoted\" word");
  f.add("Workspace", "default", "a", {}, {{"image", "ide 2 and more"}});
  f.add("Workspace", "default", "b", {}, {{"image", "ide"}});
  f.set("Workspace", "default", "b", "status.note", "other");  // Not selected: another image.
  ASSERT_EQ(check_api_invariant(inv, f.api).size(), 1u);
  EXPECT_EQ(check_api_invariant(inv, f.api)[0].object, "Workspace/default/a");
  f.set("Workspace", "default", "a", "status.note", "a \"quoted\" word");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
  // In a history rule, with commas after quoted and unquoted values.
  const ApiInvariant history = parsed(
      "history: Workspace status.phase only \"\" -> \"Not ready\", \"Not ready\" -> "
      "Running, Running -> \"\"");
  ASSERT_EQ(history.transitions.size(), 3u);
  EXPECT_EQ(history.transitions[0], std::make_pair(std::string(), std::string("Not ready")));
  EXPECT_EQ(history.transitions[1],
            std::make_pair(std::string("Not ready"), std::string("Running")));
  EXPECT_EQ(history.transitions[2], std::make_pair(std::string("Running"), std::string()));
  EXPECT_NE(parse_error("always: Workspace implies spec.image == \"ide 2").find("unclosed quote"),
            std::string::npos);
  EXPECT_NE(parse_error("always: Workspace implies spec.image == \"ide\"x")
                .find("expected a space after the quoted value"),
            std::string::npos);
}

TEST(ServeApiInvariants, OrHoldsWhenOneAlternativeHoldsAndBindsLooserThanAnd) {
  Fixture f;
  const ApiInvariant inv = parsed(
      "always: Workspace implies status.phase == Running or status.phase == Stopped and "
      "spec.desired == stopped");
  ASSERT_EQ(inv.then.size(), 3u);
  EXPECT_FALSE(inv.then[0].or_before);
  EXPECT_TRUE(inv.then[1].or_before);
  EXPECT_FALSE(inv.then[2].or_before);  // "and" binds tighter: (Stopped and stopped).
  f.add("Workspace", "default", "a", {}, {{"desired", "running"}});
  f.set("Workspace", "default", "a", "status.phase", "Running");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());  // The first alternative.
  f.set("Workspace", "default", "a", "status.phase", "Stopped");
  std::vector<run::Violation> found = check_api_invariant(inv, f.api);
  ASSERT_EQ(found.size(), 1u);  // Stopped but desired running: neither alternative.
  EXPECT_NE(found[0].message.find("not (status.phase == Running or spec.desired == stopped)"),
            std::string::npos)
      << found[0].message;
  f.set("Workspace", "default", "a", "spec.desired", "stopped");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());  // The second alternative.
  // In a subject's `with` condition too.
  const ApiInvariant with =
      parsed("always: no Workspace with status.phase == Failed or spec.desired == broken");
  EXPECT_TRUE(check_api_invariant(with, f.api).empty());
  f.set("Workspace", "default", "a", "spec.desired", "broken");
  EXPECT_EQ(check_api_invariant(with, f.api).size(), 1u);
  EXPECT_NE(parse_error("always: Workspace implies status.phase == Running or")
                .find("expected a condition"),
            std::string::npos);
}

TEST(ServeApiInvariants, NumericComparisonsReadIntegerFields) {
  Fixture f;
  const ApiInvariant inv = parsed(
      "always: Workspace with spec.replicas > 2 implies "
      "status.readyReplicas >= 1 and spec.replicas <= 10");
  ASSERT_EQ(inv.with.size(), 1u);
  EXPECT_EQ(inv.with[0].op, ApiAtom::Op::kGreater);
  EXPECT_EQ(inv.with[0].number, 2);
  f.add("Workspace", "default", "small", {}, {{"replicas", "2"}});
  f.add("Workspace", "default", "big", {}, {{"replicas", "12"}});
  f.add("Workspace", "default", "text", {}, {{"replicas", "many"}});  // Not an integer: false.
  std::vector<run::Violation> found = check_api_invariant(inv, f.api);
  ASSERT_EQ(found.size(), 1u);  // small is not > 2; big has no ready replicas (absent: false).
  EXPECT_EQ(found[0].object, "Workspace/default/big");
  EXPECT_NE(found[0].message.find("not status.readyReplicas >= 1"), std::string::npos)
      << found[0].message;
  f.set("Workspace", "default", "big", "status.readyReplicas", "1");
  found = check_api_invariant(inv, f.api);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("not spec.replicas <= 10"), std::string::npos)
      << found[0].message;
  f.set("Workspace", "default", "big", "spec.replicas", "10");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
  const ApiInvariant less = parsed(
      "always: Workspace implies spec.replicas < -1 or "
      "spec.replicas >= 0");
  EXPECT_EQ(check_api_invariant(less, f.api).size(), 1u);  // "many" is neither.
  EXPECT_NE(parse_error("always: Workspace implies spec.replicas < many")
                .find("'<' compares integers: expected an integer after 'spec.replicas <', got "
                      "many"),
            std::string::npos);
  EXPECT_NE(
      parse_error("always: Workspace implies spec.replicas > \"3\"").find("compares integers"),
      std::string::npos);
}

// A bad rule in a scenario file: the error names the file, the line of that rule and the field.
TEST(ServeApiInvariants, ABadRuleInAScenarioNamesFileLineAndField) {
  register_external_system({});
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "wsim_api_invariants_bad_rule.textproto";
  std::ofstream(path) << "# a bad third rule\n"
                         "external {\n"
                         "  invariants: \"always: at most 1 Pod per label workspace\"\n"
                         "  invariants: \"always: Workspace implies spec.replicas >= 1 or "
                         "status.phase == \\\"Not ready\\\"\"\n"
                         "  invariants: \"always: Workspace implies phase == Running\"\n"
                         "}\n";
  run::LoadedScenario loaded;
  std::string error;
  const bool ok = run::load_scenario_file(path.string(), loaded, error) &&
                  run::validate_scenario(loaded, error);
  std::filesystem::remove(path);
  ASSERT_FALSE(ok);
  EXPECT_NE(error.find(path.string() + ":5:"), std::string::npos) << error;
  EXPECT_NE(error.find("field external.invariants"), std::string::npos) << error;
  EXPECT_NE(error.find("invariants[2]"), std::string::npos) << error;
  EXPECT_NE(error.find("unknown field 'phase'"), std::string::npos) << error;
}

}  // namespace
}  // namespace wsim::serve
