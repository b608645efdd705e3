// issue #30 items 2-3: GitLab's defaults are production values, its amplifiers are drawn by the
// hunt's swarm per configuration seed, and the realism check names the amplifier a failure needs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "model/gitlab/register.h"
#include "model/gitlab/system.h"
#include "sim/run/amplifiers.h"
#include "sim/run/realism.h"
#include "sim/run/scenario.h"
#include "sim/search/hunt.h"
#include "sim/search/hunt_tally.h"
#include "sim/search/hunt_worker.h"
#include "sim/triage/corpus_bugs.h"
#include "sim/triage/labelled_realism.h"

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

TEST(GitlabAmplifiers, RealismSearchesOtherSeedsOnlyWhenTheCallerNamesTheBug) {
  GitlabSystem system;
  proto::Scenario scenario = normalized_default();
  scenario.set_seed(40);
  scenario.mutable_gitlab()->set_rails_clock_granularity_ms(1000);
  // Its own seed passes at production; the bug shows again at seed 45 at production values.
  const auto own_seed_only = [](const proto::Scenario& s) {
    return s.gitlab().rails_clock_granularity_ms() == 1000 && s.seed() == 40;
  };
  std::vector<std::uint64_t> searched;
  const auto bug_at_45 = [&](const proto::Scenario& s) {
    EXPECT_EQ(s.gitlab().rails_clock_granularity_ms(), 1u);  // Every search run at production.
    searched.push_back(s.seed());
    return s.seed() == 45;
  };
  const run::Realism found = run::check_realism(scenario, system, own_seed_only, bug_at_45);
  EXPECT_TRUE(found.realistic);
  EXPECT_NE(found.why.find("seed 45 fails with the same bug"), std::string::npos) << found.why;
  EXPECT_EQ(searched, (std::vector<std::uint64_t>{41, 42, 43, 44, 45}));
  // Without a predicate that names the bug there is no search: the seed's own verdict stands.
  const run::Realism unsearched = run::check_realism(scenario, system, own_seed_only);
  EXPECT_FALSE(unsearched.realistic);
  // The search is bounded, and a bug it does not find is still attributed and says so.
  searched.clear();
  const run::Realism never =
      run::check_realism(scenario, system, own_seed_only, [&](const proto::Scenario& s) {
        searched.push_back(s.seed());
        return false;
      });
  EXPECT_FALSE(never.realistic);
  EXPECT_EQ(never.amplifiers, std::vector<std::string>{"gitlab.rails_clock_granularity_ms"});
  EXPECT_EQ(searched.size(), run::kRealismSearchSeeds);
  EXPECT_NE(never.why.find("not seen at production values in seed 40 or the 64 seeds after it"),
            std::string::npos)
      << never.why;
}

// The case that made the search necessary (issue #30 item 3): a seed whose finding carries the
// overlapping-apply bug (a failed apply drops a live object from the inventory, cli-utils
// DeleteOrUpdateInvTask.updateInventory), which needs no amplifier, while the seed itself passes
// with every amplifier at production. It was seed 10 of overlapping-apply-stale-inventory until
// the 2026-11-29 triage showed that seed's PVC leak to start with kubectl deleting the inventories
// (a3-inventory-only-record, corpus shared-inventory-loss-partial-reapply; docs/evidence.md
// "Triage of 2026-11-29"); seed 47 of the after-stop file is such a case (seed 63 fails with the
// bug at production).
TEST(GitlabAmplifiers, ABugThatNeedsNoAmplifierIsRealisticEvenWhenItsOwnSeedPassesAtProduction) {
  register_gitlab_system();
  const std::string corpus = std::string(WSIM_SOURCE_DIR) + "/corpus/regressions";
  run::LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(run::load_scenario_file(
      corpus + "/gitlab/overlapping-apply-stale-inventory-after-stop.textproto", loaded, error))
      << error;
  loaded.scenario.set_seed(47);
  ASSERT_TRUE(run::validate_scenario(loaded, error)) << error;
  run::RunOptions options;
  options.keep_trace = true;
  run::RunResult failing = run::execute_run(*loaded.system, loaded.scenario, options);
  ASSERT_TRUE(failing.violation.has_value());
  ASSERT_EQ(failing.violation->invariant_id, "gitlab.S11");
  std::vector<run::KnownBug> known;
  ASSERT_TRUE(run::applicable_corpus_bugs(*loaded.system, loaded.scenario, corpus, known, error))
      << error;
  run::label_with_known(known, failing);
  // Any file of the bug (the label names the nearest one, docs/signatures.md).
  ASSERT_NE(failing.known.find("/gitlab/overlapping-apply-stale-inventory"), std::string::npos)
      << failing.known;
  const run::Realism realism =
      run::labelled_realism(*loaded.system, loaded.scenario, failing, known, options.events_max);
  EXPECT_TRUE(realism.realistic) << run::realism_text(realism);
}

