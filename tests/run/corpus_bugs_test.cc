// The corpus bugs as hunting targets (sim/triage/corpus_bugs.h): listing, FILE#N parsing with clear
// errors, the hunting scenario (script dropped, versions applied, admin events kept), and a hunt
// with until_invariant that goes past other findings and stops at the bug's invariant.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/all_systems/all_systems.h"
#include "sim/run/driver.h"
#include "sim/search/hunt.h"
#include "sim/triage/corpus_bugs.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;

class CorpusBugsTest : public ::testing::Test {
 protected:
  void SetUp() override { register_all_systems(); }
};

TEST_F(CorpusBugsTest, ListsEveryViolatingExpectationOfTheCorpus) {
  std::vector<CorpusBug> bugs;
  std::string error;
  ASSERT_TRUE(corpus_bugs("corpus/regressions", bugs, error)) << error;
  ASSERT_GE(bugs.size(), 30u);
  bool limbo = false;
  for (const CorpusBug& bug : bugs) {
    EXPECT_FALSE(bug.invariant.empty()) << bug.name;
    if (bug.name == "limbo-411205#0") {
      limbo = true;
      EXPECT_EQ(bug.invariant, "gitlab.L1");
      EXPECT_EQ(bug.when, "agent=A0a");
    }
    // A PASS expectation is never a bug: timestamp-tie#2 expects R1 with a 1 s clock to pass.
    EXPECT_NE(bug.name, "timestamp-tie#2");
    // A file without a `bug` field is its own bug; files with one id are one bug.
    if (bug.name == "breaker-pre20243#0") EXPECT_EQ(bug.bug, "breaker-pre20243");
    if (bug.name == "stop-during-rejection-window#0") EXPECT_EQ(bug.bug, "B3");
    if (bug.name == "stop-during-rejection-window-then-rejected-again#0") EXPECT_EQ(bug.bug, "B3");
  }
  EXPECT_TRUE(limbo);
}

TEST_F(CorpusBugsTest, ABugIdIsATokenAndTheErrorNamesItsLine) {
  const std::string dir = testing::scratch_dir("corpus-bug-id");
  const std::string path = dir + "/bad.textproto";
  std::ofstream(path) << "name: \"bad\"\nbug: \"B 3\"\nseed: 1\ngitlab { agent: \"A1\" }\n";
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(load_scenario_file(path, loaded, error)) << error;
  EXPECT_FALSE(validate_scenario(loaded, error));
  EXPECT_THAT(error, HasSubstr("bad.textproto:2"));
  EXPECT_THAT(error, HasSubstr("bug"));
  EXPECT_THAT(error, HasSubstr("not a bug id"));
}

// When the code under test changes what a corpus script does (a planted bug, a regression), a
// hunt with --known still runs: the bug that no longer reproduces is left out and named.
TEST_F(CorpusBugsTest, AKnownBugThatNoLongerReproducesIsSetAsideNotFatal) {
  const std::string dir = testing::scratch_dir("corpus-stale") + "/gitlab";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/stale.textproto")
      << "name: \"stale\" seed: 1 scripted_only: true fault_phase_ms: 60000\n"
         "gitlab { agent: \"A1\" rails: \"R1\" }\n"
         "events { at_ms: 1000 actor: \"user\" action: \"create\" target: \"ws-0\" }\n"
         "expect { verdict: LIVENESS_VIOLATION invariant: \"gitlab.L1\" }\n";
  std::vector<KnownBug> known;
  std::string error;
  EXPECT_FALSE(known_bugs(dir, "gitlab", known, error));
  EXPECT_THAT(error, HasSubstr("its script does not violate gitlab.L1"));
  std::vector<std::string> not_reproduced;
  error.clear();
  known.clear();
  ASSERT_TRUE(known_bugs(dir, "gitlab", known, error, &not_reproduced)) << error;
  EXPECT_TRUE(known.empty());
  ASSERT_EQ(not_reproduced.size(), 1u);
  EXPECT_THAT(not_reproduced[0], HasSubstr("stale.textproto expect #0"));
}

