// Priority ties (sim/core/event_loop.h): among events due at the same virtual time, actors run in
// rank order instead of FIFO; callbacks stay FIFO; a change point demotes an actor.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/core/choice.h"
#include "sim/core/event_loop.h"

namespace wsim {
namespace {

// Logs its name every 10 ms, `steps` times: every step of every such actor ties with the others.
Task<void> ticker(EventLoop& loop, std::string name, int steps, std::vector<std::string>& log) {
  for (int i = 0; i < steps; ++i) {
    co_await loop.sleep(10);
    log.push_back(name);
  }
}

std::vector<std::string> run_tickers(std::optional<std::uint64_t> seed,
                                     std::vector<TimeMs> change_points, int actors = 4) {
  ChoiceSource choices = ChoiceSource::from_seed(seed.value_or(0));
  EventLoop loop;
  if (seed) loop.use_priority_ties(choices.stream("ranks"), std::move(change_points));
  std::vector<std::string> log;
  for (int i = 0; i < actors; ++i) {
    loop.spawn("t" + std::to_string(i), ticker(loop, "t" + std::to_string(i), 3, log));
  }
  while (loop.step()) {
  }
  return log;
}

TEST(PriorityTies, WithoutThemTiesAreFifo) {
  const std::vector<std::string> log = run_tickers(std::nullopt, {});
  const std::vector<std::string> round = {"t0", "t1", "t2", "t3"};
  ASSERT_EQ(log.size(), 12u);
  for (std::size_t i = 0; i < log.size(); ++i) EXPECT_EQ(log[i], round[i % 4]) << i;
}

TEST(PriorityTies, RanksReorderTiesTheSameWayEveryRound) {
  // Some seed gives an order other than FIFO, and each seed keeps its order in every round
  // (no change point: ranks are fixed).
  std::set<std::vector<std::string>> first_rounds;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const std::vector<std::string> log = run_tickers(seed, {});
    ASSERT_EQ(log.size(), 12u);
    const std::vector<std::string> first(log.begin(), log.begin() + 4);
    EXPECT_EQ(std::set<std::string>(first.begin(), first.end()).size(), 4u);
    EXPECT_EQ(std::vector<std::string>(log.begin() + 4, log.begin() + 8), first) << seed;
    EXPECT_EQ(run_tickers(seed, {}), log) << "same seed, same order";
    first_rounds.insert(first);
  }
  EXPECT_GT(first_rounds.size(), 1u);
  EXPECT_FALSE(first_rounds.count({"t0", "t1", "t2", "t3"}) == 1 && first_rounds.size() == 1);
}

TEST(PriorityTies, AChangePointDemotesTheActorThatRunsAtIt) {
  const std::uint64_t seed = 3;
  const std::vector<std::string> before = run_tickers(seed, {});
  // The change point at 15 ms: the first actor to run at or after it (the winner of the 20 ms
  // round) is demoted, so it runs last from the 30 ms round on.
  const std::vector<std::string> after = run_tickers(seed, {15});
  ASSERT_EQ(after.size(), 12u);
  EXPECT_EQ(std::vector<std::string>(after.begin(), after.begin() + 8),
            std::vector<std::string>(before.begin(), before.begin() + 8));
  const std::string demoted = before[4];
  EXPECT_EQ(after[11], demoted);
  EXPECT_NE(before[11], demoted);
}

std::vector<std::string> actor_then_callbacks(bool priority_ties) {
  ChoiceSource choices = ChoiceSource::from_seed(7);
  EventLoop loop;
  if (priority_ties) loop.use_priority_ties(choices.stream("ranks"), {});
  std::vector<std::string> log;
  loop.spawn("a", ticker(loop, "a", 1, log));
  EXPECT_TRUE(loop.step());  // "a" starts and sleeps until 10 ms: its wake-up is queued first.
  for (int i = 0; i < 5; ++i) {
    loop.schedule(10, [&log, i] { log.push_back("cb" + std::to_string(i)); });
  }
  while (loop.step()) {
  }
  return log;
}

TEST(PriorityTies, CallbacksStayFifoAndRunBeforeActorsDueAtTheSameTime) {
  EXPECT_EQ(actor_then_callbacks(false),
            (std::vector<std::string>{"a", "cb0", "cb1", "cb2", "cb3", "cb4"}));
  EXPECT_EQ(actor_then_callbacks(true),
            (std::vector<std::string>{"cb0", "cb1", "cb2", "cb3", "cb4", "a"}));
}

}  // namespace
}  // namespace wsim
