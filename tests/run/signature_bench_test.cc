// scripts/bench-signatures (sim/triage/signature_bench.h) on a two-file corpus of the toy's canary:
// the same bug pinned twice, hunted by two scenarios (4 namespaces or the default 3). Without a
// bug id the files are two bugs: each one's instances carry the other's label (recall by group
// 50 %), and left out of the corpus each is masked by the other (0 % NEW). With one `bug` id they
// are one bug: recall 100 %, and leaving the bug out leaves nothing to mask it (100 % NEW).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/all_systems/all_systems.h"
#include "sim/run/verdict.h"
#include "sim/triage/signature_bench.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;

void write_canary(const std::string& path, const std::string& name, const std::string& bug,
                  int namespaces, bool fixed_on_t1 = false) {
  std::ofstream file(path);
  file << "name: \"" << name << "\"\n";
  if (!bug.empty()) file << "bug: \"" << bug << "\"\n";
  file << "seed: 1\n"
       << "toy { version: \"T1\"" << (namespaces > 0 ? " namespaces: 4" : "") << " }\n"
       << "expect { when { key: \"version\" value: \"buggy\" } verdict: SAFETY_VIOLATION "
          "invariant: \"toy.S1\" }\n";
  if (fixed_on_t1) file << "expect { when { key: \"version\" value: \"T1\" } verdict: PASS }\n";
}

std::string bench(const std::string& dir) {
  BenchSignaturesCommand command;
  command.corpus_dir = dir;
  command.instances = 3;
  command.runs_max = 200;
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(cmd_bench_signatures(command, out, err), kExitPass) << err.str();
  return out.str();
}

TEST(SignatureBenchTest, LeavingABugOutShowsWhetherAnotherMasksIt) {
  register_all_systems();
  const std::string two = testing::scratch_dir("bench-two-bugs");
  write_canary(two + "/a.textproto", "a", "", 0);
  write_canary(two + "/b.textproto", "b", "", 4);
  const std::string apart = bench(two);
  EXPECT_THAT(apart, HasSubstr("recall 50 % strict, 50 % by group"));
  EXPECT_THAT(apart, HasSubstr("NEW when its bug is left out of the corpus 0 % (0 of 6)"));
  // Without a switch the counterfactual truth is the current one: the other file's labels are
  // wrong, and listed by hunt and label (the two signatures are equal: the first file wins).
  EXPECT_THAT(apart, HasSubstr("Labels wrong against the counterfactual ground truth (hunt → "
                               "label): b#0 → a#0 ×3"));

  const std::string one = testing::scratch_dir("bench-one-bug");
  write_canary(one + "/a.textproto", "a", "canary", 0);
  write_canary(one + "/b.textproto", "b", "canary", 4);
  const std::string together = bench(one);
  EXPECT_THAT(together, HasSubstr("recall 50 % strict, 100 % by group"));
  EXPECT_THAT(together, HasSubstr("NEW when its bug is left out of the corpus 100 % (6 of 6)"));
  EXPECT_THAT(together, HasSubstr("| NEW when left out |"));
  EXPECT_THAT(together, HasSubstr("(hunt → label): none"));
}

// The counterfactual ground truth: a file that says its bug is fixed on T1 gives a fix switch
// (version=T1); each instance of the buggy version's hunt replayed on T1 with the same seed loses
// its violation, so all are confirmed; without the PASS block there is no switch and the figures
// fall back to the current ground truth.
TEST(SignatureBenchTest, ReplayingWithTheBugsFixConfirmsItsInstances) {
  register_all_systems();
  const std::string dir = testing::scratch_dir("bench-fixed");
  write_canary(dir + "/a.textproto", "a", "", 0, true);
  const std::string fixed = bench(dir);
  EXPECT_THAT(fixed, HasSubstr("| a#0 | version=T1 | 3 | 3 | 0 | 0 | 0 | - | 0 of 0 |"));
  EXPECT_THAT(fixed, HasSubstr("3 instances with a known bug (3 confirmed by their hunt's bug's "
                               "fix, 0 that persist under it"));
  const std::string none = testing::scratch_dir("bench-unfixed");
  write_canary(none + "/a.textproto", "a", "", 0);
  const std::string unfixed = bench(none);
  EXPECT_THAT(unfixed, HasSubstr("3 instances with a known bug (0 confirmed"));
  EXPECT_THAT(unfixed, ::testing::Not(HasSubstr("| a#0 | version=T1")));
}

// A precondition switch (recreation-limit-then-stop's pod_recreation_max_retries=100) under which
// a violation persists is no evidence in general (a fault can re-create the window), but it is when
// the instance has none of the faults of the bug's own script (no kubelet rejection): the first two
// L5s of its hunt (latest mk2: seeds 28 and 61, no rejection, labelled N7 and N6, which this bench
// run does not hunt) are not that bug, so their labels are left out rather than counted.
// Seed-pinned: re-check the seeds when the world changes. (Until 2026-11-29 this pinned B15's
// hunt, start-during-rejection-window; that script passes since the server's start rule,
// docs/fidelity.md U1.)
TEST(SignatureBenchTest, APreconditionThatPersistsWithoutTheBugsFaultsIsNotThatBug) {
  register_all_systems();
  BenchSignaturesCommand command;
  command.corpus_dir = "corpus/regressions";
  command.only = "recreation-limit-then-stop";
  command.instances = 2;
  command.runs_max = 200;
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(cmd_bench_signatures(command, out, err), kExitPass) << err.str();
  EXPECT_THAT(out.str(),
              HasSubstr("| recreation-limit-then-stop#0 | pod_recreation_max_retries=100 "
                        "(precondition) | 2 | 0 | 2 | 0 |"));
  EXPECT_THAT(out.str(), HasSubstr("Labels left out (their hunt's bug refuted, the label's own "
                                   "truth unknown): recreation-limit-then-stop#0 → "
                                   "(unbenched) ×2"));
  EXPECT_THAT(out.str(), HasSubstr("(hunt → label): none"));
}

}  // namespace
}  // namespace wsim::run