TEST_F(CorpusBugsTest, ParsesFileHashIndexAndRejectsBadSpecs) {
  CorpusBug bug;
  std::string error;
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto#1", bug, error))
      << error;
  EXPECT_EQ(bug.name, "limbo-411205#1");
  EXPECT_EQ(bug.when, "agent=A0b");
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto", bug, error));
  EXPECT_EQ(bug.expect_index, 0);

  EXPECT_FALSE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto#9", bug, error));
  EXPECT_THAT(error, HasSubstr("#9 does not exist"));
  EXPECT_FALSE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto#x", bug, error));
  EXPECT_THAT(error, HasSubstr("index of an expect block"));
  EXPECT_FALSE(parse_corpus_bug("corpus/regressions/gitlab/timestamp-tie.textproto#2", bug, error));
  EXPECT_THAT(error, HasSubstr("is a PASS"));
  EXPECT_FALSE(parse_corpus_bug("corpus/regressions/no-such-file.textproto#0", bug, error));
  EXPECT_THAT(error, HasSubstr("no-such-file.textproto"));
}

TEST_F(CorpusBugsTest, ScenarioDropsTheScriptAndAppliesTheVersions) {
  CorpusBug bug;
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto#1", bug, error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  EXPECT_FALSE(loaded.scenario.scripted_only());
  EXPECT_EQ(loaded.scenario.events_size(), 0);
  EXPECT_EQ(loaded.scenario.expect_size(), 0);
  EXPECT_EQ(loaded.scenario.gitlab().agent(), "A0b");
  EXPECT_EQ(loaded.hunted_invariant, "gitlab.L1");
  EXPECT_EQ(loaded.scenario.fault_phase_ms(), 20 * 60 * 1000);
  EXPECT_EQ(loaded.scenario.gitlab().full_interval_ms(), 10 * 60 * 1000);

  // The file's own timing wins over the short phases: timestamp-tie needs its 10 s Rails clock.
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/timestamp-tie.textproto#1", bug, error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  EXPECT_EQ(loaded.scenario.gitlab().rails_clock_granularity_ms(), 10'000);

  // An operator's upgrade stays: no random workload does it.
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitpod/upgrade-naive.textproto#2", bug, error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  ASSERT_EQ(loaded.scenario.events_size(), 1);
  EXPECT_EQ(loaded.scenario.events(0).actor(), "admin");
  EXPECT_EQ(loaded.scenario.gitpod().manager(), "mk2");
}

std::vector<std::string> switch_texts(const std::vector<FixSwitch>& switches) {
  std::vector<std::string> out;
  for (const FixSwitch& fix : switches) out.push_back(fix.text());
  return out;
}

TEST_F(CorpusBugsTest, FixSwitchesArePassBlocksAndMissingFixesThatFixTheScript) {
  CorpusBug bug;
  std::string error;
  std::vector<FixSwitch> switches;
  std::vector<FixSwitch> placebos;
  // The file's PASS blocks, in file order, as changes from the bug's own versions.
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto#0", bug, error));
  ASSERT_TRUE(fix_switches(bug, switches, error, &placebos)) << error;
  EXPECT_THAT(switch_texts(switches),
              ::testing::ElementsAre("agent=A1", "agent=A2", "agent=A3 rails=R3"));
  EXPECT_FALSE(switches[0].precondition);
  EXPECT_TRUE(placebos.empty());
  // A list of fixes the file leaves short: each missing fix alone; only the one that makes the
  // script pass is a switch, the others are placebos.
  switches.clear();
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitpod/status-conflict-pre16622.textproto#0",
                               bug, error));
  ASSERT_TRUE(fix_switches(bug, switches, error, &placebos)) << error;
  EXPECT_THAT(switch_texts(switches), ::testing::ElementsAre("fixes+16622"));
  EXPECT_THAT(switch_texts(placebos), ::testing::Contains("fixes+20243"));
  // A bug of the latest versions with no PASS block has none.
  switches.clear();
  placebos.clear();
  ASSERT_TRUE(parse_corpus_bug(
      "corpus/regressions/gitpod/stop-before-first-pod-scripted.textproto#0", bug, error));
  ASSERT_TRUE(fix_switches(bug, switches, error, &placebos)) << error;
  EXPECT_TRUE(switches.empty());
  EXPECT_TRUE(placebos.empty());
  // A PASS block that removes a precondition (B3 needs a stop inside the re-creation backoff).
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitpod/stop-during-rejection-window.textproto#0",
                               bug, error));
  ASSERT_TRUE(fix_switches(bug, switches, error, &placebos)) << error;
  ASSERT_THAT(switch_texts(switches), ::testing::ElementsAre("pod_recreation_backoff_ms=1"));
  EXPECT_TRUE(switches[0].precondition);  // A setting, not a version axis.
}

