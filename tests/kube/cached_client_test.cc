// Conformance: the cache-backed client (controller-runtime's manager.GetClient()) and
// client-go's RetryOnConflict (sim/kube/README.md, rows "cached client").
#include "sim/kube/cached_client.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "sim/kube/api_server.h"
#include "sim/kube/retry.h"
#include "tests/kube/api_test_util.h"

namespace wsim::kube {
namespace {

using testing::KubeTest;
using testing::make_configmap;
using testing::make_namespace;

ApiServerOptions fixed_latency(DurationMs api_ms, DurationMs watch_ms) {
  ApiServerOptions o;
  o.min_latency_ms = o.max_latency_ms = api_ms;
  o.watch_min_latency_ms = o.watch_max_latency_ms = watch_ms;
  return o;
}

// API requests take 10 ms each way; watch events reach an informer 1 s after the write.
class CachedClientTest : public KubeTest {
 protected:
  CachedClientTest() : KubeTest(fixed_latency(10, kSecondMs)) {}
  void SetUp() override {
    api.clear_interceptors();  // No injected faults: every Conflict here comes from the cache.
    must_create(make_namespace("ns"));
    must_create(make_configmap("ns", "cm", {{"v", "0"}}));
  }

  // Get from the cache, set data v, Update: one RetryOnConflict attempt.
  static Task<Status> set_v(CachedClient* client, std::string value, int* attempts) {
    ++*attempts;
    Result<Object> got = co_await client->get(ObjectRef("ConfigMap", "ns", "cm"));
    if (!got.ok()) co_return got.status;
    got.value.data["v"] = value;
    Result<Object> updated = co_await client->update(std::move(got.value));
    co_return updated.status;
  }

  // A write by another actor, straight to the server: the cache lags it by 1 s.
  void write_elsewhere(const std::string& value) {
    MergePatch patch;
    patch.data["v"] = value;
    ASSERT_TRUE(
        api.server_patch(ObjectRef("ConfigMap", "ns", "cm"), patch, Subresource::kMain, "other")
            .ok());
  }
};

// controller-runtime split.go: Get is served by the informer cache, so an Update right after
// another actor's write carries the cached (stale) resourceVersion and the server answers 409.
TEST_F(CachedClientTest, StaleCacheReadFollowedByAnUpdateGetsConflict) {
  CachedClient client(sim, api, "ws-manager");
  Result<Object> first = run(client.get(ObjectRef("ConfigMap", "ns", "cm")));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value.data.at("v"), "0");
  write_elsewhere("1");
  Result<Object> stale = run(client.get(ObjectRef("ConfigMap", "ns", "cm")));
  ASSERT_TRUE(stale.ok());
  EXPECT_EQ(stale.value.data.at("v"), "0") << "the cache has not seen the write yet";
  EXPECT_LT(stale.value.meta.resource_version,
            peek("ConfigMap", "ns", "cm")->meta.resource_version);
  Object edited = stale.value;
  edited.data["v"] = "2";
  Result<Object> updated = run(client.update(edited));
  EXPECT_TRUE(updated.status.is(Code::kConflict)) << code_name(updated.status.code);
  // The direct reader (manager.GetAPIReader()) sees the write at once.
  Result<Object> direct = run(client.reader().get(ObjectRef("ConfigMap", "ns", "cm")));
  EXPECT_EQ(direct.value.data.at("v"), "1");
  advance(2 * kSecondMs);
  Result<Object> fresh = run(client.get(ObjectRef("ConfigMap", "ns", "cm")));
  EXPECT_EQ(fresh.value.data.at("v"), "1");
  fresh.value.data["v"] = "2";
  EXPECT_TRUE(run(client.update(fresh.value)).ok());
}

TEST_F(CachedClientTest, ObjectsTheCacheHasNotSeenAreNotFoundAndListsComeFromTheCache) {
  CachedClient client(sim, api, "ws-manager");
  ASSERT_TRUE(run(client.get(ObjectRef("ConfigMap", "ns", "cm"))).ok());
  must_create(make_configmap("ns", "new"));
  EXPECT_TRUE(run(client.get(ObjectRef("ConfigMap", "ns", "new"))).status.is(Code::kNotFound));
  EXPECT_EQ(run(client.list("ConfigMap", "ns")).value.size(), 1u);
  advance(2 * kSecondMs);
  EXPECT_TRUE(run(client.get(ObjectRef("ConfigMap", "ns", "new"))).ok());
  EXPECT_EQ(run(client.list("ConfigMap", "ns")).value.size(), 2u);
  EXPECT_EQ(run(client.list("ConfigMap", "other")).value.size(), 0u);
}

// client-go retry.RetryOnConflict(DefaultRetry) re-reads before every attempt, but from the
// cache: while the informer lags (1 s here) every attempt conflicts and the 5 steps (4 sleeps of
// 10 ms + jitter) run out; a backoff that outlasts the lag succeeds once the cache caught up.
TEST_F(CachedClientTest, RetryOnConflictExhaustsItsStepsWhileTheInformerLags) {
  CachedClient client(sim, api, "ws-manager");
  ASSERT_TRUE(run(client.get(ObjectRef("ConfigMap", "ns", "cm"))).ok());
  ChoiceStream stream = sim.stream("test.retry");
  write_elsewhere("1");
  int attempts = 0;
  Status exhausted = run(retry_on_conflict(sim, stream, default_retry(),
                                           [&] { return set_v(&client, "2", &attempts); }));
  EXPECT_TRUE(exhausted.is(Code::kConflict));
  EXPECT_EQ(attempts, 5);
  EXPECT_LT(sim.now_ms(), kSecondMs) << "gave up before the watch event arrived";
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->data.at("v"), "1");

