// The simulated network link (sim/net/link.h): latency both ways, lost requests and lost responses
// (the server acted or not), scripted loss, partitions until healed, and a cancelled caller that
// leaves the server's work alone.
#include "sim/net/link.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wsim::net {
namespace {

struct Fixture {
  explicit Fixture(ChoiceSource choices, LinkOptions options = {})
      : sim(std::move(choices)),
        link(sim, "rails", options, [this](int request) { return handle(request); }) {}

  Task<int> handle(int request) {
    handled.push_back(request);
    co_await sim.loop().sleep(3);  // The server takes a while; it still completes.
    co_return request * 10;
  }

  Sim sim;
  std::vector<int> handled;
  Link<int, int> link;
};

Task<void> caller(Link<int, int>& link, int request, LinkResult<int>& out, TimeMs& done_ms,
                  EventLoop& loop) {
  out = co_await link.call(request);
  done_ms = loop.now_ms();
}

TEST(Link, DeliversTheResponseWithLatencyBothWays) {
  LinkOptions options;
  options.min_latency_ms = 4;
  options.max_latency_ms = 4;
  Fixture f(ChoiceSource::from_seed(1), options);
  LinkResult<int> result;
  TimeMs done_ms = 0;
  f.sim.loop().spawn("agent", caller(f.link, 7, result, done_ms, f.sim.loop()));
  f.sim.loop().run_until_idle(kMinuteMs);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.response, 70);
  EXPECT_EQ(done_ms, 4 + 3 + 4);
  EXPECT_EQ(f.handled, std::vector<int>{7});
}

TEST(Link, LostRequestTimesOutAndTheServerNeverActs) {
  Fixture f(ChoiceSource::from_seed(1));
  FaultId id = 0;
  ASSERT_TRUE(f.sim.faults().find("rails.lost_request", id));
  f.sim.faults().force(id, true, Ratio::always());
  LinkResult<int> result;
  TimeMs done_ms = 0;
  f.sim.loop().spawn("agent", caller(f.link, 7, result, done_ms, f.sim.loop()));
  f.sim.loop().run_until_idle(kHourMs);
  EXPECT_FALSE(result.ok());
  EXPECT_TRUE(f.handled.empty());
  EXPECT_EQ(done_ms, LinkOptions{}.timeout_ms);
  EXPECT_EQ(f.link.lost(), 1u);
}

TEST(Link, LostResponseTimesOutAfterTheServerActed) {
  Fixture f(ChoiceSource::from_seed(1));
  FaultId id = 0;
  ASSERT_TRUE(f.sim.faults().find("rails.lost_response", id));
  f.sim.faults().force(id, true, Ratio::always());
  LinkResult<int> result;
  TimeMs done_ms = 0;
  f.sim.loop().spawn("agent", caller(f.link, 7, result, done_ms, f.sim.loop()));
  f.sim.loop().run_until_idle(kHourMs);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(f.handled, std::vector<int>{7});  // At-least-once: Rails did commit.
  ASSERT_FALSE(f.sim.trace().events().empty());
  EXPECT_EQ(f.sim.trace().events().back().result, "lost");
}

TEST(Link, ScriptedLossDropsExactlyTheNextResponse) {
  Fixture f(ChoiceSource::from_seed(1));
  f.link.lose_next_response();
  LinkResult<int> first;
  LinkResult<int> second;
  TimeMs done_ms = 0;
  f.sim.loop().spawn("agent", caller(f.link, 1, first, done_ms, f.sim.loop()));
  f.sim.loop().run_until_idle(kHourMs);
  f.sim.loop().spawn("agent", caller(f.link, 2, second, done_ms, f.sim.loop()));
  f.sim.loop().run_until_idle(2 * kHourMs);
  EXPECT_FALSE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second.response, 20);
  EXPECT_EQ(f.handled, (std::vector<int>{1, 2}));  // The server acted on both.
  EXPECT_EQ(f.link.lost(), 1u);
}

TEST(Link, PartitionDropsEverythingUntilHealed) {
  Fixture f(ChoiceSource::from_seed(3));
  f.link.set_partitioned(true);
  LinkResult<int> first;
  LinkResult<int> second;
  TimeMs done_ms = 0;
  f.sim.loop().spawn("agent", caller(f.link, 1, first, done_ms, f.sim.loop()));
  f.sim.loop().run_until_idle(kHourMs);
  f.link.set_partitioned(false);
  f.sim.loop().spawn("agent", caller(f.link, 2, second, done_ms, f.sim.loop()));
  f.sim.loop().run_until_idle(2 * kHourMs);
  EXPECT_FALSE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second.response, 20);
  EXPECT_EQ(f.handled, std::vector<int>{2});
}

TEST(Link, CancelledCallerDoesNotAbortTheServer) {
  LinkOptions options;
  options.min_latency_ms = 40;
  options.max_latency_ms = 40;
  Fixture f(ChoiceSource::from_seed(1), options);
  LinkResult<int> result;
  TimeMs done_ms = -1;
  const ActorId agent =
      f.sim.loop().spawn("agent", caller(f.link, 5, result, done_ms, f.sim.loop()));
  f.sim.loop().run_until(60);  // Server done at 43, response due at 83.
  f.sim.loop().cancel(agent);
  f.sim.loop().run_until_idle(kHourMs);
  EXPECT_EQ(done_ms, -1);                     // The caller never saw a response.
  EXPECT_EQ(f.handled, std::vector<int>{5});  // The server finished its work.
}

}  // namespace
}  // namespace wsim::net