// The tie family's case: the bug needs only the coarse clock, but its own seed fails only with
// both amplifiers (the gap moves the seed's later choices). Other seeds tell the two apart.
TEST(GitlabAmplifiers, RealismAttributesAmplifiersOverOtherSeedsWhenTheCallerNamesTheBug) {
  GitlabSystem system;
  proto::Scenario scenario = normalized_default();
  scenario.set_seed(7);
  scenario.mutable_gitlab()->set_rails_clock_granularity_ms(1000);
  scenario.mutable_gitlab()->set_rails_touch_gap_max_ms(2000);
  const auto own_seed = [](const proto::Scenario& s) {
    return s.seed() == 7 && s.gitlab().rails_clock_granularity_ms() == 1000 &&
           s.gitlab().rails_touch_gap_max_ms() == 2000;
  };
  const auto clock_bug = [](const proto::Scenario& s) {
    return s.seed() != 7 && s.gitlab().rails_clock_granularity_ms() == 1000;
  };
  const run::Realism attributed = run::check_realism(scenario, system, own_seed, clock_bug);
  EXPECT_FALSE(attributed.realistic);
  EXPECT_EQ(attributed.amplifiers, std::vector<std::string>{"gitlab.rails_clock_granularity_ms"});
  const run::Realism seed_only = run::check_realism(scenario, system, own_seed);
  EXPECT_EQ(seed_only.amplifiers.size(), 2u);  // Without the search both look needed.
}

// Another seed counts as the same bug through any file of its bug id (the R3 tie family is five
// files of one bug, r3-strict-tie): the realism search compares ids, not file names.
TEST(GitlabAmplifiers, RealismComparesBugIdsAcrossTheFilesOfOneBug) {
  register_gitlab_system();
  const std::string corpus = std::string(WSIM_SOURCE_DIR) + "/corpus/regressions";
  std::vector<run::KnownBug> known;
  std::string error;
  ASSERT_TRUE(run::known_bugs(corpus, "gitlab", known, error)) << error;
  std::string full_sync;
  std::string timestamp;
  for (const run::KnownBug& bug : known) {
    if (bug.name.find("tie-after-full-sync.textproto#0") != std::string::npos) full_sync = bug.name;
    if (bug.name.find("timestamp-tie.textproto#1") != std::string::npos) timestamp = bug.name;
  }
  ASSERT_FALSE(full_sync.empty());
  ASSERT_FALSE(timestamp.empty());
  EXPECT_EQ(run::bug_id_of(known, full_sync), "r3-strict-tie");
  EXPECT_EQ(run::bug_id_of(known, timestamp), "r3-strict-tie");
  EXPECT_EQ(run::bug_id_of(known, "not-a-file#0"), "not-a-file#0");
}

// A hunt's other failing runs of the same bug narrow a `needs`: an amplifier one of them kept at
// production is not needed (GitLab's tie-after-full-sync failed 4 of 1,500 runs with the 1 s clock
// and the 20 ms gap, yet its re-run attribution over 17 seeds said "needs clock, gap").
TEST(GitlabAmplifiers, NarrowedRealismDropsAnAmplifierAFailingRunKeptAtProduction) {
  GitlabSystem system;
  const run::Realism both{
      false, {"gitlab.rails_clock_granularity_ms", "gitlab.rails_touch_gap_max_ms"}, "both"};
  const run::Realism clock_only =
      run::narrowed_realism(both, system, {{"gitlab.rails_touch_gap_max_ms", 82}});
  EXPECT_FALSE(clock_only.realistic);
  EXPECT_EQ(clock_only.amplifiers, std::vector<std::string>{"gitlab.rails_clock_granularity_ms"});
  EXPECT_NE(clock_only.why.find("not gitlab.rails_touch_gap_max_ms: seed 82 failed"),
            std::string::npos)
      << clock_only.why;
  EXPECT_NE(clock_only.why.find("Rails stores timestamps in microseconds"), std::string::npos);
  EXPECT_EQ(clock_only.why.find("run milliseconds apart"), std::string::npos);  // The gap's reason.
  // What the re-runs said after the reasons stays.
  const run::Realism checked = run::check_realism(
      [] {
        proto::Scenario s = normalized_default();
        s.mutable_gitlab()->set_rails_clock_granularity_ms(1000);
        s.mutable_gitlab()->set_rails_touch_gap_max_ms(2000);
        return s;
      }(),
      system,
      [](const proto::Scenario& s) {
        return s.gitlab().rails_touch_gap_max_ms() == 2000 &&
               s.gitlab().rails_clock_granularity_ms() == 1000;
      },
      [](const proto::Scenario&) { return false; });
  ASSERT_EQ(checked.amplifiers.size(), 2u);
  const run::Realism narrowed =
      run::narrowed_realism(checked, system, {{"gitlab.rails_touch_gap_max_ms", 82}});
  EXPECT_NE(narrowed.why.find("the bug was not seen at production values"), std::string::npos)
      << narrowed.why;
  // No evidence, or evidence against every needed amplifier (no single run without all of them):
  // the verdict stays.
  EXPECT_EQ(run::narrowed_realism(both, system, {}).amplifiers, both.amplifiers);
  const run::Realism all_seen = run::narrowed_realism(
      both, system,
      {{"gitlab.rails_clock_granularity_ms", 3}, {"gitlab.rails_touch_gap_max_ms", 82}});
  EXPECT_EQ(all_seen.amplifiers, both.amplifiers);
  EXPECT_EQ(all_seen.why, "both");
  const run::Realism realistic{true, {}, "seed 1"};
  EXPECT_TRUE(
      run::narrowed_realism(realistic, system, {{"gitlab.rails_touch_gap_max_ms", 82}}).realistic);
}

