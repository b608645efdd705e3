// The `wsim` binary end to end: exit codes (0 pass, 1 usage/harness, 2 safety, 3 liveness,
// 4 nondeterminism, 5 expectation not met), the first lines (seed, swarm), repro commands,
// expectations, replay, list, fingerprint.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_wsim;
using ::testing::StartsWith;

TEST(CliTest, ListShowsSystemsInvariantsFaultsAndProbes) {
  const std::string dir = testing::scratch_dir("cli-list");
  std::string output;
  ASSERT_EQ(run_wsim(dir, "list", &output), 0) << output;
  EXPECT_THAT(output, HasSubstr("toy — "));
  EXPECT_THAT(output, HasSubstr("--version         buggy, T1 (latest)"));
  EXPECT_THAT(output, HasSubstr("toy.S1       safety    a counter"));
  EXPECT_THAT(output, HasSubstr("toy.L1       liveness"));
  EXPECT_THAT(output, HasSubstr("kubectl    delete_namespace"));
  EXPECT_THAT(output, HasSubstr("toy.actor.crash"));
  EXPECT_THAT(output, HasSubstr("kube.api.conflict"));
  EXPECT_THAT(output, HasSubstr("toy.conflict_retry"));
  // Provenance tags per version and variant (issue #10 item 7, docs/fidelity.md).
  EXPECT_THAT(output, HasSubstr("A1                  @9743dcf6"));
  EXPECT_THAT(output, HasSubstr("A3 (latest)         [reconstructed] seed-001 plan"));
  EXPECT_THAT(output, HasSubstr("inventory_first     [invented] naive"));
  EXPECT_THAT(output, HasSubstr("mk2 (latest)        ws-manager-mk2 @4f45d02eac95"));
}

TEST(CliTest, PassingRunExitsZeroAndPrintsTheSeedFirst) {
  const std::string dir = testing::scratch_dir("cli-pass");
  std::string output;
  ASSERT_EQ(run_wsim(dir, "run --system toy --seed 2 --time-limit 20s --print-hash", &output), 0)
      << output;
  EXPECT_THAT(output, StartsWith("SEED=2\nsystem toy: version=T1"));
  EXPECT_THAT(output, HasSubstr("\nswarm toy.actor.crash"));
  EXPECT_THAT(output, HasSubstr("verdict PASS"));
  EXPECT_THAT(output, HasSubstr("\n2 0x"));
  EXPECT_FALSE(fs::exists(dir + "/wsim-out"));  // No bundle for a pass.
}

// --bundle: a passing run's trace, to time the next scripted event against.
TEST(CliTest, BundleFlagWritesThePassingRunsTrace) {
  const std::string dir = testing::scratch_dir("cli-pass-bundle");
  std::string output;
  ASSERT_EQ(run_wsim(dir, "run --system toy --seed 2 --time-limit 20s --bundle", &output), 0)
      << output;
  EXPECT_THAT(output, HasSubstr("bundle wsim-out/toy-T1-s2-PASS\n"));
  EXPECT_TRUE(fs::exists(dir + "/wsim-out/toy-T1-s2-PASS/trace.txt"));
  EXPECT_THAT(output, Not(HasSubstr("reproduce with")));
}

