// Hunting with forked worker processes: run budgets, stopping at the first failure, keep-going
// de-duplication, worker crashes reported with their seed, the time budget through the clock
// callback, probe coverage.
#include "sim/search/hunt.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/run/driver.h"
#include "sim/run/signature.h"
#include "sim/search/hunt_report.h"
#include "sim/search/hunt_worker.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

HuntOptions options_for(const std::string& text, const std::string& out) {
  LoadedScenario loaded = testing::scenario_from_text(text);
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.out_dir = out;
  options.repro_command = "scripts/wsim run --system selftest";
  return options;
}

TEST(HuntTest, RunBudgetWithoutFailures) {
  HuntOptions options = options_for("selftest { }\n", testing::scratch_dir("hunt-pass"));
  options.runs = 30;
  options.jobs = 3;
  const HuntResult result = hunt(options);
  EXPECT_EQ(result.runs, 30u);
  EXPECT_EQ(result.failures, 0u);
  EXPECT_TRUE(result.findings.empty());
  EXPECT_EQ(result.exit_code(), kExitPass);
  std::map<std::string, std::uint64_t> hits;
  for (const Probe& probe : result.probes) hits[probe.name] = probe.hits;
  ASSERT_EQ(hits.count("selftest.never"), 1u);
  EXPECT_EQ(hits["selftest.never"], 0u);
  EXPECT_GT(hits["selftest.glitch"], 0u);
  const std::string coverage = render_probe_coverage(result.probes);
  EXPECT_THAT(coverage, HasSubstr("probes: 1 of 2 reached"));
  EXPECT_THAT(coverage, HasSubstr("never            0  selftest.never"));
}

TEST(HuntTest, StopsAtTheFirstFailureAndWritesItsBundle) {
  const std::string out = testing::scratch_dir("hunt-stop");
  HuntOptions options = options_for("selftest { version: \"unsafe\" }\n", out);
  options.runs = 1'000'000;  // Far more than can run before the stop (every run fails at once).
  options.jobs = 2;
  std::ostringstream log;
  options.log = &log;
  const HuntResult result = hunt(options);
  ASSERT_FALSE(result.findings.empty());
  EXPECT_LT(result.runs, 1'000'000u);
  const Finding& finding = result.findings.front();
  EXPECT_EQ(finding.verdict, Verdict::kSafety);
  EXPECT_EQ(finding.invariant, "selftest.S1");
  EXPECT_EQ(result.exit_code(), kExitSafety);
  ASSERT_FALSE(finding.bundle.empty());
  EXPECT_TRUE(fs::exists(finding.bundle + "/choices.bin"));
  // The re-run printed its banner, verdict and the repro commands.
  EXPECT_THAT(log.str(), HasSubstr("SEED=" + std::to_string(finding.seed)));
  EXPECT_THAT(log.str(), HasSubstr("scripts/wsim replay " + finding.bundle));
  EXPECT_THAT(log.str(), HasSubstr("scripts/wsim run --system selftest --seed " +
                                   std::to_string(finding.seed)));
}

TEST(HuntTest, KeepGoingRecordsEveryFailureOnceBundled) {
  const std::string out = testing::scratch_dir("hunt-keep-going");
  HuntOptions options = options_for("selftest { version: \"unsafe\" }\n", out);
  options.runs = 20;
  options.jobs = 2;
  options.keep_going = true;
  const HuntResult result = hunt(options);
  EXPECT_EQ(result.runs, 20u);
  EXPECT_EQ(result.failures, 20u);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].count, 20u);
  EXPECT_LT(result.findings[0].seed, 2u);  // The first result of either worker.
  std::size_t bundles = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    (void)entry;
    ++bundles;
  }
  EXPECT_EQ(bundles, 1u);
}

TEST(HuntTest, AWorkerCrashIsReportedWithItsSeed) {
  HuntOptions options =
      options_for("selftest { version: \"crash\" }\n", testing::scratch_dir("hunt-crash"));
  options.runs = 10;
  options.jobs = 1;
  options.seed_start = 40;
  std::ostringstream log;
  options.log = &log;
  const HuntResult result = hunt(options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].verdict, Verdict::kHarnessError);
  EXPECT_EQ(result.findings[0].invariant, "crash");
  EXPECT_EQ(result.findings[0].seed, 40u);
  EXPECT_THAT(result.findings[0].message, HasSubstr("signal 6"));
  EXPECT_EQ(result.exit_code(), kExitUsage);
  EXPECT_THAT(log.str(), HasSubstr("HARNESS CRASH at seed 40"));
  EXPECT_THAT(log.str(), HasSubstr("scripts/wsim run --system selftest --seed 40"));
}