TEST_F(CorpusBugsTest, AFixSwitchAppliesOnlyFromTheBugsVersions) {
  CorpusBug bug;
  std::string error;
  LoadedScenario loaded;
  bool applied = false;
  const FixSwitch a1{{FixChange{"agent", "A1", false, "A0a"}}};
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto#0", bug, error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  ASSERT_TRUE(apply_fix_switch(loaded, a1, applied, error)) << error;
  EXPECT_TRUE(applied);
  EXPECT_EQ(loaded.scenario.gitlab().agent(), "A1");
  // Not from A0b (limbo-411205#1's versions).
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto#1", bug, error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  ASSERT_TRUE(apply_fix_switch(loaded, a1, applied, error)) << error;
  EXPECT_FALSE(applied);
  EXPECT_EQ(loaded.scenario.gitlab().agent(), "A0b");
  // A fix is added to a short list, not to the latest versions (every fix already).
  const FixSwitch f16622{{FixChange{"fixes", "16622", true, ""}}};
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitpod/status-conflict-pre16622.textproto#0",
                               bug, error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  ASSERT_TRUE(apply_fix_switch(loaded, f16622, applied, error)) << error;
  EXPECT_TRUE(applied);
  EXPECT_THAT(loaded.scenario.gitpod().fixes(), ::testing::Contains("16622"));
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitpod/podstarts-patch-failure.textproto#0", bug,
                               error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  ASSERT_TRUE(apply_fix_switch(loaded, f16622, applied, error)) << error;
  EXPECT_FALSE(applied);
}

// A setting (not a version axis) is switched from whatever value the run has: the window
// swallowed-user-action needs (its script: 5 s) is closed on a tie hunt's default 2 s too.
TEST_F(CorpusBugsTest, ASettingSwitchAppliesFromAnyValue) {
  CorpusBug swallowed;
  CorpusBug tie;
  std::string error;
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/swallowed-user-action.textproto#1",
                               swallowed, error));
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/tie-after-agent-restart.textproto#0", tie,
                               error));
  std::vector<FixSwitch> switches;
  ASSERT_TRUE(fix_switches(swallowed, switches, error)) << error;
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0].text(), "rails_touch_gap_max_ms=1");
  ASSERT_TRUE(switches[0].precondition);
  LoadedScenario loaded;
  ASSERT_TRUE(corpus_bug_scenario(tie, loaded, error)) << error;
  ASSERT_EQ(loaded.scenario.gitlab().rails_touch_gap_max_ms(), 2000);
  bool applied = false;
  ASSERT_TRUE(apply_fix_switch(loaded, switches[0], applied, error)) << error;
  EXPECT_TRUE(applied);
  EXPECT_EQ(loaded.scenario.gitlab().rails_touch_gap_max_ms(), 1);
  // A version switch still applies only from the bug's own version.
  FixChange version{"agent", "A1", false, "A0a"};
  EXPECT_FALSE(version.setting);
}

// A system's counterfactual code fix (System::counterfactual_fix_fields) is no precondition
// switch, and it comes before the version switches whatever the file's order: timestamp-tie
// lists its R3 `>=` switch last.
TEST_F(CorpusBugsTest, ACounterfactualCodeFixIsTriedFirstAndIsEvidenceBothWays) {
  CorpusBug tie;
  std::string error;
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/timestamp-tie.textproto#3", tie, error));
  std::vector<FixSwitch> switches;
  ASSERT_TRUE(fix_switches(tie, switches, error)) << error;
  ASSERT_GE(switches.size(), 2u);
  EXPECT_EQ(switches[0].text(), "rails_desired_finder_inclusive=true");
  EXPECT_FALSE(switches[0].precondition);
  EXPECT_EQ(switches[1].text(), "rails=R1");
}