TEST(CliTest, SafetyViolationExitsTwoWithBundleAndRepro) {
  const std::string dir = testing::scratch_dir("cli-safety");
  std::string output;
  ASSERT_EQ(run_wsim(dir, "run --system toy --version buggy --seed 1", &output), 2) << output;
  EXPECT_THAT(output, HasSubstr("verdict SAFETY_VIOLATION"));
  EXPECT_THAT(output, HasSubstr("invariant toy.S1 on ConfigMap/toy-"));
  EXPECT_THAT(output, HasSubstr("bundle wsim-out/toy-buggy-s1-toy.S1\n"));
  EXPECT_THAT(output,
              HasSubstr("reproduce with:\n  scripts/wsim replay wsim-out/toy-buggy-s1-toy.S1\n"
                        "  scripts/wsim run --system toy --version buggy --seed 1\n"));
  for (const char* file : {"scenario.textproto", "choices.bin", "trace.jsonl", "trace.txt",
                           "verdict.json", "timeline.html"}) {
    EXPECT_TRUE(fs::exists(dir + "/wsim-out/toy-buggy-s1-toy.S1/" + file)) << file;
  }
  // Replaying the bundle reproduces it exactly (exit 2); so does running its scenario.
  ASSERT_EQ(run_wsim(dir, "replay wsim-out/toy-buggy-s1-toy.S1", &output), 2) << output;
  EXPECT_THAT(output, HasSubstr("replayed exactly: fingerprint 0x"));
  ASSERT_EQ(run_wsim(dir, "run --scenario wsim-out/toy-buggy-s1-toy.S1/scenario.textproto --out o2",
                     &output),
            2)
      << output;
  EXPECT_THAT(output, HasSubstr("bundle o2/toy-buggy-s1-toy.S1"));
  EXPECT_EQ(testing::read_text(dir + "/o2/toy-buggy-s1-toy.S1/verdict.json").substr(0, 40),
            testing::read_text(dir + "/wsim-out/toy-buggy-s1-toy.S1/verdict.json").substr(0, 40));
}

TEST(CliTest, TamperedBundleExitsFour) {
  const std::string dir = testing::scratch_dir("cli-tamper");
  std::string output;
  ASSERT_EQ(run_wsim(dir, "run --system toy --version buggy --seed 1 --out b", &output), 2);
  const std::string verdict = dir + "/b/toy-buggy-s1-toy.S1/verdict.json";
  std::string json = testing::read_text(verdict);
  json.replace(json.find("\"fingerprint\": \"0x") + 18, 4, "dead");
  testing::write_text(verdict, json);
  EXPECT_EQ(run_wsim(dir, "replay b/toy-buggy-s1-toy.S1", &output), 4) << output;
  EXPECT_THAT(output, HasSubstr("NONDETERMINISM"));
}

TEST(CliTest, LivenessViolationExitsThree) {
  // A namespace deleted by kubectl right at the end of the fault phase, with a settle time too
  // short for the keeper to recreate it: toy.L1.
  const std::string dir = testing::scratch_dir("cli-liveness");
  testing::write_text(dir + "/l.textproto",
                      "seed: 3\nscripted_only: true\nfault_phase_ms: 10000\nsettle_ms: 1\n"
                      "toy { }\n"
                      "events { at_ms: 10000 actor: \"kubectl\" action: \"delete_namespace\" "
                      "target: \"toy-1\" }\n");
  std::string output;
  EXPECT_EQ(run_wsim(dir, "run --scenario l.textproto", &output), 3) << output;
  EXPECT_THAT(output, HasSubstr("invariant toy.L1 on Namespace/toy-1"));
  EXPECT_THAT(output, HasSubstr("scripts/wsim run --scenario l.textproto --seed 3"));
}

TEST(CliTest, ExpectationsDecideTheExitCode) {
  const std::string dir = testing::scratch_dir("cli-expect");
  testing::write_text(dir + "/e.textproto",
                      "seed: 1\ntoy { }\n"
                      "expect { when { key: \"version\" value: \"buggy\" } verdict: "
                      "SAFETY_VIOLATION invariant: \"toy.S1\" }\n"
                      "expect { verdict: PASS }\n");
  std::string output;
  EXPECT_EQ(run_wsim(dir, "run --scenario e.textproto --version buggy", &output), 0) << output;
  EXPECT_THAT(output, HasSubstr("as expected: SAFETY_VIOLATION toy.S1"));
  EXPECT_FALSE(fs::exists(dir + "/wsim-out"));  // Expected failures leave no bundle.
  EXPECT_EQ(run_wsim(dir, "run --scenario e.textproto --version buggy --ignore-expect", &output),
            2);
  EXPECT_EQ(run_wsim(dir, "run --scenario e.textproto --time-limit 20s", &output), 0) << output;
  EXPECT_THAT(output, HasSubstr("as expected: PASS"));
  // Seed 4 does not trip the bug: the expected violation does not happen, exit 5.
  EXPECT_EQ(run_wsim(dir, "run --scenario e.textproto --version buggy --seed 4", &output), 5)
      << output;
  EXPECT_THAT(output, HasSubstr("NOT as expected: expected SAFETY_VIOLATION toy.S1 (expect[0]), "
                                "got PASS"));
  EXPECT_THAT(output,
              HasSubstr("scripts/wsim run --scenario e.textproto --version buggy --seed 4"));
  // Replaying a scenario file runs it, replays its own record, then checks the expectation.
  EXPECT_EQ(run_wsim(dir, "replay e.textproto", &output), 0) << output;
  EXPECT_THAT(output, HasSubstr("replayed its choice record: same fingerprint"));
}

