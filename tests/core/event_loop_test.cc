#include "sim/core/event_loop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/core/sync.h"

namespace wsim {
namespace {

Task<int> slow_add(EventLoop& loop, int a, DurationMs delay_ms) {
  co_await loop.sleep(delay_ms);
  co_return a + 1;
}

Task<void> counter(EventLoop& loop, std::string name, std::vector<std::string>& log) {
  int value = 0;
  for (int i = 0; i < 3; ++i) {
    value = co_await slow_add(loop, value, 10);
    log.push_back(name + std::to_string(value) + "@" + std::to_string(loop.now_ms()));
  }
}

TEST(EventLoop, TwoActorsInterleaveAtEveryCoAwait) {
  EventLoop loop;
  std::vector<std::string> log;
  loop.spawn("a", counter(loop, "a", log));
  loop.spawn("b", counter(loop, "b", log));
  loop.run_until_idle(1000);
  // Same due time: FIFO by sequence number, so a and b alternate step by step.
  EXPECT_EQ(log, (std::vector<std::string>{"a1@10", "b1@10", "a2@20", "b2@20", "a3@30", "b3@30"}));
  EXPECT_EQ(loop.live_actors(), 0u);
  EXPECT_EQ(loop.now_ms(), 30);
}

Task<void> appender(EventLoop& loop, std::vector<int>& log, int id, DurationMs delay_ms) {
  co_await loop.sleep(delay_ms);
  log.push_back(id);
}

TEST(EventLoop, OrderIsDueTimeThenFifo) {
  EventLoop loop;
  std::vector<int> log;
  loop.spawn("late", appender(loop, log, 1, 50));
  loop.spawn("early", appender(loop, log, 2, 5));
  loop.spawn("tie-first", appender(loop, log, 3, 20));
  loop.spawn("tie-second", appender(loop, log, 4, 20));
  loop.schedule(20, [&log] { log.push_back(5); });
  loop.run_until_idle(1000);
  // The callback was scheduled before the actors reached their sleep(20), so it runs first.
  EXPECT_EQ(log, (std::vector<int>{2, 5, 3, 4, 1}));
}

TEST(EventLoop, RunUntilStopsAtTheBoundAndAdvancesTheClock) {
  EventLoop loop;
  std::vector<int> log;
  loop.schedule(10, [&log] { log.push_back(10); });
  loop.schedule(30, [&log] { log.push_back(30); });
  loop.run_until(20);
  EXPECT_EQ(log, std::vector<int>{10});
  EXPECT_EQ(loop.now_ms(), 20);
  EXPECT_EQ(loop.pending_events(), 1u);
  loop.run_until(30);
  EXPECT_EQ(log, (std::vector<int>{10, 30}));
}

Task<void> forever(EventLoop& loop, int& steps, bool& unwound) {
  struct Guard {
    bool& flag;
    ~Guard() { flag = true; }
  } guard{unwound};
  while (true) {
    co_await loop.sleep(100);
    ++steps;
  }
}

TEST(EventLoop, CancelUnwindsTheActorAtItsInterleavingPoint) {
  EventLoop loop;
  int steps = 0;
  bool unwound = false;
  const ActorId id = loop.spawn("agent", forever(loop, steps, unwound));
  loop.run_until(250);
  EXPECT_EQ(steps, 2);
  EXPECT_TRUE(loop.alive(id));
  loop.cancel(id);
  loop.run_until(1000);
  EXPECT_EQ(steps, 2);  // The pending 300 ms wake-up was dropped.
  EXPECT_TRUE(unwound);
  EXPECT_FALSE(loop.alive(id));
  EXPECT_EQ(loop.live_actors(), 0u);
}

Task<void> waiter(OneShot<int> shot, int& got) { got = co_await shot; }

// A finished actor's slot is freed (issue 13: memory follows live actors, not the run's length):
// it is no longer alive, has no name, a late wake-up for it is dropped and cancel() is a no-op,
// with and without priority ties (its rank outlives it).
TEST(EventLoop, AFinishedActorIsFreedAndItsLateWakeUpsAreDropped) {
  for (const bool ties : {false, true}) {
    ChoiceSource choices = ChoiceSource::from_seed(3);
    EventLoop loop;
    if (ties) loop.use_priority_ties(choices.stream("ranks"), {5});
    OneShot<int> shot(loop);
    int got = 0;
    const ActorId id = loop.spawn("waiter", waiter(shot, got));
    loop.run_until(1);
    EXPECT_EQ(loop.actor_name(id), "waiter");
    loop.cancel(id);
    loop.run_until(2);
    EXPECT_FALSE(loop.alive(id));
    EXPECT_EQ(loop.actor_name(id), "-");
    loop.cancel(id);  // No-op.
    std::vector<int> log;
    const ActorId other = loop.spawn("other", appender(loop, log, 1, 10));
    loop.run_until(3);
    shot.set(7);  // The cancelled waiter had parked on it: its wake-up is stale.
    const std::uint64_t before = loop.events_processed();
    loop.run_until_idle(1000);
    EXPECT_EQ(got, 0);
    EXPECT_EQ(log, std::vector<int>{1});
    EXPECT_FALSE(loop.alive(other));
    EXPECT_EQ(loop.live_actors(), 0u);
    EXPECT_EQ(loop.events_processed(), before + 2);  // The stale wake-up and `other`'s.
  }
}

TEST(EventLoop, OneShotWakesTheWaiterWithTheValue) {
  EventLoop loop;
  OneShot<int> shot(loop);
  int got = 0;
  loop.spawn("waiter", waiter(shot, got));
  loop.schedule(40, [shot]() mutable { shot.set(7); });
  loop.run_until_idle(1000);
  EXPECT_EQ(got, 7);
  EXPECT_EQ(loop.now_ms(), 40);
}

Task<void> consumer(Channel<int>& channel, std::vector<int>& got, int count) {
  for (int i = 0; i < count; ++i) got.push_back(co_await channel.receive());
}

TEST(EventLoop, ChannelDeliversInOrder) {
  EventLoop loop;
  Channel<int> channel(loop);
  std::vector<int> got;
  loop.spawn("consumer", consumer(channel, got, 3));
  loop.schedule(5, [&channel] {
    channel.send(1);
    channel.send(2);
  });
  loop.schedule(9, [&channel] { channel.send(3); });
  loop.run_until_idle(1000);
  EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
}

Task<void> signal_waiter(Signal& signal, int& woken) {
  co_await signal.wait();
  ++woken;
}

TEST(EventLoop, SignalWakesEveryCurrentWaiter) {
  EventLoop loop;
  Signal signal(loop);
  int woken = 0;
  loop.spawn("w1", signal_waiter(signal, woken));
  loop.spawn("w2", signal_waiter(signal, woken));
  loop.run_until(1);
  EXPECT_EQ(woken, 0);
  signal.notify_all();
  loop.run_until(2);
  EXPECT_EQ(woken, 2);
}

TEST(EventLoop, ScheduleHashDependsOnTheSchedule) {
  auto run = [](DurationMs second_delay_ms) {
    EventLoop loop;
    std::vector<int> log;
    loop.spawn("a", appender(loop, log, 1, 10));
    loop.spawn("b", appender(loop, log, 2, second_delay_ms));
    loop.run_until_idle(1000);
    return loop.schedule_hash();
  };
  EXPECT_EQ(run(20), run(20));
  EXPECT_NE(run(20), run(5));
}

TEST(EventLoop, AfterEventHookCanStopTheRun) {
  EventLoop loop;
  int ran = 0;
  for (int i = 1; i <= 5; ++i) loop.schedule(i, [&ran] { ++ran; });
  loop.set_after_event([&] {
    if (ran == 3) loop.request_stop();
  });
  loop.run_until_idle(1000);
  EXPECT_EQ(ran, 3);
  EXPECT_TRUE(loop.stop_requested());
}

Task<void> thrower(EventLoop& loop) {
  co_await loop.yield();
  throw std::runtime_error("boom");
}

TEST(EventLoopDeathTest, AnExceptionEscapingAnActorIsAHarnessAssertion) {
  EXPECT_DEATH(
      {
        EventLoop loop;
        loop.spawn("bad", thrower(loop));
        loop.run_until_idle(10);
      },
      "actor 'bad' ended with an exception: boom");
}

}  // namespace
}  // namespace wsim
