// Conformance: the client request path and the fault interceptor chain (sim/kube/README.md,
// rows "faults" and "client").
#include <gtest/gtest.h>

#include "sim/core/sync.h"
#include "sim/kube/api_server.h"
#include "sim/kube/informer.h"
#include "tests/kube/api_test_util.h"

namespace wsim::kube {
namespace {

using testing::KubeTest;
using testing::make_configmap;
using testing::make_namespace;

class ApiFaults : public KubeTest {
 protected:
  void SetUp() override { must_create(make_namespace("ns")); }
  void force(const char* name, Ratio fire = Ratio::always()) {
    FaultId id = 0;
    ASSERT_TRUE(sim.faults().find(name, id)) << name;
    sim.faults().force(id, true, fire);
  }
  Client client = api.client("alice");
};

TEST_F(ApiFaults, FaultPointsAreDeclaredWithStableNames) {
  for (const char* name : {"kube.api.conflict", "kube.api.error5xx", "kube.api.throttle",
                           "kube.api.timeout_lost_request", "kube.api.timeout_lost_response",
                           "kube.watch.expire", "kube.apiserver.restart"}) {
    FaultId id = 0;
    EXPECT_TRUE(sim.faults().find(name, id)) << name;
    EXPECT_FALSE(sim.faults().point(id).description.empty());
  }
}

TEST_F(ApiFaults, ConflictFaultAnswersUpdatesPatchesDeletesWithoutApplying) {
  Object cm = must_create(make_configmap("ns", "cm", {{"a", "1"}}));
  force(kFaultConflict);
  const std::uint64_t rv = api.current_resource_version();
  Object changed = cm;
  changed.data["a"] = "2";
  EXPECT_EQ(run(client.update(changed)).status.code, Code::kConflict);
  MergePatch p;
  p.data["a"] = "3";
  p.precondition_resource_version = cm.meta.resource_version;
  EXPECT_EQ(run(client.patch(ObjectRef::of(cm), p)).status.code, Code::kConflict);
  DeleteOptions guarded;
  guarded.precondition_uid = cm.meta.uid;
  EXPECT_EQ(run(client.remove(ObjectRef::of(cm), guarded)).code, Code::kConflict);
  EXPECT_EQ(api.current_resource_version(), rv) << "nothing was applied";
  EXPECT_TRUE(run(client.get(ObjectRef::of(cm))).ok()) << "reads cannot conflict";
  EXPECT_TRUE(run(client.create(make_configmap("ns", "other"))).ok()) << "creates neither";
  const TraceEvent& last_conflict = sim.trace().events()[2];
  EXPECT_EQ(last_conflict.verb, "delete");
  EXPECT_EQ(last_conflict.result, "Conflict");
  EXPECT_EQ(last_conflict.detail, "fault kube.api.conflict");
}

// Kubernetes never answers 409 to a merge patch or a delete without a precondition, so the
// fault point must not invent one there (a model would be "caught" by an impossible answer).
TEST_F(ApiFaults, ConflictFaultSparesWritesThatCannotConflict) {
  Object cm = must_create(make_configmap("ns", "cm", {{"a", "1"}}));
  force(kFaultConflict);
  MergePatch plain;
  plain.data["a"] = "4";
  Result<Object> patched = run(client.patch(ObjectRef::of(cm), plain));
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(patched.value.data.at("a"), "4");
  EXPECT_TRUE(run(client.remove(ObjectRef::of(cm))).ok());
  EXPECT_EQ(api.peek(ObjectRef::of(cm)), nullptr);
}

TEST_F(ApiFaults, Error5xxAndThrottleAnswerWithoutApplying) {
  force(kFaultError5xx);
  for (int i = 0; i < 6; ++i) {
    auto r = run(client.create(make_configmap("ns", "cm-" + std::to_string(i))));
    EXPECT_TRUE(r.status.is(Code::kInternalError) || r.status.is(Code::kServiceUnavailable))
        << code_name(r.status.code);
  }
  EXPECT_EQ(api.peek_list("ConfigMap", "ns").size(), 0u);
  FaultId e5 = 0;
  ASSERT_TRUE(sim.faults().find(kFaultError5xx, e5));
  sim.faults().force(e5, false);
  force(kFaultThrottle);
  auto throttled = run(client.get(ObjectRef{"Namespace", "", "ns"}));
  EXPECT_EQ(throttled.status.code, Code::kTooManyRequests);
}

TEST_F(ApiFaults, LostRequestIsNotAppliedAndTheClientTimesOut) {
  force(kFaultLostRequest);
  const TimeMs start = sim.now_ms();
  auto r = run(client.create(make_configmap("ns", "cm")));
  EXPECT_EQ(r.status.code, Code::kTimeout);
  EXPECT_EQ(sim.now_ms() - start, api.options().client_timeout_ms);
  EXPECT_EQ(peek("ConfigMap", "ns", "cm"), nullptr);
  EXPECT_EQ(sim.trace().events().back().result, "lost");
}

TEST_F(ApiFaults, LostResponseIsAppliedButTheClientTimesOut) {
  force(kFaultLostResponse);
  const TimeMs start = sim.now_ms();
  auto r = run(client.create(make_configmap("ns", "cm")));
  EXPECT_EQ(r.status.code, Code::kTimeout);
  EXPECT_EQ(sim.now_ms() - start, api.options().client_timeout_ms);
  EXPECT_NE(peek("ConfigMap", "ns", "cm"), nullptr) << "the request was applied";
  EXPECT_EQ(sim.trace().events().back().result, "ok");
}

TEST_F(ApiFaults, ScriptedRuleNarrowedByVerbKindNamespaceAndName) {
  must_create(make_namespace("ws-1"));
  must_create(make_namespace("ws-2"));
  must_create(make_configmap("ws-1", "cm"));
  InterceptorRule rule;
  rule.match.verb = Verb::kDelete;
  rule.match.kind = "Namespace";
  rule.match.name = "ws-1";
  rule.action = FaultAction::kConflict;
  rule.times = 1;
  const InterceptorId id = api.add_interceptor(rule);
  EXPECT_TRUE(run(client.get(ObjectRef{"Namespace", "", "ws-1"})).ok()) << "other verb";
  EXPECT_TRUE(run(client.remove(ObjectRef{"ConfigMap", "ws-1", "cm"})).ok()) << "other kind";
  EXPECT_TRUE(run(client.remove(ObjectRef{"Namespace", "", "ws-2"})).ok()) << "other name";
  EXPECT_EQ(run(client.remove(ObjectRef{"Namespace", "", "ws-1"})).code, Code::kConflict)
      << "the next delete of Namespace ws-1 answers Conflict";
  EXPECT_EQ(api.interceptor_fired(id), 1);
  EXPECT_FALSE(peek("Namespace", "", "ws-1")->meta.deletion_ms.has_value());
  EXPECT_TRUE(run(client.remove(ObjectRef{"Namespace", "", "ws-1"})).ok()) << "times = 1";
  EXPECT_EQ(sim.trace().events()[3].detail,
            "scripted fault #" + std::to_string(id) + " (conflict)");

  InterceptorRule only_bob;
  only_bob.match.identity = "bob";
  only_bob.action = FaultAction::kServiceUnavailable;
  api.add_interceptor(only_bob);
  EXPECT_TRUE(run(client.get(ObjectRef{"Namespace", "", "ws-2"})).ok()) << "not bob";
  Client bob = api.client("bob");
  EXPECT_EQ(run(bob.get(ObjectRef{"Namespace", "", "ws-2"})).status.code,
            Code::kServiceUnavailable);
}

TEST_F(ApiFaults, ScriptedLostResponseOfADeleteAppliesIt) {
  must_create(make_configmap("ns", "cm"));
  InterceptorRule rule;
  rule.match.verb = Verb::kDelete;
  rule.action = FaultAction::kLoseResponse;
  rule.times = 1;
  api.add_interceptor(rule);
  EXPECT_EQ(run(client.remove(ObjectRef{"ConfigMap", "ns", "cm"})).code, Code::kTimeout);
  EXPECT_EQ(peek("ConfigMap", "ns", "cm"), nullptr);
  EXPECT_EQ(run(client.remove(ObjectRef{"ConfigMap", "ns", "cm"})).code, Code::kNotFound)
      << "the retry sees the effect of the lost request";
}

TEST_F(ApiFaults, HealStopsEveryFaultIncludingScriptedRules) {
  Object cm = must_create(make_configmap("ns", "cm"));
  force(kFaultConflict);
  InterceptorRule rule;
  rule.action = FaultAction::kThrottle;
  api.add_interceptor(rule);
  DeleteOptions guarded;
  guarded.precondition_uid = cm.meta.uid;
  EXPECT_EQ(run(client.remove(ObjectRef::of(cm), guarded)).code, Code::kConflict);
  EXPECT_EQ(run(client.remove(ObjectRef::of(cm))).code, Code::kTooManyRequests);
  sim.faults().heal();
  EXPECT_TRUE(run(client.remove(ObjectRef::of(cm))).ok());
}

TEST_F(ApiFaults, ClearInterceptorsRemovesTheDefaultRules) {
  force(kFaultConflict);
  api.clear_interceptors();
  Object cm = must_create(make_configmap("ns", "cm"));
  EXPECT_TRUE(run(client.remove(ObjectRef::of(cm))).ok());
  // Re-add the conflict fault for namespace deletes only.
  InterceptorRule rule;
  rule.match.verb = Verb::kDelete;
  rule.match.kind = "Namespace";
  rule.action = FaultAction::kConflict;
  rule.fault = kFaultConflict;
  api.add_interceptor(rule);
  must_create(make_configmap("ns", "cm2"));
  EXPECT_TRUE(run(client.remove(ObjectRef{"ConfigMap", "ns", "cm2"})).ok());
  EXPECT_EQ(run(client.remove(ObjectRef{"Namespace", "", "ns"})).code, Code::kConflict);
}

// Choice 0 is the least eventful option: with an all-zero tape every enabled fault stays
// silent and every latency is the minimum.
class ApiChoiceZero : public KubeTest {
 protected:
  static ApiServerOptions options() {
    ApiServerOptions o;
    o.min_latency_ms = 3;
    o.max_latency_ms = 50;
    return o;
  }
  ApiChoiceZero() : KubeTest(options()) {}
};

TEST(ApiChoices, AllZeroChoicesMeanNoFaultAndMinimumLatency) {
  Sim sim(ChoiceSource::from_tape({}));
  ApiServerOptions options;
  options.min_latency_ms = 3;
  options.max_latency_ms = 50;
  ApiServer api(sim, options);
  for (const char* name :
       {kFaultConflict, kFaultError5xx, kFaultThrottle, kFaultLostRequest, kFaultLostResponse}) {
    FaultId id = 0;
    ASSERT_TRUE(sim.faults().find(name, id));
    sim.faults().force(id, true, Ratio{1, 2});
  }
  ASSERT_TRUE(api.server_create(make_namespace("ns"), "test").ok());
  Client client = api.client("alice");
  std::optional<Result<Object>> out;
  sim.loop().spawn("t", testing::capture(client.create(make_configmap("ns", "cm")), &out));
  sim.loop().run_until_idle(kHourMs);
  ASSERT_TRUE(out.has_value());
  EXPECT_TRUE(out->ok());
  EXPECT_EQ(sim.now_ms(), 6) << "two minimum latencies";
}

TEST_F(ApiChoiceZero, DisabledFaultPointsConsumeNoChoices) {
  must_create(make_namespace("x"));
  const std::uint64_t before = sim.choices().consumed();
  EXPECT_TRUE(run(api.client("a").get(ObjectRef{"Namespace", "", "x"})).ok());
  EXPECT_EQ(sim.choices().consumed() - before, 2u) << "one latency draw per direction only";
}

TEST_F(ApiFaults, OneTraceEventPerRequestWithIdentityVerbObjectAndResult) {
  const std::size_t before = sim.trace().events().size();
  run(client.create(make_configmap("ns", "cm")));
  run(client.get(ObjectRef{"ConfigMap", "ns", "nope"}));
  run(client.list("ConfigMap", "ns"));
  ASSERT_EQ(sim.trace().events().size(), before + 3);
  const TraceEvent& create = sim.trace().events()[before];
  EXPECT_EQ(create.actor, "alice");
  EXPECT_EQ(create.verb, "create");
  EXPECT_EQ(create.object, "ConfigMap/ns/cm");
  EXPECT_EQ(create.result, "ok");
  const TraceEvent& get = sim.trace().events()[before + 1];
  EXPECT_EQ(get.result, "NotFound");
  EXPECT_EQ(sim.trace().events()[before + 2].object, "ConfigMap/ns");
  EXPECT_TRUE(api.server_create(make_configmap("ns", "quiet"), "kubelet").ok());
  EXPECT_EQ(sim.trace().events().size(), before + 3) << "server_* calls are not traced";
}

TEST_F(ApiFaults, RequestInFlightIsAppliedEvenIfTheClientIsCancelled) {
  std::optional<Result<Object>> out;
  const ActorId actor =
      sim.loop().spawn("agent", testing::capture(client.create(make_configmap("ns", "cm")), &out));
  sim.loop().step();  // The actor sends its request and suspends.
  sim.loop().cancel(actor);
  sim.loop().run_until_idle(kHourMs);
  EXPECT_FALSE(out.has_value()) << "the cancelled client never sees the response";
  EXPECT_NE(peek("ConfigMap", "ns", "cm"), nullptr) << "but the request was applied";
}

TEST(ApiLatency, RoundTripTakesTheDrawnLatencyEachWay) {
  Sim sim(ChoiceSource::from_seed(7));
  ApiServerOptions options;
  options.min_latency_ms = 5;
  options.max_latency_ms = 5;
  ApiServer api(sim, options);
  ASSERT_TRUE(api.server_create(make_namespace("ns"), "test").ok());
  std::optional<Result<Object>> out;
  sim.loop().spawn("t",
                   testing::capture(api.client("a").get(ObjectRef{"Namespace", "", "ns"}), &out));
  sim.loop().run_until_idle(kHourMs);
  ASSERT_TRUE(out && out->ok());
  EXPECT_EQ(sim.now_ms(), 10);
  EXPECT_EQ(sim.trace().events().back().time_ms, 5) << "applied (and traced) on arrival";
}

TEST(ApiDeterminism, SameSeedSameTraceHash) {
  auto run_once = [](std::uint64_t seed) {
    Sim sim(ChoiceSource::from_seed(seed));
    ApiServer api(sim);
    for (const char* name : {kFaultConflict, kFaultError5xx, kFaultLostResponse}) {
      FaultId id = 0;
      sim.faults().find(name, id);
      sim.faults().force(id, true, Ratio{1, 3});
    }
    EXPECT_TRUE(api.server_create(make_namespace("ns"), "test").ok());
    Client client = api.client("a");
    auto worker = [](Client c, int n) -> Task<void> {
      for (int i = 0; i < 20; ++i) {
        std::string name = "cm-" + std::to_string(i % 5);
        co_await c.create(make_configmap("ns", name));
        MergePatch p;
        p.data["n"] = std::to_string(n * 100 + i);
        co_await c.patch(ObjectRef{"ConfigMap", "ns", name}, p);
        if (i % 3 == 0) co_await c.remove(ObjectRef{"ConfigMap", "ns", name});
      }
    };
    sim.loop().spawn("w1", worker(client, 1));
    sim.loop().spawn("w2", worker(client, 2));
    sim.loop().run_until_idle(kHourMs);
    return std::make_pair(sim.fingerprint(), sim.trace().count());
  };
  auto a = run_once(42);
  auto b = run_once(42);
  auto c = run_once(43);
  EXPECT_EQ(a, b);
  EXPECT_GT(a.second, 60u);
  EXPECT_NE(a.first, c.first) << "a different seed gives a different interleaving";
}

// kube.apiserver.restart: one firing takes the server down for 5–60 s. Every request meanwhile
// is answered 503 unapplied (even once the point stops firing), every watch ends, and the
// informer relists after its backoff once the server is back.
TEST_F(ApiFaults, RestartTakesTheServerDownAndEndsEveryWatch) {
  must_create(make_configmap("ns", "before"));
  InformerOptions options;
  options.identity = "alice";
  options.kind = "ConfigMap";
  Informer informer(sim, api, options);
  informer.start();
  advance(kSecondMs);
  ASSERT_EQ(api.watch_count(), 1u);
  ASSERT_EQ(informer.list_count(), 1u);
  force(kFaultApiServerRestart);
  const std::uint64_t rv = api.current_resource_version();
  EXPECT_EQ(run(client.create(make_configmap("ns", "refused"))).status.code,
            Code::kServiceUnavailable);
  FaultId id = 0;
  ASSERT_TRUE(sim.faults().find(kFaultApiServerRestart, id));
  sim.faults().force(id, false);
  EXPECT_EQ(api.watch_count(), 0u) << "every watch ended at the restart";
  EXPECT_EQ(run(client.get(ObjectRef{"ConfigMap", "ns", "before"})).status.code,
            Code::kServiceUnavailable)
      << "still down: the outage does not depend on the point firing again";
  EXPECT_EQ(api.current_resource_version(), rv) << "nothing was applied";
  bool traced = false;
  for (const TraceEvent& e : sim.trace().events()) {
    traced |= e.actor == "kube-apiserver" && e.verb == "restart" && e.result == "down";
  }
  EXPECT_TRUE(traced);
  must_create(make_configmap("ns", "while-down"));  // A server-side write (not a client).
  advance(2 * kMinuteMs);
  EXPECT_TRUE(run(client.create(make_configmap("ns", "after"))).ok()) << "back after 60 s at most";
  advance(2 * kMinuteMs);
  EXPECT_EQ(api.watch_count(), 1u) << "watching again";
  EXPECT_GE(informer.list_count(), 2u) << "relisted";
  EXPECT_TRUE(informer.get("ns", "while-down").has_value());
  EXPECT_TRUE(informer.get("ns", "after").has_value());
}

TEST_F(ApiFaults, HealEndsARestartOutage) {
  force(kFaultApiServerRestart);
  EXPECT_EQ(run(client.get(ObjectRef{"Namespace", "", "ns"})).status.code,
            Code::kServiceUnavailable);
  sim.faults().heal();
  EXPECT_TRUE(run(client.get(ObjectRef{"Namespace", "", "ns"})).ok());
}

}  // namespace
}  // namespace wsim::kube