TEST_F(CorpusBugsTest, ASwitchThatFixesBothScriptsDoesNotTellTheBugsApart) {
  CorpusBug plis;
  CorpusBug b2;
  std::string error;
  ASSERT_TRUE(
      parse_corpus_bug("corpus/regressions/gitpod/plis-conflict-storm.textproto#0", plis, error));
  ASSERT_TRUE(
      parse_corpus_bug("corpus/regressions/gitpod/podstarts-patch-failure.textproto#0", b2, error));
  bool spares = true;
  // conflict-storm's switch (the mk2 manager) also fixes the other mk1-plis loss.
  const FixSwitch mk2{{FixChange{"manager", "mk2", false, "mk1-plis"}}};
  ASSERT_TRUE(fix_spares(plis, mk2, spares, error)) << error;
  EXPECT_FALSE(spares);
  // B1's fix leaves B2 (whose script runs with every fix) violating.
  const FixSwitch f16622{{FixChange{"fixes", "16622", true, ""}}};
  ASSERT_TRUE(fix_spares(b2, f16622, spares, error)) << error;
  EXPECT_TRUE(spares);
}

// B1 (status-conflict-pre16622) is pinned on mk2 without 16622, which its own script proves to be
// its fix: on versions with 16622 (the latest mk2) it is no candidate label, as if its file had
// a PASS block there; on its own versions it is, and on an mk1 era (its file says nothing) too.
TEST_F(CorpusBugsTest, ABugIsNoCandidateWhereTheFixItsFileLacksIsOn) {
  std::vector<KnownBug> gitpod;
  std::string error;
  ASSERT_TRUE(known_bugs("corpus/regressions", "gitpod", gitpod, error)) << error;
  const std::string b1 = "corpus/regressions/gitpod/status-conflict-pre16622.textproto#0";
  const auto it = std::find_if(gitpod.begin(), gitpod.end(),
                               [&](const KnownBug& bug) { return bug.name == b1; });
  ASSERT_NE(it, gitpod.end());
  EXPECT_THAT(it->fixed_by["fixes"], ::testing::ElementsAre("16622"));
  auto candidate = [&](const std::string& config, bool by_fixes = true) {
    LoadedScenario loaded;
    EXPECT_TRUE(parse_scenario("name: \"v\" seed: 1 gitpod { " + config + " }", "v.textproto",
                               loaded, error))
        << error;
    EXPECT_TRUE(validate_scenario(loaded, error)) << error;
    const std::vector<KnownBug> applicable =
        applicable_known_bugs(gitpod, loaded.scenario, *loaded.system, by_fixes);
    return std::any_of(applicable.begin(), applicable.end(),
                       [&](const KnownBug& bug) { return bug.name == b1; });
  };
  EXPECT_FALSE(candidate("manager: \"mk2\""));
  EXPECT_FALSE(candidate("manager: \"mk2\" fixes: [\"16622\", \"16997\"]"));
  EXPECT_TRUE(candidate("manager: \"mk2\" fixes: [\"16997\", \"17599\", \"19411\"]"));
  EXPECT_TRUE(candidate("manager: \"mk1-plis\""));
  EXPECT_TRUE(candidate("manager: \"mk2\"", false));
}

TEST_F(CorpusBugsTest, ACounterfactualIsGonePersistingOrMasked) {
  RunResult result;
  EXPECT_EQ(counterfactual_outcome(result, "gitpod.L5"), Counterfactual::kGone);
  result.verdict = Verdict::kLiveness;
  result.violation = Violation{"gitpod.L2", "ws-1", "stuck", {}};
  result.liveness = {*result.violation, Violation{"gitpod.L5", "ws-2", "stuck", {}}};
  EXPECT_EQ(counterfactual_outcome(result, "gitpod.L5"), Counterfactual::kPersists);
  EXPECT_EQ(counterfactual_outcome(result, "gitpod.L4"), Counterfactual::kGone);
  result.verdict = Verdict::kSafety;
  result.violation = Violation{"gitpod.S5", "ws-1", "pod", {}};
  result.liveness.clear();
  EXPECT_EQ(counterfactual_outcome(result, "gitpod.L5"), Counterfactual::kMasked);
  EXPECT_EQ(counterfactual_outcome(result, "gitpod.S5"), Counterfactual::kPersists);
}

