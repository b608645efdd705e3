// serve/world_lockstep.cc: requests of an external process reach the simulation only through
// sync() — all requests that entered are in the batch, sorted by key — and run on the
// simulation thread; the HTTP thread gets the answer after complete(). sync() waits again for a
// process that ran since its last wait, and its quiet period needs two quiet looks.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "serve/world.h"
#include "sim/core/choice.h"
#include "sim/kube/api_server.h"

namespace wsim::serve {
namespace {

kube::Object config_map(const std::string& name) {
  kube::Object object;
  object.kind = "ConfigMap";
  object.meta.namespace_ = "default";
  object.meta.name = name;
  return object;
}

TEST(ServeLockstep, SyncHandsOverEveryEnteredRequestInKeyOrder) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::ApiServer api(sim);
  kube::Object ns;
  ns.kind = "Namespace";
  ns.meta.name = "default";
  ASSERT_TRUE(api.server_create(ns, "test").ok());
  World world(sim, api, 100);
  LockstepOptions options;
  options.quiet_ms = 5;
  options.ready_watches = 0;
  world.enter_lockstep(options);
  std::vector<std::string> ran;
  RequestTicket b;
  RequestTicket a;
  for (auto [ticket, key] : {std::pair{&b, "b"}, std::pair{&a, "a"}}) {
    ticket->key = key;
    ticket->execute = [&world, &ran, key = std::string(key)] {
      ran.push_back(key);  // On the simulation thread: no lock needed.
      return world.create(config_map(key), "ext").ok() ? 201 : 500;
    };
  }
  world.request_entered();
  world.request_entered();
  bool answered_a = false;
  bool answered_b = false;
  std::thread client_b([&] { answered_b = world.submit(b); });
  std::thread client_a([&] { answered_a = world.submit(a); });
  const std::vector<RequestTicket*> batch = world.sync();  // Waits for both submissions.
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0], &a);
  EXPECT_EQ(batch[1], &b);
  for (RequestTicket* ticket : batch) {
    EXPECT_EQ(ticket->execute(), 201);
    world.complete(*ticket);
  }
  EXPECT_TRUE(world.sync().empty());  // Lets the clients take their answers.
  client_a.join();
  client_b.join();
  EXPECT_TRUE(answered_a);
  EXPECT_TRUE(answered_b);
  EXPECT_EQ(ran, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(world.stats().requests, 2u);
  world.leave_lockstep();
}

TEST(ServeLockstep, ARequestAfterTheRunEndsIsRefused) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::ApiServer api(sim);
  World world(sim, api, 100);
  world.enter_lockstep(LockstepOptions{});
  world.leave_lockstep();
  RequestTicket ticket;
  world.request_entered();
  EXPECT_FALSE(world.submit(ticket));
}

// The kubectl example's correct variant (examples/kubectl-controller): a wait ended while the
// shell was between two kubectl calls, nothing the process could see changed afterwards, and
// sync() skipped every later wait while the shell went on working: virtual time ran to the end
// of the run without it. Now a skip first looks at the process: a digest other than the last
// wait's, or busy, means it ran since, and sync() waits for it again.
TEST(ServeLockstep, SyncWaitsAgainForAProcessThatRanSinceItsLastWait) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::ApiServer api(sim);
  World world(sim, api, 100);
  LockstepOptions options;
  options.quiet_ms = 5;
  options.ready_watches = 0;
  std::uint64_t digest = 7;
  int busy_looks = 0;
  options.look = [&](std::size_t, bool) {
    ProcessLook look;
    if (busy_looks > 0) {
      --busy_looks;
      look.busy = true;
    } else {
      look.asleep = digest;
      look.ready = digest;
    }
    return look;
  };
  world.enter_lockstep(options);
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().syncs, 1u) << "the first look finds a process not seen asleep yet";
  EXPECT_EQ(world.stats().ready, 1u);
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().syncs, 1u) << "asleep with the same digest: nothing to wait for";
  // The process runs on its own (a shell starting its next kubectl): busy, then asleep again
  // with another digest.
  busy_looks = 3;
  digest = 8;
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().syncs, 2u) << "a process that ran since the last wait is waited for";
  EXPECT_EQ(world.stats().ready, 2u);
  EXPECT_EQ(world.stats().rechecks, 2u);
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().syncs, 2u);
  EXPECT_EQ(world.stats().looks, 4u);
  world.leave_lockstep();
}

