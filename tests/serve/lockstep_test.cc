// serve/world_lockstep.cc: requests of an external process reach the simulation only through
// sync() — all requests that entered are in the batch, sorted by key — and run on the
// simulation thread; the HTTP thread gets the answer after complete().
#include <gtest/gtest.h>

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