TEST(HuntTest, KeepGoingPastCrashesRespawnsWorkers) {
  HuntOptions options =
      options_for("selftest { version: \"crash\" }\n", testing::scratch_dir("hunt-crashes"));
  options.runs = 4;
  options.jobs = 2;
  options.keep_going = true;
  const HuntResult result = hunt(options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].count, 4u);  // Every seed crashed, and each was tried.
}

TEST(HuntTest, TimeBudgetComesFromTheClockCallback) {
  HuntOptions options = options_for("selftest { }\n", testing::scratch_dir("hunt-time"));
  int polls = 0;
  options.clock.deadline_reached = [&polls] { return ++polls > 5; };
  const HuntResult result = hunt(options);
  EXPECT_TRUE(result.deadline_reached);
  EXPECT_GE(result.runs, 1u);
  EXPECT_TRUE(result.findings.empty());
}

TEST(HuntTest, CtrlCStopsTheHuntWithoutCrashReports) {
  HuntOptions options = options_for("selftest { }\n", testing::scratch_dir("hunt-interrupt"));
  options.jobs = 2;
  int polls = 0;
  // Ctrl-C (SIGINT to the parent) on the third poll; no budget otherwise.
  options.clock.deadline_reached = [&polls] {
    if (++polls == 3) std::raise(SIGINT);
    return false;
  };
  const HuntResult result = hunt(options);
  EXPECT_TRUE(result.interrupted);
  EXPECT_FALSE(result.deadline_reached);
  EXPECT_TRUE(result.findings.empty());  // Stopped workers are not crashes.
  EXPECT_GE(result.runs, 1u);
}

// One run with two findings (the known S1 it went past, then S2) is re-run once for both, and
// both name its one bundle: a 1,000-workspace run used to be re-run, and its bundle rewritten,
// once per finding.
TEST(HuntTest, FindingsOfOneRunShareOneRerunAndItsBundle) {
  const std::string out = testing::scratch_dir("hunt-one-rerun");
  HuntOptions options = options_for(
      "selftest { version: \"twice\" violate_after_ms: 10000 }\nfault_phase_ms: 60000\n", out);
  RunOptions first_options;
  first_options.keep_trace = true;
  const RunResult first = execute_run(*options.system, options.scenario, first_options);
  ASSERT_TRUE(first.violation && first.signature);
  ASSERT_EQ(first.violation->invariant_id, "selftest.S1");
  const std::vector<KnownBug> known = {KnownBug{"s1.textproto#0", *first.signature}};
  options.known = &known;
  options.unmasked = true;
  options.keep_going = true;
  options.runs = 1;
  options.jobs = 1;
  std::ostringstream log;
  options.log = &log;
  const HuntResult result = hunt(options);
  ASSERT_EQ(result.findings.size(), 2u);
  EXPECT_EQ(result.findings[0].invariant, "selftest.S1");
  EXPECT_EQ(result.findings[0].known, "s1.textproto#0");
  EXPECT_EQ(result.findings[1].invariant, "selftest.S2");
  EXPECT_FALSE(result.findings[0].bundle.empty());
  EXPECT_EQ(result.findings[0].bundle, result.findings[1].bundle);
  std::size_t reruns = 0;  // Each re-run prints its banner, "SEED=<seed>", on the log.
  for (std::size_t at = log.str().find("SEED="); at != std::string::npos;
       at = log.str().find("SEED=", at + 1)) {
    ++reruns;
  }
  EXPECT_EQ(reruns, 1u);
}

