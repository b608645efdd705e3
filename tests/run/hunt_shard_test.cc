// Sharded hunts (hunt.h: Shard), their summaries (hunt_summary.h), the merge (hunt_merge.h) and
// the JUnit report (hunt_junit.h): 4 shards merged equal the unsharded hunt on the same run
// budget; the merge refuses parts that are not the shards of one hunt; a malformed summary is an
// error naming the file and the field.
#include <filesystem>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/commands/commands.h"
#include "sim/search/hunt.h"
#include "sim/search/hunt_junit.h"
#include "sim/search/hunt_merge.h"
#include "sim/search/hunt_report.h"
#include "sim/search/hunt_summary.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kRuns = 120;

// A keep-going hunt of the toy's planted lost update (the canary) over kRuns runs, as a summary
// that went through its JSON form (what `wsim merge` reads).
HuntSummary hunt_summary(const Shard& shard, int jobs, const std::string& out) {
  LoadedScenario loaded = testing::scenario_from_text("toy { version: \"buggy\" }\n");
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.out_dir = out;
  options.runs = kRuns;
  options.shard = shard;
  options.jobs = jobs;
  options.keep_going = true;
  options.repro_command = "scripts/wsim run --system toy --version buggy";
  HuntSummary summary;
  summary.shard = shard;
  summary.runs_budget = kRuns;
  summary.targets.push_back(
      HuntTarget{"toy", "version=buggy", options.repro_command, hunt(options), {}});
  HuntSummary parsed;
  std::string error;
  EXPECT_TRUE(summary_from_json(summary_to_json(summary), "test.json", parsed, error)) << error;
  return parsed;
}

// The parts of a target the merge must reproduce exactly (bundle paths and seconds differ).
std::string comparable(const HuntSummary& summary) {
  std::ostringstream out;
  out << "exit " << summary.exit_code() << "\n";
  for (const HuntTarget& target : summary.targets) {
    const HuntResult& r = target.result;
    out << target.system << " " << target.versions << " runs " << r.runs << " failing "
        << r.failures << " complete_below " << r.complete_below << "\n";
    for (const Finding& f : r.findings) {
      out << "finding " << verdict_name(f.verdict) << " " << f.invariant << " seed " << f.seed
          << " label " << finding_label(f) << " count " << f.count << " object " << f.object
          << " signature " << f.signature << " bundle? " << !f.bundle.empty() << "\n";
    }
    for (const Probe& p : r.probes) out << "probe " << p.name << " " << p.hits << "\n";
  }
  return out.str();
}

TEST(HuntShardTest, FourShardsMergedEqualTheUnshardedHunt) {
  const HuntSummary whole = hunt_summary(Shard{}, 1, testing::scratch_dir("shard-whole"));
  ASSERT_FALSE(whole.targets[0].result.findings.empty()) << "the canary must be found";
  EXPECT_EQ(whole.targets[0].result.runs, kRuns);
  EXPECT_EQ(whole.targets[0].result.complete_below, kRuns);
  std::vector<HuntSummary> parts;
  std::vector<std::string> files;
  for (std::uint64_t i = 0; i < 4; ++i) {
    // Listed out of order, and each shard with two workers: neither may matter.
    const Shard shard{(i + 2) % 4, 4};
    parts.push_back(hunt_summary(shard, 2, testing::scratch_dir("shard-" + std::to_string(i))));
    files.push_back("shard" + std::to_string(shard.index) + ".json");
    EXPECT_EQ(parts.back().targets[0].result.runs, kRuns / 4);
  }
  HuntSummary merged;
  std::string error;
  ASSERT_TRUE(merge_summaries(parts, files, merged, error)) << error;
  EXPECT_EQ(merged.merged_shards, 4u);
  EXPECT_EQ(comparable(merged), comparable(whole));
  EXPECT_EQ(merged.exit_code(), kExitSafety);
}

