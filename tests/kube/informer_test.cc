// Conformance: watches and informers (sim/kube/README.md, row "watches").
#include "sim/kube/informer.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "sim/kube/api_server.h"
#include "tests/kube/api_test_util.h"

namespace wsim::kube {
namespace {

using testing::KubeTest;
using testing::make_configmap;
using testing::make_deployment;
using testing::make_namespace;

ApiServerOptions fixed_latency(DurationMs api_ms, DurationMs watch_ms) {
  ApiServerOptions o;
  o.min_latency_ms = o.max_latency_ms = api_ms;
  o.watch_min_latency_ms = o.watch_max_latency_ms = watch_ms;
  return o;
}

InformerOptions informer_options(const std::string& kind, const std::string& ns = "") {
  InformerOptions o;
  o.identity = "agentk";
  o.kind = kind;
  o.namespace_ = ns;
  return o;
}

class InformerTest : public KubeTest {
 protected:
  InformerTest() : KubeTest(fixed_latency(10, 100)) {}
  void SetUp() override { must_create(make_namespace("ns")); }
  // The next `times` watch requests meet `action`.
  void fail_watches(FaultAction action, int times) {
    InterceptorRule rule;
    rule.match.verb = Verb::kWatch;
    rule.action = action;
    rule.times = times;
    api.add_interceptor(rule);
  }
};

TEST_F(InformerTest, ListsThenWatchesAndReportsSynced) {
  must_create(make_deployment("ns", "a"));
  Informer informer(sim, api, informer_options("Deployment"));
  std::vector<std::string> seen;
  informer.on_change(
      [&](const Object& o, bool deleted) { seen.push_back((deleted ? "-" : "+") + o.meta.name); });
  EXPECT_FALSE(informer.synced());
  informer.start();
  informer.start();  // Idempotent.
  std::optional<bool> waited;
  sim.loop().spawn("waiter", [](Informer* i, std::optional<bool>* out) -> Task<void> {
    co_await i->wait_synced();
    out->emplace(true);
  }(&informer, &waited));
  advance(20);
  EXPECT_TRUE(informer.synced());
  EXPECT_TRUE(waited.has_value());
  ASSERT_EQ(informer.list().size(), 1u);
  EXPECT_EQ(informer.list_count(), 1u);
  must_create(make_deployment("ns", "b"));
  ASSERT_TRUE(api.server_delete(ObjectRef{"Deployment", "ns", "a"}, {}, "kubectl").ok());
  advance(kSecondMs);
  EXPECT_EQ(seen, (std::vector<std::string>{"+a", "+b", "-a"}));
  EXPECT_FALSE(informer.get("ns", "a").has_value());
  ASSERT_TRUE(informer.get("ns", "b").has_value());
  EXPECT_EQ(informer.get("ns", "b")->meta.uid, peek("Deployment", "ns", "b")->meta.uid);
  EXPECT_EQ(api.watch_count(), 1u);
}

TEST_F(InformerTest, CacheLagsTheServerThenCatchesUp) {
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(kSecondMs);
  ASSERT_TRUE(informer.synced());
  Object cm = must_create(make_configmap("ns", "cm", {{"v", "1"}}));
  advance(50);
  EXPECT_FALSE(informer.get("ns", "cm").has_value()) << "stale read: the event is on its way";
  advance(50);
  ASSERT_TRUE(informer.get("ns", "cm").has_value());
  MergePatch p;
  p.data["v"] = "2";
  ASSERT_TRUE(api.server_patch(ObjectRef::of(cm), p, Subresource::kMain, "x").ok());
  ASSERT_TRUE(api.server_delete(ObjectRef::of(cm), {}, "x").ok());
  advance(99);
  EXPECT_EQ(informer.get("ns", "cm")->data.at("v"), "1") << "still the old state";
  advance(1);
  EXPECT_FALSE(informer.get("ns", "cm").has_value());
  EXPECT_EQ(informer.last_resource_version(), api.current_resource_version());
}

// Random latencies: events still arrive in resourceVersion order, never before they happened,
// and a deletion is never shown while the object still exists on the server.
class InformerRandomTest : public KubeTest {
 protected:
  InformerRandomTest() : KubeTest(ApiServerOptions{}, 99) {}
};

TEST_F(InformerRandomTest, EventsArriveInOrderAndNeverBeforeTheyHappened) {
  must_create(make_namespace("ns"));
  std::map<std::uint64_t, TimeMs> committed_at;
  api.subscribe("ConfigMap", [&](const WatchEvent& e) {
    committed_at[e.object.meta.resource_version] = sim.now_ms();
  });
  Informer informer(sim, api, informer_options("ConfigMap"));
  std::uint64_t last_rv = 0;
  int deliveries = 0;
  informer.on_change([&](const Object& o, bool deleted) {
    ++deliveries;
    EXPECT_GT(o.meta.resource_version, last_rv) << "order";
    last_rv = o.meta.resource_version;
    auto it = committed_at.find(o.meta.resource_version);
    if (it != committed_at.end()) {
      EXPECT_GE(sim.now_ms(), it->second) << "not before it happened";
    }
    if (deleted) {
      const Object* live = api.peek(ObjectRef::of(o));
      EXPECT_TRUE(live == nullptr || live->meta.uid != o.meta.uid)
          << "a deletion is shown only after it happened";
    }
  });
  informer.start();
  ChoiceStream workload = sim.stream("test.workload");
  for (int step = 0; step < 300; ++step) {
    const std::string name = "cm-" + std::to_string(workload.below(4));
    const ObjectRef ref{"ConfigMap", "ns", name};
    switch (workload.below(3)) {
      case 0:
        api.server_create(make_configmap("ns", name), "w");
        break;
      case 1: {
        MergePatch p;
        p.data["step"] = std::to_string(step);
        api.server_patch(ref, p, Subresource::kMain, "w");
        break;
      }
      default:
        api.server_delete(ref, {}, "w");
    }
    advance(static_cast<DurationMs>(workload.below(60)));
  }
  advance(kMinuteMs);
  EXPECT_GT(deliveries, 100);
  // Converged: the cache equals the server.
  std::vector<Object> cached = informer.list();
  std::vector<const Object*> live = api.peek_list("ConfigMap", "");
  ASSERT_EQ(cached.size(), live.size());
  for (std::size_t i = 0; i < live.size(); ++i) EXPECT_EQ(cached[i], *live[i]);
}

TEST_F(InformerTest, WatchExpiryForcesARelistThatCoalescesEvents) {
  Object cm = must_create(make_configmap("ns", "cm", {{"v", "0"}}));
  must_create(make_configmap("ns", "doomed"));
  Informer informer(sim, api, informer_options("ConfigMap"));
  int cm_events = 0;
  bool doomed_deleted = false;
  informer.on_change([&](const Object& o, bool deleted) {
    if (o.meta.name == "cm") ++cm_events;
    if (o.meta.name == "doomed" && deleted) doomed_deleted = true;
  });
  informer.start();
  advance(kSecondMs);
  ASSERT_EQ(cm_events, 1);
  api.expire_watches("agentk");
  for (int i = 1; i <= 3; ++i) {
    MergePatch p;
    p.data["v"] = std::to_string(i);
    ASSERT_TRUE(api.server_patch(ObjectRef::of(cm), p, Subresource::kMain, "x").ok());
  }
  ASSERT_TRUE(api.server_delete(ObjectRef{"ConfigMap", "ns", "doomed"}, {}, "x").ok());
  advance(700);
  EXPECT_EQ(informer.list_count(), 1u) << "the relist waits for the reflector's backoff (0.8 s+)";
  EXPECT_EQ(informer.get("ns", "cm")->data.at("v"), "0") << "blind until the relist";
  EXPECT_FALSE(doomed_deleted);
  advance(3 * kSecondMs);
  EXPECT_EQ(informer.list_count(), 2u) << "410 Gone: relist";
  EXPECT_EQ(cm_events, 2) << "three updates seen as one (unobserved intermediate states)";
  EXPECT_TRUE(doomed_deleted) << "the relist reports what disappeared meanwhile";
  EXPECT_EQ(informer.get("ns", "cm")->data.at("v"), "3");
  EXPECT_EQ(api.watch_count(), 1u) << "watching again";
  must_create(make_configmap("ns", "later"));
  advance(kSecondMs);
  EXPECT_TRUE(informer.get("ns", "later").has_value());
}

TEST_F(InformerTest, WatchExpireFaultPointForcesRelists) {
  FaultId id = 0;
  ASSERT_TRUE(sim.faults().find(kFaultWatchExpire, id));
  sim.faults().force(id, true, Ratio::always());
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(kSecondMs);
  // Each relist waits a doubling backoff (0.8–1.6 s, 1.6–3.2 s, 3.2–6.4 s): 15 s apart, every
  // create finds a watch to expire.
  for (int i = 0; i < 3; ++i) {
    must_create(make_configmap("ns", "cm-" + std::to_string(i)));
    advance(15 * kSecondMs);
  }
  EXPECT_EQ(informer.list_count(), 4u) << "every watch expired at its first event";
  EXPECT_EQ(informer.list().size(), 3u) << "relists still converge";
  bool traced = false;
  for (const TraceEvent& e : sim.trace().events()) {
    traced |= e.verb == "watch" && e.result == "Gone" && e.detail == "fault kube.watch.expire";
  }
  EXPECT_TRUE(traced);
}

class InformerHistoryTest : public KubeTest {
 protected:
  static ApiServerOptions options() {
    ApiServerOptions o = fixed_latency(10, 10);
    o.watch_history_events = 2;
    return o;
  }
  InformerHistoryTest() : KubeTest(options()) {}
};

TEST_F(InformerHistoryTest, WatchFromBeforeTheHistoryWindowIsGoneAndRelists) {
  must_create(make_namespace("ns"));
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  // List arrives at t=10 (rv R), its response at 20; the watch from R arrives at 30. Three
  // writes at t=15 push R+1 out of the two-change window.
  sim.loop().schedule(15, [this]() {
    for (int i = 0; i < 3; ++i) must_create(make_configmap("ns", "cm-" + std::to_string(i)));
  });
  advance(5 * kSecondMs);
  EXPECT_EQ(informer.list_count(), 2u);
  EXPECT_EQ(informer.list().size(), 3u);
  bool gone = false;
  for (const TraceEvent& e : sim.trace().events()) gone |= e.verb == "watch" && e.result == "Gone";
  EXPECT_TRUE(gone);
}

// Traced watch results of the informer's server, in order ("Gone", "dropped").
int count_watch_results(Sim& sim, const std::string& result) {
  int n = 0;
  for (const TraceEvent& e : sim.trace().events()) n += e.verb == "watch" && e.result == result;
  return n;
}

TEST_F(InformerTest, DroppedWatchResumesFromTheLastResourceVersionWithoutRelisting) {
  FaultId id = 0;
  ASSERT_TRUE(sim.faults().find(kFaultWatchDrop, id));
  EXPECT_EQ(sim.faults().point(id).swarm, SwarmStream::kSecond);
  Informer informer(sim, api, informer_options("ConfigMap"));
  int events = 0;
  informer.on_change([&](const Object&, bool) { ++events; });
  informer.start();
  advance(2 * kSecondMs);
  ASSERT_EQ(informer.list_count(), 1u);
  sim.faults().force(id, true, Ratio::always());
  // Every live change ends the watch; the resumed watch replays it from history.
  for (int i = 0; i < 3; ++i) {
    must_create(make_configmap("ns", "cm-" + std::to_string(i)));
    advance(2 * kSecondMs);
  }
  EXPECT_EQ(informer.list_count(), 1u) << "a clean end is resumed, not relisted";
  EXPECT_EQ(informer.list().size(), 3u);
  EXPECT_EQ(events, 3) << "each change seen once, through the resumed watch";
  EXPECT_EQ(count_watch_results(sim, "dropped"), 3);
  EXPECT_EQ(api.watch_count(), 1u);
}

TEST_F(InformerTest, VeryShortDroppedWatchRelistsAfterBackoff) {
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(100);  // Listed at 10-20, watching since 30: less than a second, no event yet.
  ASSERT_EQ(api.watch_count(), 1u);
  api.drop_watches();
  advance(500);
  EXPECT_EQ(informer.list_count(), 1u) << "Run's backoff (0.8 s or more) before the relist";
  advance(5 * kSecondMs);
  EXPECT_EQ(informer.list_count(), 2u) << "client-go: 'very short watch' is an error: relist";
  api.drop_watches();  // This watch is older than a second: resumed, no relist.
  advance(5 * kSecondMs);
  EXPECT_EQ(informer.list_count(), 2u);
  EXPECT_EQ(api.watch_count(), 1u);
}

class InformerWindowTest : public KubeTest {
 protected:
  static ApiServerOptions options() {
    ApiServerOptions o = fixed_latency(10, 10);
    o.watch_cache_events_per_kind = 2;
    return o;
  }
  InformerWindowTest() : KubeTest(options()) {}
  void SetUp() override {
    // The per-kind window applies in runs that draw kube.watch.drop; drawn on, never firing.
    FaultId id = 0;
    ASSERT_TRUE(sim.faults().find(kFaultWatchDrop, id));
    sim.faults().force(id, true, Ratio::never());
    must_create(make_namespace("ns"));
  }
  // Drops every watch at t = now and runs `write` 5 ms later, before the resumed watch (sent at
  // once, 10 ms on the way) reaches the server.
  void drop_and_write(const std::function<void()>& write) {
    api.drop_watches();
    sim.loop().schedule(5, write);
    advance(5 * kSecondMs);
  }
};

TEST_F(InformerWindowTest, ResumeFromBeforeTheKindsWindowIsGoneAndRelists) {
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(2 * kSecondMs);
  drop_and_write([this]() {
    for (int i = 0; i < 3; ++i) must_create(make_configmap("ns", "cm-" + std::to_string(i)));
  });
  EXPECT_EQ(count_watch_results(sim, "dropped"), 0) << "scripted drops are not traced";
  EXPECT_EQ(informer.list_count(), 2u) << "cm-0 left the two-change window: 410, relist";
  EXPECT_EQ(informer.list().size(), 3u);
}

TEST_F(InformerWindowTest, OtherKindsDoNotCountAgainstAKindsWindow) {
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(2 * kSecondMs);
  drop_and_write([this]() {
    must_create(make_configmap("ns", "cm"));
    for (int i = 0; i < 5; ++i) must_create(make_deployment("ns", "d-" + std::to_string(i)));
  });
  EXPECT_EQ(informer.list_count(), 1u) << "one ConfigMap change: within its window, resumed";
  EXPECT_TRUE(informer.get("ns", "cm").has_value()) << "replayed by the resumed watch";
}

TEST_F(InformerWindowTest, WithoutTheDropPointOnlyTheSharedHistoryCounts) {
  FaultId id = 0;
  ASSERT_TRUE(sim.faults().find(kFaultWatchDrop, id));
  sim.faults().force(id, false);
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(2 * kSecondMs);
  drop_and_write([this]() {
    for (int i = 0; i < 3; ++i) must_create(make_configmap("ns", "cm-" + std::to_string(i)));
  });
  EXPECT_EQ(informer.list_count(), 1u) << "a run without kube.watch.drop keeps the old window";
  EXPECT_EQ(informer.list().size(), 3u);
}

TEST_F(InformerWindowTest, ResumeAtTheFloorItselfIsServed) {
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  must_create(make_configmap("ns", "seen"));
  advance(2 * kSecondMs);
  ASSERT_EQ(informer.last_resource_version(), api.current_resource_version());
  // Two more changes fill the window exactly: the change the informer saw last is the floor.
  drop_and_write([this]() {
    must_create(make_configmap("ns", "a"));
    must_create(make_configmap("ns", "b"));
  });
  EXPECT_EQ(informer.list_count(), 1u) << "from == floor: nothing is missing";
  EXPECT_EQ(informer.list().size(), 3u);
}

TEST_F(InformerTest, LabelSelectorTransitionsBecomeAddsAndDeletes) {
  InformerOptions o = informer_options("Deployment");
  o.selector.match_labels["agent"] = "agentk";
  Informer informer(sim, api, o);
  std::vector<std::string> seen;
  informer.on_change([&](const Object& obj, bool deleted) {
    seen.push_back((deleted ? "-" : "+") + obj.meta.name);
  });
  informer.start();
  Object d = make_deployment("ns", "d");
  d.meta.labels["agent"] = "agentk";
  must_create(d);
  must_create(make_deployment("ns", "unlabelled"));
  advance(kSecondMs);
  MergePatch drop;
  drop.labels["agent"] = std::nullopt;
  api.server_patch(ObjectRef::of(d), drop, Subresource::kMain, "kubectl");
  advance(kSecondMs);
  EXPECT_FALSE(informer.get("ns", "d").has_value()) << "left the selector: gone from the cache";
  EXPECT_NE(peek("Deployment", "ns", "d"), nullptr);
  MergePatch add;
  add.labels["agent"] = "agentk";
  api.server_patch(ObjectRef::of(d), add, Subresource::kMain, "kubectl");
  advance(kSecondMs);
  EXPECT_EQ(seen, (std::vector<std::string>{"+d", "-d", "+d"}));
}

TEST_F(InformerTest, NamespaceScopedInformerSeesOnlyItsNamespace) {
  must_create(make_namespace("other"));
  Informer informer(sim, api, informer_options("ConfigMap", "ns"));
  informer.start();
  must_create(make_configmap("ns", "mine"));
  must_create(make_configmap("other", "theirs"));
  advance(kSecondMs);
  ASSERT_EQ(informer.list().size(), 1u);
  EXPECT_EQ(informer.list()[0].meta.name, "mine");
}

TEST_F(InformerTest, ResyncNotifiesEveryCachedObjectPeriodically) {
  must_create(make_configmap("ns", "a"));
  must_create(make_configmap("ns", "b"));
  InformerOptions o = informer_options("ConfigMap");
  o.resync_ms = 10 * kSecondMs;
  Informer informer(sim, api, o);
  int notifications = 0;
  informer.on_change([&](const Object&, bool) { ++notifications; });
  informer.start();
  advance(kSecondMs);
  EXPECT_EQ(notifications, 2);
  advance(10 * kSecondMs);
  EXPECT_EQ(notifications, 4);
  advance(10 * kSecondMs);
  EXPECT_EQ(notifications, 6);
}

TEST_F(InformerTest, StopFreezesTheCache) {
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  must_create(make_configmap("ns", "a"));
  advance(kSecondMs);
  informer.stop();
  EXPECT_EQ(api.watch_count(), 0u);
  must_create(make_configmap("ns", "b"));
  advance(kSecondMs);
  EXPECT_EQ(informer.list().size(), 1u);
  EXPECT_TRUE(informer.synced());
}

TEST_F(InformerTest, DestroyedInformerLeavesNoLiveWatch) {
  {
    Informer informer(sim, api, informer_options("ConfigMap"));
    informer.start();
    advance(kSecondMs);
    EXPECT_EQ(api.watch_count(), 1u);
  }
  must_create(make_configmap("ns", "a"));  // Its sink refuses the delivery: the watch closes.
  advance(kSecondMs);
  EXPECT_EQ(api.watch_count(), 0u);
  EXPECT_EQ(sim.loop().live_actors(), 0u);
}

TEST_F(InformerTest, LostWatchResponseRelistsWithoutLosingEvents) {
  fail_watches(FaultAction::kLoseResponse, 1);
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(100);
  must_create(make_configmap("ns", "during"));  // While the agent waits for its watch.
  advance(api.options().client_timeout_ms + 10 * kSecondMs);
  EXPECT_TRUE(informer.get("ns", "during").has_value());
  must_create(make_configmap("ns", "after"));
  advance(kSecondMs);
  EXPECT_TRUE(informer.get("ns", "after").has_value());
  EXPECT_EQ(api.watch_count(), 1u);
  EXPECT_EQ(informer.list_count(), 2u) << "a watch that fails with other than 429 relists";
}

TEST_F(InformerTest, ThrottledWatchIsRetriedFromTheLastVersionWithoutARelist) {
  fail_watches(FaultAction::kThrottle, 2);
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(100);
  must_create(make_configmap("ns", "during"));  // While the watch backs off.
  advance(10 * kSecondMs);
  EXPECT_TRUE(informer.get("ns", "during").has_value()) << "replayed by the re-watch";
  EXPECT_EQ(api.watch_count(), 1u);
  EXPECT_EQ(informer.list_count(), 1u) << "429 re-watches from the last version";
}

TEST_F(InformerTest, CacheChangesAreTraced) {
  Informer informer(sim, api, informer_options("Deployment"));
  informer.start();
  Object d = must_create(make_deployment("ns", "ws-1"));
  advance(kSecondMs);
  api.server_delete(ObjectRef::of(d), {}, "kubectl");
  advance(kSecondMs);
  std::vector<std::string> lines;
  for (const TraceEvent& e : sim.trace().events()) {
    if (e.actor == "agentk/informer") lines.push_back(e.verb + " " + e.object + " " + e.result);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"watch Deployment/ns/ws-1 added",
                                             "watch Deployment/ns/ws-1 deleted"}));
}