  // Sleeps of 100, 200, 400, 800 ms: attempts 1–4 read the lagging cache (the writes reach it
  // about 1 s later); the fifth reads the caught-up cache and succeeds.
  write_elsewhere("3");
  attempts = 0;
  Status ok = run(retry_on_conflict(sim, stream, Backoff(5, 100, 2.0, 0.0),
                                    [&] { return set_v(&client, "4", &attempts); }));
  EXPECT_TRUE(ok.ok()) << code_name(ok.code);
  EXPECT_EQ(attempts, 5);
  EXPECT_EQ(peek("ConfigMap", "ns", "cm")->data.at("v"), "4");
}

// retry.OnError retries what its predicate accepts (here every failure but NotFound) and stops at
// the first status it rejects; RetryOnConflict would stop at the first 429.
TEST_F(CachedClientTest, RetryOnErrorRetriesWhatItsPredicateAccepts) {
  ChoiceStream stream = sim.stream("test.retry");
  int attempts = 0;
  const auto not_gone = [](const Status& s) { return !s.ok() && !s.is(Code::kNotFound); };
  Status ok =
      run(retry_on_error(sim, stream, Backoff(5, 100, 1.0, 0.0), not_gone, [&]() -> Task<Status> {
        ++attempts;
        co_return attempts < 3 ? Status::Error(Code::kTooManyRequests, "x") : Status::Ok();
      }));
  EXPECT_TRUE(ok.ok()) << code_name(ok.code);
  EXPECT_EQ(attempts, 3);
  EXPECT_EQ(sim.now_ms(), 200);
  attempts = 0;
  Status gone =
      run(retry_on_error(sim, stream, Backoff(5, 100, 1.0, 0.0), not_gone, [&]() -> Task<Status> {
        ++attempts;
        co_return Status::Error(Code::kNotFound, "gone");
      }));
  EXPECT_TRUE(gone.is(Code::kNotFound));
  EXPECT_EQ(attempts, 1);
  attempts = 0;
  Status throttled =
      run(retry_on_conflict(sim, stream, Backoff(5, 100, 1.0, 0.0), [&]() -> Task<Status> {
        ++attempts;
        co_return Status::Error(Code::kTooManyRequests, "x");
      }));
  EXPECT_TRUE(throttled.is(Code::kTooManyRequests));
  EXPECT_EQ(attempts, 1);
}

// The same loop against the direct reader never conflicts on its own (the pre-#10 model).
TEST_F(CachedClientTest, RetryOnConflictThroughTheDirectReaderSucceedsFirstTime) {
  CachedClient client(sim, api, "ws-manager");
  write_elsewhere("1");
  int attempts = 0;
  ChoiceStream stream = sim.stream("test.retry");
  Status ok = run(retry_on_conflict(sim, stream, default_retry(), [&]() -> Task<Status> {
    ++attempts;
    Result<Object> got = co_await client.reader().get(ObjectRef("ConfigMap", "ns", "cm"));
    got.value.data["v"] = "2";
    Result<Object> updated = co_await client.update(std::move(got.value));
    co_return updated.status;
  }));
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(attempts, 1);
}

// A read that waits for a shared informer's first sync survives that informer being stopped,
// unshared and replaced (a manager restart): it completes from the cache serving the kind then.
TEST_F(CachedClientTest, ReadWaitingForSyncSurvivesTheInformerBeingReplaced) {
  CachedClient client(sim, api, "ws-manager");
  InformerOptions options;
  options.identity = "ws-manager";
  options.kind = "ConfigMap";
  auto first = std::make_unique<Informer>(sim, api, options);
  client.share("ConfigMap", first.get());  // Not started: never syncs.
  std::optional<Result<Object>> got;
  sim.loop().spawn("reader",
                   testing::capture(client.get(ObjectRef("ConfigMap", "ns", "cm")), &got));
  advance(50);
  EXPECT_FALSE(got.has_value());
  client.share("ConfigMap", nullptr);
  first.reset();
  auto second = std::make_unique<Informer>(sim, api, options);
  second->start();
  client.share("ConfigMap", second.get());
  advance(kSecondMs);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->ok()) << got->status.message;
  client.share("ConfigMap", nullptr);
}

// wait.Backoff.Step: duration, then × factor; jitter in [0, jitter × duration], choice 0 = none.
TEST(RetryBackoff, StepsFollowClientGoDefaultBackoff) {
  Sim sim(ChoiceSource::from_tape({}));
  ChoiceStream stream = sim.stream("test");
  Backoff b = default_backoff();
  EXPECT_EQ(backoff_step(b, stream), 10);
  EXPECT_EQ(backoff_step(b, stream), 50);
  EXPECT_EQ(backoff_step(b, stream), 250);
  EXPECT_EQ(b.steps, 1);
  Sim jittery(ChoiceSource::from_seed(7));
  ChoiceStream s2 = jittery.stream("test");
  for (int i = 0; i < 50; ++i) {
    Backoff j(10, 10, 2.0, 0.2);
    const DurationMs d = backoff_step(j, s2);
    EXPECT_GE(d, 10);
    EXPECT_LE(d, 12);
  }
}

}  // namespace
}  // namespace wsim::kube