TEST(HuntShardTest, ShardsRunDisjointSeedsCoveringTheBudget) {
  // complete_below of shard I/N with the whole budget run is the budget itself, and a shard's
  // first finding is at one of its own seeds (index mod N == I).
  for (std::uint64_t i = 0; i < 3; ++i) {
    const HuntSummary part =
        hunt_summary(Shard{i, 3}, 1, testing::scratch_dir("disjoint-" + std::to_string(i)));
    const HuntResult& result = part.targets[0].result;
    EXPECT_EQ(result.runs, kRuns / 3);
    EXPECT_EQ(result.complete_below, kRuns);
    for (const Finding& finding : result.findings) EXPECT_EQ(finding.seed % 3, i);
  }
}

TEST(HuntShardTest, ATimedShardReportsHowFarItsPrefixIsComplete) {
  // A time budget (here: the deadline after a few polls) stops a shard anywhere; every index of
  // its own below complete_below ran, and complete_below is one of its indices (or the first).
  LoadedScenario loaded = testing::scenario_from_text("toy { version: \"T1\" }\n");
  HuntOptions options;
  options.system = loaded.system;
  options.scenario = loaded.scenario;
  options.out_dir = testing::scratch_dir("shard-time");
  options.shard = Shard{1, 3};
  options.jobs = 2;
  int polls = 0;
  options.clock.deadline_reached = [&polls] { return ++polls > 3; };
  const HuntResult result = hunt(options);
  EXPECT_TRUE(result.deadline_reached);
  ASSERT_GE(result.runs, 1u);
  EXPECT_EQ(result.complete_below % 3, 1u);
  EXPECT_GE(result.runs, (result.complete_below - 1) / 3);  // Its prefix ran, maybe more.
}

TEST(HuntShardTest, MergeRefusesPartsOfDifferentHunts) {
  HuntSummary a;
  a.shard = Shard{0, 2};
  a.runs_budget = 10;
  HuntSummary b = a;
  b.shard = Shard{1, 2};
  HuntSummary merged;
  std::string error;
  EXPECT_FALSE(merge_summaries({a}, {"a.json"}, merged, error));
  EXPECT_THAT(error, HasSubstr("shard 1/2 is missing"));
  EXPECT_FALSE(merge_summaries({a, a}, {"a.json", "a2.json"}, merged, error));
  EXPECT_THAT(error, HasSubstr("a2.json: shard.index: shard 0/2 again (also a.json)"));
  b.runs_budget = 20;
  EXPECT_FALSE(merge_summaries({a, b}, {"a.json", "b.json"}, merged, error));
  EXPECT_THAT(error, HasSubstr("b.json: runs_budget: 20, but the first summary has 10"));
  b.runs_budget = 10;
  b.shard = Shard{1, 3};
  EXPECT_FALSE(merge_summaries({a, b}, {"a.json", "b.json"}, merged, error));
  EXPECT_THAT(error, HasSubstr("b.json: shard.count: 3"));
  b.shard = Shard{1, 2};
  EXPECT_TRUE(merge_summaries({b, a}, {"b.json", "a.json"}, merged, error)) << error;
  EXPECT_EQ(merged.exit_code(), kExitPass);
}

TEST(HuntShardTest, MalformedSummaryNamesFileAndField) {
  HuntSummary summary;
  std::string error;
  EXPECT_FALSE(summary_from_json("{", "bad.json", summary, error));
  EXPECT_THAT(error, HasSubstr("bad.json: not JSON"));
  HuntSummary good;
  good.targets.push_back(
      HuntTarget{"toy", "version=T1", "scripts/wsim run --system toy", HuntResult{}, {}});
  good.targets[0].result.findings.push_back(Finding{});
  good.targets[0].result.findings[0].verdict = Verdict::kSafety;
  std::string text = summary_to_json(good);
  ASSERT_TRUE(summary_from_json(text, "good.json", summary, error)) << error;
  const std::string runs_field = "\"runs\": 0,\n          \"signature\"";
  ASSERT_NE(text.find(runs_field), std::string::npos) << text;
  text.replace(text.find(runs_field), runs_field.size(), "\"runs\": \"x\",\n \"signature\"");
  EXPECT_FALSE(summary_from_json(text, "good.json", summary, error));
  EXPECT_THAT(error, HasSubstr("good.json: targets[0].findings[0].runs: wrong type"));
  good.targets[0].result.findings[0].seed = 7;
  good.targets[0].result.findings[0].production_seed = 3;  // Below the row's smallest seed.
  EXPECT_FALSE(summary_from_json(summary_to_json(good), "low.json", summary, error));
  EXPECT_THAT(error, HasSubstr("low.json: targets[0].findings[0].production_seed: must not be"));
}