// Without verbose, a hunt that goes past known bugs prints no re-run for a finding labelled
// known (its table row says it all), and the whole re-run, once, for a NEW one of the same run.
TEST(HuntTest, KnownFindingsAreNotRetoldUnlessVerbose) {
  const std::string out = testing::scratch_dir("hunt-brief");
  HuntOptions options = options_for(
      "selftest { version: \"twice\" violate_after_ms: 10000 }\nfault_phase_ms: 60000\n", out);
  RunOptions first_options;
  first_options.keep_trace = true;
  const RunResult first = execute_run(*options.system, options.scenario, first_options);
  ASSERT_TRUE(first.violation && first.signature);
  std::vector<KnownBug> known = {KnownBug{"s1.textproto#0", *first.signature}};
  options.known = &known;
  options.unmasked = true;
  options.keep_going = true;
  options.runs = 1;
  options.jobs = 1;
  options.verbose = false;
  const auto banners = [](const std::string& text) {
    std::size_t count = 0;
    for (std::size_t at = text.find("SEED="); at != std::string::npos;
         at = text.find("SEED=", at + 1)) {
      ++count;
    }
    return count;
  };
  std::ostringstream log;
  options.log = &log;
  const HuntResult one_new = hunt(options);
  ASSERT_EQ(one_new.findings.size(), 2u);
  ASSERT_EQ(one_new.findings[1].known, "");  // selftest.S2 is NEW: told in full, once.
  EXPECT_EQ(banners(log.str()), 1u);
  EXPECT_THAT(log.str(), HasSubstr("reproduce with:"));
  ASSERT_TRUE(one_new.findings[1].labelled);

  // S2 known too: nothing is retold (the verbose hunt, as before, retells the run once).
  RunOptions past_s1 = first_options;
  past_s1.known = &known;
  past_s1.go_past_known = true;
  const RunResult second = execute_run(*options.system, options.scenario, past_s1);
  ASSERT_TRUE(second.violation && second.signature);
  ASSERT_EQ(second.violation->invariant_id, "selftest.S2");
  known.push_back(KnownBug{"s2.textproto#0", *second.signature});
  std::ostringstream quiet;
  options.log = &quiet;
  const HuntResult all_known = hunt(options);
  ASSERT_EQ(all_known.findings.size(), 2u);
  EXPECT_EQ(all_known.findings[1].known, "s2.textproto#0");
  EXPECT_EQ(banners(quiet.str()), 0u) << quiet.str();
  EXPECT_FALSE(all_known.findings[0].bundle.empty());  // Bundles are still written.
  std::ostringstream loud;
  options.log = &loud;
  options.verbose = true;
  hunt(options);
  EXPECT_EQ(banners(loud.str()), 1u);
}

// What a worker wrote to its pipe until it exited (the child runs worker_main).
std::vector<std::string> worker_lines(const HuntOptions& options) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    worker_main(options, fds[1], 0, 1);
  }
  ::close(fds[1]);
  std::string bytes;
  char chunk[4096];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;) bytes.append(chunk, n);
  ::close(fds[0]);
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::vector<std::string> lines;
  std::istringstream in(bytes);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A worker killed while a long run is in flight (the stop's grace period) must not take the
// probes of its finished runs with it: each run's probe hits precede its R line.
TEST(HuntTest, AWorkerSendsEachRunsProbesWithTheRun) {
  HuntOptions options = options_for("selftest { }\n", testing::scratch_dir("hunt-worker-lines"));
  options.runs = 12;
  const std::vector<std::string> lines = worker_lines(options);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "E");
  std::size_t runs = 0;
  std::size_t glitch_hits = 0;
  std::size_t pending_probe_lines = 0;
  for (const std::string& line : lines) {
    if (line.rfind("P ", 0) == 0) {
      ++pending_probe_lines;
      EXPECT_THAT(line, HasSubstr("selftest.glitch"));  // Only reached probes are sent.
      glitch_hits += std::stoul(line.substr(2));
    } else if (line.rfind("R ", 0) == 0) {
      ++runs;
      pending_probe_lines = 0;
    }
  }
  EXPECT_EQ(runs, 12u);
  EXPECT_GT(glitch_hits, 0u);          // Some run of the twelve reached the glitch probe ...
  EXPECT_EQ(pending_probe_lines, 0u);  // ... and no probe line waits for the worker's end.
}

// A row labelled with a known bug is that bug: any of its production-values runs is evidence. A
// NEW or unlabelled row holds every failure of one invariant, possibly several bugs: another
// seed's production run is no evidence for the row's own seed (issue #30).
TEST(HuntTest, OnlyTheRowsOwnSeedMakesANewRowRealistic) {
  Finding row;
  row.verdict = Verdict::kSafety;
  row.invariant = "S9";
  row.seed = 199;
  row.production_seed = 256;
  row.labelled = true;  // NEW
  EXPECT_EQ(own_production_seed(row), std::nullopt);
  EXPECT_EQ(realism_rank(row), 1);  // Not checked, not realistic.
  row.labelled = false;             // An unlabelled hunt's row: the same.
  EXPECT_EQ(own_production_seed(row), std::nullopt);
  row.production_seed = 199;  // The row's own seed ran at production values.
  EXPECT_EQ(own_production_seed(row), std::optional<std::uint64_t>(199));
  EXPECT_EQ(realism_rank(row), 0);
  row.labelled = true;
  row.known = "S9-failed-start-then-restart";
  row.production_seed = 256;  // A known bug's row: any of its production seeds.
  EXPECT_EQ(own_production_seed(row), std::optional<std::uint64_t>(256));
  EXPECT_EQ(realism_rank(row), 0);
}

