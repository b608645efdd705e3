// issue #30 items 2-3: GitLab's defaults are production values, its amplifiers are drawn by the
// hunt's swarm per configuration seed, and the realism check names the amplifier a failure needs.
#include <gtest/gtest.h>

#include <set>

#include "model/gitlab/system.h"
#include "sim/run/amplifiers.h"
#include "sim/run/realism.h"
#include "sim/run/scenario.h"

namespace wsim::gitlab {
namespace {

proto::Scenario normalized_default() {
  GitlabSystem system;
  proto::Scenario scenario;
  scenario.mutable_gitlab();
  std::string error;
  EXPECT_TRUE(system.normalize(scenario, error)) << error;
  return scenario;
}

TEST(GitlabAmplifiers, DefaultsAreProductionValues) {
  const proto::Scenario scenario = normalized_default();
  EXPECT_EQ(scenario.gitlab().rails_clock_granularity_ms(), 1);
  EXPECT_EQ(scenario.gitlab().rails_touch_gap_max_ms(), 20);
  GitlabSystem system;
  EXPECT_TRUE(run::amplified_in(scenario, system).empty());
  ASSERT_EQ(system.amplifiers().size(), 2u);
  for (const run::Amplifier& amplifier : system.amplifiers()) {
    EXPECT_EQ(run::amplifier_value(scenario, system, amplifier), amplifier.production);
  }
}

TEST(GitlabAmplifiers, SwarmDrawDependsOnTheConfigSeedAndAmplifiesSomeRuns) {
  GitlabSystem system;
  const proto::Scenario base = normalized_default();
  const std::vector<std::string> drawable = run::drawable_amplifiers(base, system, {});
  ASSERT_EQ(drawable.size(), 2u);
  std::set<std::size_t> counts;
  for (std::uint64_t seed = 0; seed < 64; ++seed) {
    proto::Scenario a = base;
    proto::Scenario b = base;
    run::draw_amplifiers(a, system, drawable, seed);
    run::draw_amplifiers(b, system, drawable, seed);
    EXPECT_EQ(a.gitlab().rails_clock_granularity_ms(), b.gitlab().rails_clock_granularity_ms());
    EXPECT_EQ(a.gitlab().rails_touch_gap_max_ms(), b.gitlab().rails_touch_gap_max_ms());
    counts.insert(run::amplified_in(a, system).size());
  }
  EXPECT_TRUE(counts.count(0));  // Some runs at production,
  EXPECT_TRUE(counts.count(2));  // some with both amplified.
  // A value pinned on the command line is not drawn.
  EXPECT_EQ(run::drawable_amplifiers(base, system, {"gitlab.rails_clock_granularity_ms"}).size(),
            1u);
}

TEST(GitlabAmplifiers, RealismNamesTheAmplifierTheFailureNeeds) {
  GitlabSystem system;
  proto::Scenario scenario = normalized_default();
  scenario.mutable_gitlab()->set_rails_clock_granularity_ms(1000);
  scenario.mutable_gitlab()->set_rails_touch_gap_max_ms(2000);
  // Fails only with the coarse clock: needs the clock, not the gap.
  const run::Realism needs = run::check_realism(scenario, system, [](const proto::Scenario& s) {
    return s.gitlab().rails_clock_granularity_ms() == 1000;
  });
  EXPECT_FALSE(needs.realistic);
  EXPECT_EQ(needs.amplifiers, std::vector<std::string>{"gitlab.rails_clock_granularity_ms"});
  EXPECT_EQ(run::realism_label(needs), "needs");
  // Fails at production too: realistic.
  const run::Realism real =
      run::check_realism(scenario, system, [](const proto::Scenario&) { return true; });
  EXPECT_TRUE(real.realistic);
  EXPECT_TRUE(real.amplifiers.empty());
  // Nothing amplified: realistic without a re-run.
  int runs = 0;
  run::check_realism(normalized_default(), system, [&](const proto::Scenario&) {
    ++runs;
    return false;
  });
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace wsim::gitlab