TEST(HuntShardTest, JUnitHasATestCasePerVersionTupleAndAFailurePerFinding) {
  const HuntSummary whole = hunt_summary(Shard{}, 1, testing::scratch_dir("shard-junit"));
  const std::string xml = hunt_junit_xml(whole);
  EXPECT_THAT(xml, HasSubstr("<testcase classname=\"wsim.hunt.toy\" name=\"version=buggy\""));
  EXPECT_THAT(xml, HasSubstr("<failure type=\"SAFETY_VIOLATION\""));
  const Finding& first = whole.targets[0].result.findings.front();
  EXPECT_THAT(xml, HasSubstr("scripts/wsim run --system toy --version buggy --seed " +
                             std::to_string(first.seed)));
  EXPECT_THAT(xml, HasSubstr("scripts/wsim replay " + first.bundle));
  EXPECT_THAT(xml, HasSubstr("tests=\"1\" failures=\"" +
                             std::to_string(whole.targets[0].result.findings.size()) + "\""));
  EXPECT_EQ(xml_escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
}

// The command line: four `wsim hunt --shard I/4 --summary` runs and `wsim merge` exit and
// report as the unsharded hunt.
TEST(HuntShardTest, CommandLineShardsAndMerge) {
  const std::string dir = testing::scratch_dir("shard-cli");
  const std::string hunt = "hunt --system toy --version buggy --runs 80 --jobs 1 --keep-going ";
  std::string output;
  EXPECT_EQ(testing::run_wsim(dir, hunt + "--summary whole.json --junit whole.xml", &output),
            kExitSafety)
      << output;
  std::string shards;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "s" + std::to_string(i) + ".json";
    EXPECT_EQ(testing::run_wsim(dir,
                                hunt + "--shard " + std::to_string(i) + "/4 --summary " + name +
                                    " --out out" + std::to_string(i),
                                &output),
              kExitSafety)
        << output;
    shards += " " + name;
  }
  EXPECT_EQ(testing::run_wsim(dir, "merge" + shards + " --summary merged.json", &output),
            kExitSafety)
      << output;
  EXPECT_THAT(output, HasSubstr("toy (version=buggy): 80 runs in 4 shards, every seed below 80"));
  EXPECT_THAT(output, HasSubstr("SAFETY_VIOLATION    toy.S1"));
  HuntSummary whole;
  HuntSummary merged;
  std::string error;
  ASSERT_TRUE(read_summary_file(dir + "/whole.json", whole, error)) << error;
  ASSERT_TRUE(read_summary_file(dir + "/merged.json", merged, error)) << error;
  EXPECT_EQ(comparable(merged), comparable(whole));
  EXPECT_THAT(testing::read_text(dir + "/whole.xml"), HasSubstr("<failure"));
  EXPECT_EQ(testing::run_wsim(dir, "merge s0.json s1.json", &output), kExitUsage);
  EXPECT_THAT(output, HasSubstr("shard 2/4 is missing"));
  EXPECT_EQ(testing::run_wsim(dir, hunt + "--shard 4/4", &output), kExitUsage);
  EXPECT_THAT(output, HasSubstr("--shard 4/4: expected I/N with 0 <= I < N"));
}

// Going past the corpus's known bugs (gitpod's latest model meets many within a few runs): the
// merged shards keep each finding's label, signature and count as the unsharded hunt.
TEST(HuntShardTest, ShardsOfAHuntGoingPastKnownBugsMergeToTheWholeHunt) {
  const std::string dir = testing::scratch_dir("shard-known");
  const std::string hunt = "hunt --system gitpod --runs 10 --jobs 1 --keep-going --known '" +
                           std::string(WSIM_SOURCE_DIR) + "/corpus/regressions' ";
  std::string output;
  const int code = testing::run_wsim(dir, hunt + "--summary whole.json", &output);
  ASSERT_NE(code, kExitUsage) << output;
  std::string shards;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "s" + std::to_string(i) + ".json";
    testing::run_wsim(dir,
                      hunt + "--shard " + std::to_string(i) + "/4 --summary " + name +
                          " --out out" + std::to_string(i),
                      &output);
    shards += " " + name;
  }
  EXPECT_EQ(testing::run_wsim(dir, "merge" + shards + " --summary merged.json", &output), code)
      << output;
  HuntSummary whole;
  HuntSummary merged;
  std::string error;
  ASSERT_TRUE(read_summary_file(dir + "/whole.json", whole, error)) << error;
  ASSERT_TRUE(read_summary_file(dir + "/merged.json", merged, error)) << error;
  std::size_t known = 0;
  for (const Finding& f : whole.targets[0].result.findings) known += f.known.empty() ? 0 : 1;
  EXPECT_GE(known, 2u) << "gitpod's latest model meets known bugs within 10 runs";
  EXPECT_EQ(comparable(merged), comparable(whole));
}

