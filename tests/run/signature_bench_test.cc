// scripts/bench-signatures (sim/run/signature_bench.h) on a two-file corpus of the toy's canary:
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
#include "sim/run/signature_bench.h"
#include "sim/run/verdict.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;

void write_canary(const std::string& path, const std::string& name, const std::string& bug,
                  int namespaces) {
  std::ofstream file(path);
  file << "name: \"" << name << "\"\n";
  if (!bug.empty()) file << "bug: \"" << bug << "\"\n";
  file << "seed: 1\n"
       << "toy { version: \"T1\"" << (namespaces > 0 ? " namespaces: 4" : "") << " }\n"
       << "expect { when { key: \"version\" value: \"buggy\" } verdict: SAFETY_VIOLATION "
          "invariant: \"toy.S1\" }\n";
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

  const std::string one = testing::scratch_dir("bench-one-bug");
  write_canary(one + "/a.textproto", "a", "canary", 0);
  write_canary(one + "/b.textproto", "b", "canary", 4);
  const std::string together = bench(one);
  EXPECT_THAT(together, HasSubstr("recall 50 % strict, 100 % by group"));
  EXPECT_THAT(together, HasSubstr("NEW when its bug is left out of the corpus 100 % (6 of 6)"));
  EXPECT_THAT(together, HasSubstr("| NEW when left out |"));
}

}  // namespace
}  // namespace wsim::run