// The hunt's tally keeps, per row, the smallest failing seed that had each amplifier at
// production (Finding::failed_without) and the smallest that amplified nothing: what the
// narrowing above and the row's `realistic` rest on.
TEST(GitlabAmplifiers, HuntTallyRecordsTheAmplifiersEachFailingRunKeptAtProduction) {
  GitlabSystem system;
  run::HuntOptions options;
  options.system = &system;
  options.scenario = normalized_default();
  options.amplifiers = run::drawable_amplifiers(options.scenario, system, {});
  options.keep_going = true;
  run::HuntResult result;
  run::HuntTally tally(options, result);
  std::map<std::string, std::uint64_t> expected;
  std::optional<std::uint64_t> expected_production;
  for (std::uint64_t seed = 100; seed > 36; --seed) {  // Larger seeds first: the minimum matters.
    const std::vector<run::Amplifier> amplified =
        run::amplified_in(run::hunt_run_scenario(options, seed, std::nullopt), system);
    for (const run::Amplifier& amplifier : system.amplifiers()) {
      const bool on = std::any_of(amplified.begin(), amplified.end(), [&](const run::Amplifier& a) {
        return a.name == amplifier.name;
      });
      if (!on) expected[amplifier.name] = seed;
    }
    if (amplified.empty()) expected_production = seed;
    tally.record_run(100 - seed, seed, std::nullopt,
                     {run::RunFinding{run::Verdict::kSafety, "gitlab.S14", "-"}});
  }
  tally.finish();
  ASSERT_EQ(result.findings.size(), 1u);
  const run::Finding& row = result.findings[0];
  EXPECT_EQ(row.seed, 37u);
  EXPECT_EQ(row.failed_without, expected);
  EXPECT_EQ(expected.size(), 2u);  // 64 draws: each amplifier was at production in some run,
  EXPECT_EQ(row.production_seed, expected_production);
  EXPECT_TRUE(expected_production.has_value());  // and some run amplified nothing.
}

// A bug whose corpus file reproduces it with every amplifier at production is realistic by that
// file, without re-runs (the positive case: GitpodFindings, B15). The GitLab files found with the
// old defaults pin them (1 s clock, 2 s gap) to keep their verdicts, so the Rails-timing bugs (the
// R3 tie, the A0 limbo) have no exemplar and their findings go through the re-runs. The two files
// of the 2026-11-29 triage need no Rails timing and run at production values
// (docs/evidence.md "Triage of 2026-11-29"): a3-inventory-only-record (kubectl deletes
// inventories) and a3-pre-r3-termination-stall (one lost response) are realistic by them, and the
// hunt's realism column says so (seed 567 of A3+R2 destroy_by_apply read "needs gap" before).
TEST(GitlabAmplifiers, OnlyTheTimingFreeGitlabBugsHaveAProductionExemplar) {
  register_gitlab_system();
  GitlabSystem system;
  const std::string corpus = std::string(WSIM_SOURCE_DIR) + "/corpus/regressions";
  std::vector<run::KnownBug> known;
  std::string error;
  ASSERT_TRUE(run::known_bugs(corpus, "gitlab", known, error)) << error;
  std::set<std::string> ids;
  for (const run::KnownBug& bug : known) ids.insert(run::bug_id_of(known, bug.name));
  EXPECT_TRUE(ids.count("r3-strict-tie"));
  EXPECT_TRUE(ids.count("gitlab-411205"));
  const std::set<std::string> with_exemplar = {"a3-inventory-only-record",
                                               "a3-pre-r3-termination-stall"};
  for (const std::string& id : with_exemplar) EXPECT_TRUE(ids.count(id)) << id;
  const std::map<std::string, std::string> exemplar_file = {
      {"a3-inventory-only-record", "shared-inventory-loss-partial-reapply"},
      {"a3-pre-r3-termination-stall", "a3-pre-r3-termination-stall"}};
  for (const std::string& id : ids) {
    const std::string exemplar = run::production_exemplar(system, known, id);
    if (with_exemplar.count(id) == 0) {
      EXPECT_EQ(exemplar, "") << id;
    } else {
      EXPECT_NE(exemplar.find(exemplar_file.at(id)), std::string::npos) << id << ": " << exemplar;
    }
  }
}

}  // namespace
}  // namespace wsim::gitlab