// issue #30: two shards of one finding. A row labelled with a known bug is one bug: the verdict
// needing fewer amplifiers wins and the amplifiers seen at production keep their smallest seed. A
// NEW row may be several bugs: it keeps the verdict of its own smallest seed, even when the
// other shard's (another bug's, maybe) was realistic.
TEST(HuntShardTest, MergeKeepsTheRealismOfTheRowsOwnBug) {
  auto part = [](std::uint64_t index) {
    HuntSummary summary;
    summary.shard = Shard{index, 2};
    summary.runs_budget = 10;
    HuntResult result;
    result.unmasked = true;
    summary.targets.push_back(HuntTarget{"toy", "version=T1", "repro", result, {}});
    return summary;
  };
  auto finding = [](std::uint64_t seed, const std::string& known, std::optional<Realism> realism,
                    std::map<std::string, std::uint64_t> failed_without) {
    Finding f;
    f.seed = seed;
    f.count = 1;
    f.verdict = Verdict::kSafety;
    f.invariant = "toy.S1";
    f.labelled = true;
    f.known = known;
    f.realism = std::move(realism);
    f.failed_without = std::move(failed_without);
    return f;
  };
  HuntSummary a = part(0);
  HuntSummary b = part(1);
  a.targets[0].result.findings.push_back(
      finding(4, "k#0", Realism{false, {"x", "y"}, "both"}, {{"y", 9}}));
  b.targets[0].result.findings.push_back(
      finding(5, "k#0", Realism{false, {"x"}, "x"}, {{"y", 7}, {"x", 11}}));
  a.targets[0].result.findings.push_back(finding(3, "", Realism{false, {"x"}, "x"}, {}));
  b.targets[0].result.findings.push_back(finding(6, "", Realism{true, {}, "seed 6"}, {}));
  HuntSummary merged;
  std::string error;
  ASSERT_TRUE(merge_summaries({a, b}, {"a.json", "b.json"}, merged, error)) << error;
  ASSERT_EQ(merged.targets.size(), 1u);
  const std::vector<Finding>& rows = merged.targets[0].result.findings;
  ASSERT_EQ(rows.size(), 2u);
  for (const Finding& row : rows) {
    ASSERT_TRUE(row.realism.has_value());
    if (row.known == "k#0") {
      EXPECT_EQ(row.seed, 4u);
      EXPECT_EQ(row.realism->amplifiers, std::vector<std::string>{"x"});
      EXPECT_EQ(row.failed_without, (std::map<std::string, std::uint64_t>{{"x", 11}, {"y", 7}}));
    } else {
      EXPECT_EQ(row.seed, 3u);
      EXPECT_FALSE(row.realism->realistic);  // Seed 6's realistic verdict is not seed 3's.
    }
  }
  // The evidence survives the summary's JSON form; a seed below the row's is refused.
  HuntSummary parsed;
  ASSERT_TRUE(summary_from_json(summary_to_json(merged), "m.json", parsed, error)) << error;
  EXPECT_EQ(parsed.targets[0].result.findings[0].failed_without, rows[0].failed_without);
  merged.targets[0].result.findings[0].failed_without["x"] = 0;
  EXPECT_FALSE(summary_from_json(summary_to_json(merged), "m.json", parsed, error));
  EXPECT_THAT(error, HasSubstr("failed_without.x: must not be below first_seed"));
}

}  // namespace
}  // namespace wsim::run