// The findings table tells a `needs` and a NEW finding's realism in full; a known bug's
// `realistic` only in its row (its why is in the summary JSON and explain), unless verbose
// (issue #31 item 6: the main job's output stays short when nothing is NEW).
TEST(HuntTest, FindingsTableTellsTheWhyOfNeedsAndNewOnly) {
  HuntResult result;
  auto row = [](std::uint64_t seed, const std::string& known, Realism realism) {
    Finding f;
    f.seed = seed;
    f.verdict = Verdict::kSafety;
    f.invariant = "S" + std::to_string(seed);
    f.labelled = true;
    f.known = known;
    f.realism = std::move(realism);
    return f;
  };
  result.findings.push_back(row(1, "a#0", Realism{true, {}, "seen at production (seed 1)"}));
  result.findings.push_back(row(2, "b#0", Realism{false, {"amp"}, "amp is rare"}));
  result.findings.push_back(row(3, "", Realism{true, {}, "seed 3 fails at production"}));
  std::ostringstream brief;
  print_findings(brief, result, false);
  EXPECT_THAT(brief.str(), Not(HasSubstr("realism of known: a#0")));
  EXPECT_THAT(brief.str(), HasSubstr("realism of known: b#0 S2: needs amp (amp is rare)"));
  EXPECT_THAT(brief.str(), HasSubstr("realism of NEW S3: realistic (seed 3 fails at production)"));
  std::ostringstream verbose;
  print_findings(verbose, result, true);
  EXPECT_THAT(verbose.str(), HasSubstr("realism of known: a#0 S1: realistic"));
}

// The main job prints a known bug as one line however many kinds (invariant, label) it broke,
// and a NEW finding in full (issue #31 item 6: <= 80 lines when nothing is NEW).
TEST(HuntTest, FindingsTableFoldsTheKnownKindsOfABugIntoOneLine) {
  auto row = [](std::uint64_t seed, const std::string& invariant, const std::string& known,
                std::uint64_t count) {
    Finding f;
    f.seed = seed;
    f.verdict = Verdict::kSafety;
    f.invariant = invariant;
    f.labelled = true;
    f.known = known;
    f.count = count;
    f.bundle = "out/s" + std::to_string(seed);
    return f;
  };
  HuntResult result;
  result.findings.push_back(row(4, "S4", "dir/a.textproto#0", 10));
  result.findings.push_back(row(2, "S5", "dir/b.textproto#0", 7));
  result.findings.push_back(row(9, "S4", "dir/b.textproto#0", 1));
  result.findings.push_back(row(5, "S9", "", 3));  // NEW
  result.findings[1].realism = Realism{false, {"amp"}, "amp is rare"};
  result.findings[2].realism = Realism{false, {"amp"}, "amp is rare (seed 9)"};
  std::vector<KnownBug> known(2);
  known[0].name = "dir/a.textproto#0";
  known[0].bug = "B7";
  known[1].name = "dir/b.textproto#0";
  known[1].bug = "B7";
  std::ostringstream brief;
  print_findings(brief, result, false, &known);
  const std::string text = brief.str();
  // One line for B7: 18 violations, first seed 2, both invariants, the bundle of seed 2.
  EXPECT_THAT(text, HasSubstr("B7"));
  EXPECT_THAT(text, ::testing::ContainsRegex("B7 +18 +2 +S4, S5 +needs amp +out/s2"));
  EXPECT_THAT(text, Not(HasSubstr("dir/a.textproto#0")));
  EXPECT_THAT(text, HasSubstr("NEW"));
  EXPECT_THAT(text, ::testing::ContainsRegex("SAFETY_VIOLATION +S9 +3 +5 +NEW"));
  // The why of B7's `needs`, once (that of its first row; the second cites another seed).
  const std::string why = "realism of known bug B7: needs amp (amp is rare)";
  ASSERT_THAT(text, HasSubstr(why));
  EXPECT_EQ(text.find("realism of known bug B7"), text.rfind("realism of known bug B7"));
  // --verbose: every kind in full.
  std::ostringstream verbose;
  print_findings(verbose, result, true, &known);
  EXPECT_THAT(verbose.str(), HasSubstr("known: dir/a.textproto#0"));
  EXPECT_THAT(verbose.str(), HasSubstr("known: dir/b.textproto#0"));
  EXPECT_THAT(verbose.str(), Not(HasSubstr("known bug")));
}

}  // namespace
}  // namespace wsim::run
