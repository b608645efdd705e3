// WorkQueue: controller-runtime semantics on virtual time (docs/systems/gitpod.md §1.5).
#include "model/gitpod/work_queue.h"

#include <gtest/gtest.h>

#include <vector>

namespace wsim::gitpod {
namespace {

TEST(WorkQueue, BackoffDoublesFrom5msAndCaps) {
  Sim sim(ChoiceSource::from_seed(1));
  WorkQueue queue(sim);
  EXPECT_EQ(queue.next_backoff_ms("a"), 5);
  for (int i = 0; i < 3; ++i) queue.add_rate_limited("a");
  EXPECT_EQ(queue.next_backoff_ms("a"), 40);
  for (int i = 0; i < 40; ++i) queue.add_rate_limited("a");
  EXPECT_EQ(queue.next_backoff_ms("a"), WorkQueue::kMaxDelayMs);
  queue.forget("a");
  EXPECT_EQ(queue.next_backoff_ms("a"), 5);
}

Task<void> worker(WorkQueue& queue, std::vector<std::string>& seen, EventLoop& loop) {
  while (true) {
    std::optional<std::string> key = co_await queue.next();
    if (!key) co_return;
    seen.push_back(*key + "@" + std::to_string(loop.now_ms()));
    co_await loop.sleep(10);
    queue.finish(*key, ReconcileResult::done());
  }
}

TEST(WorkQueue, DedupesAndSerialisesPerKey) {
  Sim sim(ChoiceSource::from_seed(1));
  WorkQueue queue(sim);
  std::vector<std::string> seen;
  sim.loop().spawn("w1", worker(queue, seen, sim.loop()));
  sim.loop().spawn("w2", worker(queue, seen, sim.loop()));
  queue.add("a");
  queue.add("a");
  sim.loop().schedule(5, [&] { queue.add("a"); });  // While processing: dirty, re-queued once.
  queue.add_after("b", 100);
  sim.loop().run_until(1000);
  queue.shutdown();
  sim.loop().run_until(2000);
  EXPECT_EQ(seen, (std::vector<std::string>{"a@0", "a@10", "b@100"}));
}

}  // namespace
}  // namespace wsim::gitpod

namespace wsim::gitpod {
namespace {

// A key added while processing is queued again once at done(), whichever of several processing
// keys finishes first; processing() follows next()/done().
TEST(WorkQueue, DirtyKeysOfSeveralWorkersRequeueOnceEach) {
  Sim sim(ChoiceSource::from_seed(1));
  WorkQueue queue(sim);
  std::vector<std::string> seen;
  for (const char* name : {"w1", "w2", "w3"}) {
    sim.loop().spawn(name, worker(queue, seen, sim.loop()));
  }
  queue.add("a");
  queue.add("b");
  queue.add("c");
  sim.loop().schedule(5, [&] {
    EXPECT_TRUE(queue.processing("a"));
    EXPECT_TRUE(queue.processing("b"));
    EXPECT_TRUE(queue.processing("c"));
    EXPECT_FALSE(queue.processing("d"));
    queue.add("c");
    queue.add("a");
    queue.add("c");  // Dirty already.
  });
  sim.loop().schedule(15, [&] {
    EXPECT_TRUE(queue.processing("a"));
    EXPECT_FALSE(queue.processing("b"));
  });
  sim.loop().run_until(1000);
  EXPECT_FALSE(queue.processing("a"));
  EXPECT_FALSE(queue.processing("c"));
  queue.shutdown();
  sim.loop().run_until(2000);
  EXPECT_EQ(seen, (std::vector<std::string>{"a@0", "b@0", "c@0", "a@10", "c@10"}));
}

}  // namespace
}  // namespace wsim::gitpod

namespace wsim::gitpod {
namespace {

// A worker whose reconciles fail (rate limited) `failures` times before succeeding.
Task<void> failing_worker(WorkQueue& queue, std::vector<std::string>& seen, EventLoop& loop,
                          int failures) {
  while (true) {
    std::optional<std::string> key = co_await queue.next();
    if (!key) co_return;
    seen.push_back(*key + "@" + std::to_string(loop.now_ms()));
    const bool fail = failures-- > 0;
    queue.finish(*key, fail ? ReconcileResult::failed() : ReconcileResult::done());
  }
}

// The per-key state lives in one entry shared by the FIFO, the timers and the rate limiter: a
// timer set before a reconcile still queues its key after that reconcile forgot it, failures
// back off 5, 10, 20 ms and a success forgets them, and a timer firing after shutdown queues
// nothing.
TEST(WorkQueue, TimersAndBackoffOutliveForget) {
  Sim sim(ChoiceSource::from_seed(1));
  WorkQueue queue(sim);
  std::vector<std::string> seen;
  sim.loop().spawn("w", failing_worker(queue, seen, sim.loop(), 3));
  queue.add_after("a", 100);
  queue.add("a");
  sim.loop().run_until(99);
  EXPECT_EQ(seen, (std::vector<std::string>{"a@0", "a@5", "a@15", "a@35"}));
  EXPECT_EQ(queue.next_backoff_ms("a"), WorkQueue::kBaseDelayMs);  // The success forgot them.
  sim.loop().run_until(150);
  EXPECT_EQ(seen.back(), "a@100");
  queue.add_after("b", 10);
  queue.shutdown();
  sim.loop().run_until(200);
  EXPECT_EQ(seen.back(), "a@100");
  EXPECT_EQ(queue.queued(), 0u);
  EXPECT_FALSE(queue.processing("a"));
}

}  // namespace
}  // namespace wsim::gitpod