TEST_F(InformerTest, ServerListenersGetChangesInResourceVersionOrder) {
  // A listener that writes (like a controller) must not reorder what others see.
  api.subscribe("Namespace", [this](const WatchEvent& e) {
    if (e.type == WatchEventType::kAdded) {
      api.server_create(make_configmap(e.object.meta.name, "kube-root-ca.crt"), "ctrl");
    }
  });
  std::vector<std::uint64_t> order;
  std::vector<std::string> kinds;
  api.subscribe("", [&](const WatchEvent& e) {
    order.push_back(e.object.meta.resource_version);
    kinds.push_back(e.object.kind);
  });
  must_create(make_namespace("n1"));
  ASSERT_EQ(order.size(), 2u);
  EXPECT_LT(order[0], order[1]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"Namespace", "ConfigMap"}));
  EXPECT_NE(peek("ConfigMap", "n1", "kube-root-ca.crt"), nullptr);
}

}  // namespace
}  // namespace wsim::kube

namespace wsim::kube {
namespace {

// issue 13: the shared reads are the server's committed objects (no copy), equal to the copies.
TEST_F(InformerTest, SharedViewsAreTheCommittedObjectsAndEqualTheCopies) {
  must_create(make_configmap("ns", "a", {{"v", "1"}}));
  must_create(make_configmap("ns", "b", {{"v", "2"}}));
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.start();
  advance(kSecondMs);
  ASSERT_TRUE(informer.synced());
  const std::vector<Informer::ObjectView> views = informer.list_shared();
  const std::vector<Object> copies = informer.list();
  ASSERT_EQ(views.size(), 2u);
  ASSERT_EQ(copies.size(), 2u);
  for (std::size_t i = 0; i < views.size(); ++i) EXPECT_EQ(*views[i], copies[i]);
  // The very object the store holds: the list response and the cache share it.
  EXPECT_EQ(views[0].get(), api.peek(ObjectRef{"ConfigMap", "ns", "a"}));
  EXPECT_EQ(informer.get_shared("ns", "b").get(), api.peek(ObjectRef{"ConfigMap", "ns", "b"}));
  EXPECT_EQ(informer.get_shared("ns", "zz"), nullptr);
  EXPECT_EQ(informer.size(), 2u);
  // A view outlives a later write: it is a snapshot, the cache moves on.
  MergePatch p;
  p.data["v"] = "9";
  ASSERT_TRUE(api.server_patch(ObjectRef{"ConfigMap", "ns", "a"}, p, Subresource::kMain, "t").ok());
  advance(kSecondMs);
  EXPECT_EQ(views[0]->data.at("v"), "1");
  EXPECT_EQ(informer.get_shared("ns", "a")->data.at("v"), "9");
}

// issue 13: an index follows every cache change (add, relabel, delete, relist).
TEST_F(InformerTest, IndexFollowsAddsUpdatesDeletesAndRelists) {
  Informer informer(sim, api, informer_options("ConfigMap"));
  informer.add_index("owner", [](const Object& o) {
    auto it = o.meta.labels.find("owner");
    return it == o.meta.labels.end() ? std::vector<std::string>{}
                                     : std::vector<std::string>{it->second};
  });
  Object a = make_configmap("ns", "a");
  a.meta.labels["owner"] = "x";
  Object b = make_configmap("ns", "b");
  b.meta.labels["owner"] = "x";
  must_create(a);  // Before the list.
  informer.start();
  advance(kSecondMs);
  must_create(b);  // By watch.
  advance(kSecondMs);
  auto names = [&](const std::string& value) {
    std::vector<std::string> out;
    for (const auto& view : informer.by_index("owner", value)) out.push_back(view->meta.name);
    return out;
  };
  EXPECT_EQ(names("x"), (std::vector<std::string>{"a", "b"}));
  MergePatch relabel;
  relabel.labels["owner"] = "y";
  ASSERT_TRUE(
      api.server_patch(ObjectRef{"ConfigMap", "ns", "a"}, relabel, Subresource::kMain, "t").ok());
  advance(kSecondMs);
  EXPECT_EQ(names("x"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(names("y"), (std::vector<std::string>{"a"}));
  ASSERT_TRUE(api.server_delete(ObjectRef{"ConfigMap", "ns", "b"}, {}, "t").ok());
  advance(kSecondMs);
  EXPECT_TRUE(names("x").empty());
  api.expire_watches("agentk");  // Relist: the index is rebuilt from the fresh list.
  advance(5 * kSecondMs);
  EXPECT_GE(informer.list_count(), 2u);
  EXPECT_EQ(names("y"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(names("x").empty());
}

}  // namespace
}  // namespace wsim::kube

namespace wsim::kube {
namespace {

// docs/performance.md §13.1: get_shared takes views (a `const char*` namespace, a std::string
// name) and finds what the ObjectRef lookup found; a cluster-scoped kind ignores the namespace.
TEST_F(InformerTest, ReadsByViewFindWhatRefsFind) {
  must_create(make_namespace("nt"));
  must_create(make_configmap("ns", "a", {{"v", "1"}}));
  must_create(make_configmap("ns", "ab", {{"v", "2"}}));
  must_create(make_configmap("nt", "a", {{"v", "3"}}));
  Object node;
  node.kind = "Node";
  node.meta.name = "node-1";
  must_create(node);
  Informer configs(sim, api, informer_options("ConfigMap"));
  Informer nodes(sim, api, informer_options("Node"));
  configs.start();
  nodes.start();
  advance(kSecondMs);
  ASSERT_TRUE(configs.synced());
  ASSERT_TRUE(nodes.synced());
  const char* ns = "ns";
  const std::string name = "ab";
  EXPECT_EQ(configs.get_shared(ns, name)->data.at("v"), "2");
  EXPECT_EQ(configs.get_shared("nt", "a")->data.at("v"), "3");
  EXPECT_EQ(configs.get_shared(std::string("ns"), "a")->data.at("v"), "1");
  EXPECT_EQ(configs.get_shared("ns", "b"), nullptr);
  EXPECT_EQ(configs.get_shared("n", "a"), nullptr);
  EXPECT_EQ(configs.get_shared("", "a"), nullptr);
  EXPECT_EQ(configs.get("ns", "ab")->data.at("v"), "2");
  EXPECT_EQ(nodes.get_shared("", "node-1").get(), api.peek(ObjectRef{"Node", "", "node-1"}));
  EXPECT_EQ(nodes.get_shared("any-namespace", "node-1").get(),
            api.peek(ObjectRef{"Node", "", "node-1"}));
  EXPECT_EQ(nodes.get_shared("", "node-2"), nullptr);
}

}  // namespace
}  // namespace wsim::kube