TEST(CliTest, UsageErrorsExitOne) {
  const std::string dir = testing::scratch_dir("cli-usage");
  std::string output;
  EXPECT_EQ(run_wsim(dir, "", &output), 1);
  EXPECT_EQ(run_wsim(dir, "run", &output), 1);
  EXPECT_THAT(output, HasSubstr("give --scenario FILE or --system NAME"));
  EXPECT_EQ(run_wsim(dir, "run --system nope", &output), 1);
  EXPECT_THAT(output, HasSubstr("unknown system 'nope'"));
  EXPECT_EQ(run_wsim(dir, "run --system toy --version T9", &output), 1);
  EXPECT_THAT(output, HasSubstr("command line (--version T9): field toy.version:"));
  EXPECT_EQ(run_wsim(dir, "run --system toy --time-limit 5", &output), 1);
  EXPECT_THAT(output, HasSubstr("--time-limit: duration '5' needs a unit"));
  EXPECT_EQ(run_wsim(dir, "run --system toy --seed -3", &output), 1);
  EXPECT_EQ(run_wsim(dir, "run --scenario missing.textproto", &output), 1);
  EXPECT_THAT(output, HasSubstr("missing.textproto: cannot read"));
  EXPECT_EQ(run_wsim(dir, "hunt --system toy --jobs 0 --runs 1", &output), 1);
  EXPECT_EQ(run_wsim(dir, "hunt --system toy --time 1x", &output), 1);
  EXPECT_EQ(run_wsim(dir, "replay", &output), 1);
  EXPECT_EQ(run_wsim(dir, "run --help", &output), 0);
  EXPECT_THAT(output, HasSubstr("--namespace-mode"));
  testing::write_text(dir + "/bad.textproto", "toy {\n  verzion: \"T1\"\n}\n");
  EXPECT_EQ(run_wsim(dir, "run --scenario bad.textproto", &output), 1);
  EXPECT_THAT(output, HasSubstr("bad.textproto:2:10: field toy.verzion:"));
  EXPECT_FALSE(fs::exists(dir + "/wsim-out"));
}

TEST(CliTest, VersionFlagsPickTheirSystem) {
  const std::string dir = testing::scratch_dir("cli-flags");
  std::string output;
  // --version alone selects toy (the only linked system with a `version` field).
  ASSERT_EQ(run_wsim(dir, "run --version buggy --seed 1 --set toy.namespaces=2", &output), 2)
      << output;
  EXPECT_THAT(output, HasSubstr("system toy: version=buggy namespaces=2"));
  EXPECT_THAT(output,
              HasSubstr("scripts/wsim run --version buggy --set toy.namespaces=2 --seed 1"));
}

TEST(CliTest, FingerprintPrintsOneLinePerSeed) {
  const std::string dir = testing::scratch_dir("cli-fingerprint");
  std::string output;
  ASSERT_EQ(run_wsim(dir, "fingerprint --system toy --seeds 3..5 --time-limit 10s", &output), 0)
      << output;
  std::istringstream in(output);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], StartsWith("3 0x"));
  EXPECT_THAT(lines[2], StartsWith("5 0x"));
  EXPECT_EQ(lines[0].size(), 2u + 18u);
}

TEST(CliTest, HuntWithoutArgumentsCoversEverySystem) {
  const std::string dir = testing::scratch_dir("cli-hunt-all");
  std::string output;
  run_wsim(dir, "hunt --runs 2", &output);
  EXPECT_THAT(output, HasSubstr("hunting toy (version=T1"));
  EXPECT_THAT(output, HasSubstr("summary:"));
  EXPECT_THAT(output, Not(HasSubstr("hunting selftest")));  // Not linked into wsim.
}

}  // namespace
}  // namespace wsim::run