// With the instance's mechanism, only a violation with the same template persists; another
// message of the same invariant is another violation the switch led to: no evidence.
TEST_F(CorpusBugsTest, ACounterfactualPersistsOnlyWithTheInstancesMechanism) {
  RunResult result;
  result.verdict = Verdict::kSafety;
  result.violation = Violation{"gitlab.S14",
                               "ws-0",
                               "desired Stopped set at 21500 ms was not delivered "
                               "(desired_state_updated_at before responded_to_agent_at)",
                               {}};
  const std::string before = normalize_text(result.violation->message, "ws-0");
  const std::string equal = normalize_text(
      "desired Stopped set at 1000 ms was not delivered "
      "(desired_state_updated_at equal to responded_to_agent_at)",
      "ws-0");
  EXPECT_EQ(counterfactual_outcome(result, "gitlab.S14", before), Counterfactual::kPersists);
  EXPECT_EQ(counterfactual_outcome(result, "gitlab.S14", equal), Counterfactual::kChanged);
  EXPECT_EQ(counterfactual_outcome(result, "gitlab.S14"), Counterfactual::kPersists);
  EXPECT_EQ(counterfactual_name(Counterfactual::kChanged), "changed");
}

// A one-job hunt of `bug`'s scenario until its invariant, at most `runs` runs.
HuntOptions hunt_until_invariant(const LoadedScenario& loaded, const CorpusBug& bug,
                                 std::uint64_t runs, const std::string& scratch) {
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.runs = runs;
  options.jobs = 1;
  options.until_invariant = bug.invariant;
  options.out_dir = testing::scratch_dir(scratch);
  return options;
}

TEST_F(CorpusBugsTest, HuntUntilTheBugsInvariantFindsTheLimbo) {
  CorpusBug bug;
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(parse_corpus_bug("corpus/regressions/gitlab/limbo-411205.textproto#0", bug, error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  const HuntResult result = hunt(hunt_until_invariant(loaded, bug, 200, "corpus-bugs"));
  ASSERT_FALSE(result.findings.empty()) << "the limbo was not found in 200 runs";
  EXPECT_EQ(result.findings.back().invariant, "gitlab.L1");
  // It stopped at the bug: fewer runs than the budget.
  EXPECT_LT(result.runs, 200u);
}

TEST_F(CorpusBugsTest, LabelsNamingABugAreTheNamesOfItsBugId) {
  CorpusBug hunted;
  hunted.bug = "B5";
  std::vector<KnownBug> known(3);
  known[0].name = "a.textproto#0";
  known[0].bug = "B5";
  known[1].name = "b.textproto#0";
  known[1].bug = "N5";
  known[2].name = "c.textproto#1";
  known[2].bug = "B5";
  EXPECT_THAT(labels_naming_bug(hunted, known),
              ::testing::ElementsAre("a.textproto#0", "c.textproto#1"));
  hunted.bug = "B12";
  EXPECT_TRUE(labels_naming_bug(hunted, known).empty());
}

// --until-label: the hunt goes past failures of the invariant that carry another label (or NEW)
// and stops only at one labelled with the hunted bug.
TEST_F(CorpusBugsTest, HuntUntilTheBugsLabelStopsOnlyAtThatLabel) {
  const std::string spec = "corpus/regressions/gitlab/limbo-411205.textproto#0";
  CorpusBug bug;
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(parse_corpus_bug(spec, bug, error));
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  std::vector<KnownBug> all;
  ASSERT_TRUE(known_bugs("corpus/regressions", "gitlab", all, error)) << error;
  const std::vector<KnownBug> known = applicable_known_bugs(all, loaded.scenario, *loaded.system);
  HuntOptions options = hunt_until_invariant(loaded, bug, 300, "corpus-bugs-label");
  options.known = &known;
  options.unmasked = true;
  options.until_labels = labels_naming_bug(bug, known);
  ASSERT_FALSE(options.until_labels.empty());
  const HuntResult found = hunt(options);
  ASSERT_FALSE(found.findings.empty());
  EXPECT_LT(found.runs, 300u) << "the limbo's own label was not found in 300 runs";
  const std::vector<std::string> names = options.until_labels;
  const auto labelled_limbo = [&](const Finding& f) {
    return f.invariant == "gitlab.L1" &&
           std::find(names.begin(), names.end(), f.known) != names.end();
  };
  EXPECT_TRUE(std::any_of(found.findings.begin(), found.findings.end(), labelled_limbo));
  EXPECT_THAT(names, ::testing::Contains(HasSubstr("limbo-411205.textproto#0")));
  // A label no finding can carry: the hunt never stops early.
  options.until_labels = {"no-such-file.textproto#0"};
  options.runs = 40;
  const HuntResult never = hunt(options);
  EXPECT_EQ(never.runs, 40u);
}

}  // namespace
}  // namespace wsim::run
