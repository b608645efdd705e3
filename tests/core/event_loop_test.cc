// The event loop and its sync primitives (sim/core/event_loop.h, sync.h): interleaving at every
// co_await, due-time-then-FIFO order, run_until, cancellation unwinding innermost first, OneShot,
// Channel and Signal, the schedule hash, and an escaping exception as a harness assertion.
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

// A muted actor (a shrunk scenario's muted_actors) never runs; it is not alive, cancelling it is
// a no-op, and the other actors run as before.
TEST(EventLoop, AMutedActorNeverRuns) {
  EventLoop loop;
  loop.set_muted({"b"});
  std::vector<std::string> log;
  loop.spawn("a", counter(loop, "a", log));
  const ActorId muted = loop.spawn("b", counter(loop, "b", log));
  EXPECT_FALSE(loop.alive(muted));
  loop.cancel(muted);
  loop.run_until_idle(1000);
  EXPECT_EQ(log, (std::vector<std::string>{"a1@10", "a2@20", "a3@30"}));
  EXPECT_EQ(loop.muted_spawns(), 1u);
  EXPECT_EQ(loop.live_actors(), 0u);
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

// Records its name into `log` when destroyed (by unwinding or by frame destruction).
struct Mark {
  std::vector<std::string>& log;
  std::string name;
  ~Mark() { log.push_back(name); }
};

Task<int> leaf(EventLoop& loop, std::vector<std::string>& log) {
  Mark first{log, "leaf.first"};
  Mark second{log, "leaf.second"};
  co_await loop.sleep(100);
  log.push_back("leaf.after");
  co_return 1;
}

Task<int> middle(EventLoop& loop, std::vector<std::string>& log) {
  Mark mark{log, "middle"};
  const int value = co_await leaf(loop, log);
  log.push_back("middle.after");
  co_return value;
}

Task<void> chain(EventLoop& loop, std::vector<std::string>& log) {
  Mark mark{log, "root"};
  log.push_back("root.start");
  co_await middle(loop, log);
  log.push_back("root.after");
}

// Cancelling a parked actor ends its whole chain of frames at the interleaving point: nothing
// after it runs, the innermost frame's locals go first (reverse order), then each caller's. A
// started actor's frames are destroyed without being resumed, an actor that never ran runs up to
// its first interleaving point and unwinds there: the same observable order either way.
TEST(EventLoop, CancelEndsTheChainInnermostLocalsFirst) {
  const std::vector<std::string> unwound = {"leaf.second", "leaf.first", "middle", "root"};
  for (const bool before_start : {false, true}) {
    EventLoop loop;
    std::vector<std::string> log;
    const ActorId id = loop.spawn("chain", chain(loop, log));
    if (!before_start) loop.run_until(50);
    loop.cancel(id);
    loop.run_until(1000);
    std::vector<std::string> expected = {"root.start"};
    expected.insert(expected.end(), unwound.begin(), unwound.end());
    EXPECT_EQ(log, expected) << "before_start=" << before_start;
    EXPECT_FALSE(loop.alive(id));
    EXPECT_EQ(loop.live_actors(), 0u);
  }
}

Task<void> self_cancel(EventLoop& loop, std::vector<std::string>& log) {
  Mark mark{log, "self"};
  loop.cancel(loop.current_actor());
  log.push_back("still running");
  co_await loop.sleep(10);
  log.push_back("after");
}

// An actor cancelled while it runs goes on to its next interleaving point and ends there.
TEST(EventLoop, SelfCancelEndsAtTheNextInterleavingPoint) {
  EventLoop loop;
  std::vector<std::string> log;
  const ActorId id = loop.spawn("self", self_cancel(loop, log));
  loop.run_until(1000);
  EXPECT_EQ(log, (std::vector<std::string>{"still running", "self"}));
  EXPECT_FALSE(loop.alive(id));
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