// Under load one poll (the wait and the /proc walk) can take longer than the quiet period; a
// single quiet look after a busy one must not end the wait (it may have caught a shell between
// a child's exit and the next fork). A look that takes 40 ms and alternates busy and quiet
// never gives two quiet looks in a row: the wait ends at its bound, not by the quiet period.
TEST(ServeLockstep, QuietPeriodNeedsTwoQuietLooksInARow) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::ApiServer api(sim);
  World world(sim, api, 100);
  LockstepOptions options;
  options.quiet_ms = 30;
  options.wait_max_ms = 400;
  options.ready_watches = 0;
  bool alternate = true;
  int looks = 0;
  options.look = [&](std::size_t, bool) {
    ProcessLook look;
    if (alternate) {
      std::this_thread::sleep_for(std::chrono::milliseconds(40));
      look.busy = looks++ % 2 == 0;
    }
    return look;
  };
  world.enter_lockstep(options);
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().syncs, 1u);
  EXPECT_EQ(world.stats().timeouts, 1u) << "ended by a lone quiet look, not the bound";
  // A process that stays quiet (no mark: the quiet period decides) ends the next wait by it.
  alternate = false;
  world.close_watch(world.open_watch("ConfigMap", "default"));  // Activity: the next one waits.
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().syncs, 2u);
  EXPECT_EQ(world.stats().timeouts, 1u);
  world.leave_lockstep();
}

// issue #33 item 3: timers woken by the virtual clock run in a wait of their own. While
// deliveries are held, an answer that is ready stays in the world (its HTTP thread counts as
// parked for the look) and the wait still ends; released, the next sync hands it out.
TEST(ServeLockstep, HeldAnswersLeaveOnlyAfterTheHold) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::ApiServer api(sim);
  World world(sim, api, 100);
  LockstepOptions options;
  options.quiet_ms = 5;
  options.ready_watches = 0;
  std::size_t parked_seen = 0;
  options.look = [&](std::size_t parked, bool) {
    parked_seen = parked;
    ProcessLook look;
    look.asleep = 7;
    look.ready = 7;
    return look;
  };
  world.enter_lockstep(options);
  RequestTicket ticket;
  ticket.key = "a";
  world.request_entered();
  std::atomic<bool> answered{false};
  std::thread client([&] { answered = world.submit(ticket); });
  ASSERT_EQ(world.sync().size(), 1u);
  world.complete(ticket);
  world.hold_deliveries(true);
  world.mark_dirty();
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().timeouts, 0u) << "held, the answer does not keep the world unsettled";
  EXPECT_EQ(parked_seen, 1u) << "the held answer's HTTP thread is parked";
  EXPECT_FALSE(answered) << "no answer leaves while held";
  world.hold_deliveries(false);
  EXPECT_TRUE(world.sync().empty());
  client.join();
  EXPECT_TRUE(answered);
  world.leave_lockstep();
}

// A process that sleeps on its virtual clock before it has opened its watches: the run starts
// (the wait ends by the readiness marks), instead of waiting for the watches until the bound.
TEST(ServeLockstep, APendingVirtualTimerLetsTheRunStartBeforeTheWatches) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::ApiServer api(sim);
  World world(sim, api, 100);
  LockstepOptions options;
  options.quiet_ms = 5;
  options.ready_watches = 1;
  options.start_wait_max_ms = 300;
  bool timer = true;
  options.timer_pending = [&] { return timer; };
  options.look = [&](std::size_t, bool) {
    ProcessLook look;
    look.asleep = 9;
    look.ready = 9;
    return look;
  };
  world.enter_lockstep(options);
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().timeouts, 0u);
  EXPECT_EQ(world.stats().ready, 1u);
  // Without a timer and without watches the start still waits for them, up to its bound.
  timer = false;
  world.mark_dirty();
  EXPECT_TRUE(world.sync().empty());
  EXPECT_EQ(world.stats().timeouts, 1u);
  world.leave_lockstep();
}

TEST(ServeLockstep, GeneratedNamesAreDeterministic) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::ApiServer api(sim);
  World one(sim, api, 100);
  World two(sim, api, 100);
  const std::string first = one.generated_suffix();
  EXPECT_EQ(first.size(), 5u);
  EXPECT_EQ(first, two.generated_suffix());
  EXPECT_NE(first, one.generated_suffix());
}

}  // namespace
}  // namespace wsim::serve
