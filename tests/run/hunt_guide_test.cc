// The probe-guided swarm's pool (sim/search/hunt_guide.h).
#include "sim/search/hunt_guide.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace wsim::run {
namespace {

std::vector<Probe> reached(std::vector<std::string> names) {
  std::vector<Probe> probes;
  for (std::string& name : names) probes.push_back(Probe{std::move(name), "", 1});
  return probes;
}

TEST(SwarmGuide, ExploresUntilARareProbeIsReached) {
  SwarmGuide guide;
  for (std::uint64_t i = 0; i < 100; ++i) EXPECT_FALSE(guide.pick(i).has_value());
  guide.observe(7, reached({"common"}));  // First run: every reached probe is new, so rare.
  EXPECT_EQ(guide.pool_size(), 1u);
  for (std::uint64_t seed = 8; seed < 208; ++seed) guide.observe(seed, reached({"common"}));
  EXPECT_EQ(guide.pool_size(), 1u) << "a common probe does not make a run interesting";
  guide.observe(500, reached({"common", "unreached", "other"}));
  guide.observe(501, std::vector<Probe>{Probe{"never", "", 0}});  // Zero hits: not reached.
  EXPECT_EQ(guide.pool_size(), 2u);
  EXPECT_EQ(guide.runs_observed(), 203u);
}

TEST(SwarmGuide, PicksPoolSeedsForAboutHalfTheRunsDeterministically) {
  SwarmGuide guide;
  guide.observe(41, reached({"a"}));
  guide.observe(42, reached({"b"}));
  int guided = 0;
  std::set<std::uint64_t> seen;
  for (std::uint64_t index = 0; index < 1000; ++index) {
    const std::optional<std::uint64_t> pick = guide.pick(index);
    EXPECT_EQ(pick, guide.pick(index));
    if (!pick) continue;
    ++guided;
    seen.insert(*pick);
  }
  EXPECT_GT(guided, 400);
  EXPECT_LT(guided, 600);
  EXPECT_EQ(seen, (std::set<std::uint64_t>{41, 42}));
}

TEST(SwarmGuide, ThePoolIsBounded) {
  SwarmGuide guide;
  for (std::uint64_t seed = 0; seed < 3 * SwarmGuide::kPoolMax; ++seed) {
    guide.observe(seed, reached({"probe-" + std::to_string(seed)}));  // Each one new.
  }
  EXPECT_EQ(guide.pool_size(), SwarmGuide::kPoolMax);
  for (std::uint64_t index = 0; index < 200; ++index) {
    if (const auto pick = guide.pick(index)) EXPECT_GE(*pick, 2 * SwarmGuide::kPoolMax);
  }
}

}  // namespace
}  // namespace wsim::run
