// Finding signatures against the real regression corpus (sim/run/signature.h, issue #12 item 1):
// two hunted seeds of the same corpus bug carry its signature, and two corpus bugs with the same
// invariant id have different signatures that each match themselves. docs/signatures.md has the
// recall/precision figures over every corpus bug (the table: docs/signatures-bench.md,
// scripts/bench-signatures).
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/all_systems/all_systems.h"
#include "sim/run/driver.h"
#include "sim/run/signature.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kCorpus = "corpus/regressions";
constexpr const char* kB2 = "corpus/regressions/gitpod/podstarts-patch-failure.textproto#0";
constexpr const char* kB1 = "corpus/regressions/gitpod/status-conflict-pre16622.textproto#0";

class SignatureCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_all_systems();
    std::string error;
    ASSERT_TRUE(known_bugs(kCorpus, "gitpod", known_, error)) << error;
  }

  const KnownBug& known(const std::string& name) {
    for (const KnownBug& bug : known_) {
      if (bug.name == name) return bug;
    }
    ADD_FAILURE() << name << " is not a corpus bug";
    return known_.front();
  }

  std::vector<KnownBug> known_;
};

TEST_F(SignatureCorpusTest, TwoSeedsOfTheSameBugShareItsSignature) {
  CorpusBug bug;
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(parse_corpus_bug(kB2, bug, error)) << error;
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  // Every S5 of latest mk2 is B2 (B1 is fixed there). Most instances must carry B2's label and
  // none may be NEW; some go to B1's script (status-conflict-pre16622), whose path they share
  // when the podStarts write is lost with the create's response (seed 4 since the busier
  // workload of incidents): the measured precision limit of docs/signatures.md. 6 of 8 carried
  // B2's label until the reflector backoff and kube.apiserver.restart changed every run
  // (2026-11-26, docs/fidelity.md K9); 5 of 8 since (the other three go to B1's script).
  constexpr std::size_t kInstances = 8;
  constexpr std::size_t kCarryingB2Min = 5;
  std::vector<std::string> labels;
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t seed = 0; seed < 400 && labels.size() < kInstances; ++seed) {
    loaded.scenario.set_seed(seed);
    RunOptions options;
    options.keep_trace = true;
    options.known = &known_;
    const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
    if (!result.violation || result.violation->invariant_id != "gitpod.S5") continue;
    labels.push_back(result.known);
    seeds.push_back(seed);
  }
  ASSERT_EQ(labels.size(), kInstances) << "the hunt found B2 fewer than 8 times in 400 seeds";
  std::size_t carrying_b2 = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    EXPECT_FALSE(labels[i].empty()) << "seed " << seeds[i] << " is B2 but was labelled NEW";
    if (labels[i] == kB2) ++carrying_b2;
  }
  EXPECT_GE(carrying_b2, kCarryingB2Min) << ::testing::PrintToString(labels);
}

TEST_F(SignatureCorpusTest, TwoBugsWithTheSameInvariantDiffer) {
  const KnownBug& b2 = known(kB2);
  const KnownBug& b1 = known(kB1);
  EXPECT_EQ(b2.signature.invariant, "gitpod.S5");
  EXPECT_EQ(b1.signature.invariant, "gitpod.S5");
  EXPECT_NE(b2.signature, b1.signature) << b2.signature.text();
  EXPECT_EQ(match_known(b2.signature, known_)->name, kB2);
  EXPECT_EQ(match_known(b1.signature, known_)->name, kB1);
}

// Liveness signatures carry the failing object's final state (signature.h): a hunted limbo
// (no Deployment, not tracked) is not taken for the stuck tracker of shared-inventory-first#2
// (tracked), whose path (user create; user terminate) every L1 finding covers.
TEST_F(SignatureCorpusTest, TheFinalStateTellsALimboFromAStuckTracker) {
  std::vector<KnownBug> gitlab;
  std::string error;
  ASSERT_TRUE(known_bugs(kCorpus, "gitlab", gitlab, error)) << error;
  const std::string stuck = "corpus/regressions/gitlab/shared-inventory-first.textproto#2";
  const std::string limbo = "corpus/regressions/gitlab/limbo-411205.textproto#0";
  for (const KnownBug& bug : gitlab) {
    if (bug.name == limbo) EXPECT_THAT(bug.signature.state, HasSubstr("not tracked"));
    if (bug.name == stuck) EXPECT_THAT(bug.signature.state, Not(HasSubstr("not tracked")));
  }
  CorpusBug bug;
  LoadedScenario loaded;
  ASSERT_TRUE(parse_corpus_bug(limbo, bug, error)) << error;
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  int found = 0;
  for (std::uint64_t seed = 0; seed < 200 && found < 3; ++seed) {
    loaded.scenario.set_seed(seed);
    RunOptions options;
    options.keep_trace = true;
    options.known = &gitlab;
    const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
    if (!result.violation || result.violation->invariant_id != "gitlab.L1") continue;
    ++found;
    ASSERT_TRUE(result.signature.has_value());
    EXPECT_THAT(result.signature->state, HasSubstr("not tracked")) << "seed " << seed;
    EXPECT_NE(result.known, stuck) << "seed " << seed << ": " << result.signature->text();
    EXPECT_FALSE(result.known.empty()) << "seed " << seed << ": " << result.signature->text();
  }
  EXPECT_EQ(found, 3) << "the limbo hunt found gitlab.L1 fewer than 3 times in 200 seeds";
}

// The corpus says where a bug is not: limbo-411205 expects PASS on A1 and later, so a finding of
// an A3 run is never labelled limbo; on A0a it may be.
TEST_F(SignatureCorpusTest, ABugItsFileExpectsToPassOnTheRunsVersionsIsNotALabel) {
  std::vector<KnownBug> gitlab;
  std::string error;
  ASSERT_TRUE(known_bugs(kCorpus, "gitlab", gitlab, error)) << error;
  const std::string limbo = "corpus/regressions/gitlab/limbo-411205.textproto#0";
  auto has_limbo = [&](const std::string& agent) {
    LoadedScenario loaded;
    EXPECT_TRUE(
        parse_scenario("name: \"v\" seed: 1 gitlab { agent: \"" + agent + "\" rails: \"R3\" }",
                       "v.textproto", loaded, error))
        << error;
    EXPECT_TRUE(validate_scenario(loaded, error)) << error;
    const std::vector<KnownBug> applicable =
        applicable_known_bugs(gitlab, loaded.scenario, *loaded.system);
    EXPECT_LE(applicable.size(), gitlab.size());
    return std::any_of(applicable.begin(), applicable.end(),
                       [&](const KnownBug& bug) { return bug.name == limbo; });
  };
  EXPECT_TRUE(has_limbo("A0a"));
  EXPECT_FALSE(has_limbo("A3"));
  EXPECT_FALSE(has_limbo("A1"));
}

// The latest mk2 hunt finds four bugs with one message, "# pod(s) created after a successful
// StopWorkspace" or "stopped by the user but CR remains in ...": B3 (the stop lands while the
// first pod is rejected), B6 (the re-creation limit), N6 (before ws-manager's cache has the CR)
// and N7 (before any pod exists). The first ten seeds whose first violation is L5 were triaged by
// reading their traces (docs/signatures.md "Contexts"); a model change that moves them needs a
// new triage, as a corpus fingerprint does (re-triaged 2026-11-26 after the reflector backoff and
// kube.apiserver.restart, docs/fidelity.md K9, and seed 233 for 489 after the user model began to
// wait for the pod IP in the CR: N6 = the stop answered NotFound from a cache
// without the CR; N7 = the stop acknowledged before any pod exists; B3 = the stop lands between a
// rejection and the re-creation; B6 = two rejections reach the re-creation limit before the
// stop). The contexts (the workspace's objects when the user stopped) must label at least 8 of
// 10 with their bug (9 of 10 on the first triage; now seed 258, B3 whose workspace then also hits
// B6's limit, goes to B6, and seed 489, N7, to N6: the contexts do not see whether ws-manager
// answered the stop from a cache that had the CR), and at least as many as the rule without
// contexts (more, until 2026-11-26: since the operator-action rule of docs/signatures.md and the
// mk2 Delete(CR) requeue fix, which changed some of these runs, the rule without contexts also
// gets 8 of 10). Re-triaged 2026-11-29 after the server's start rule (docs/fidelity.md U1)
// changed every Gitpod run: seeds 110 and 288 no longer end at L5 and 489 is now B3 (its stop
// lands between a rejection and the re-creation); 96 (B3) and 504 (N7, the stop acknowledged at
// 53 s, the pod created at 1m01) take the two places; the other seven kept their bug.
TEST_F(SignatureCorpusTest, ContextsTellTheStoppedByTheUserBugsApart) {
  CorpusBug bug;
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(
      parse_corpus_bug("corpus/regressions/gitpod/stop-before-first-pod.textproto#0", bug, error))
      << error;
  ASSERT_TRUE(corpus_bug_scenario(bug, loaded, error)) << error;
  // The seeds were triaged before the second-stream fault points (sim/core/fault.h): with those
  // pinned off each seed replays the run it was triaged on.
  for (const char* name :
       {"gitpod.operator.delete_workspace", "kube.node.not_ready", "kube.watch.drop"}) {
    proto::FaultOverride* pinned = loaded.scenario.add_faults();
    pinned->set_name(name);
    pinned->set_enabled(false);
  }
  const std::vector<KnownBug> applicable =
      applicable_known_bugs(known_, loaded.scenario, *loaded.system);
  const std::vector<std::pair<std::uint64_t, std::string>> triaged = {
      {61, "N6"},  {73, "N6"},  {96, "B3"},  {171, "N6"}, {489, "B3"},
      {238, "B6"}, {250, "B6"}, {258, "B3"}, {504, "N7"}, {335, "N7"}};
  MatchOptions off;
  off.context = MatchOptions::Context::kOff;
  std::size_t right = 0;
  std::size_t right_without = 0;
  std::string misses;
  for (const auto& [seed, id] : triaged) {
    loaded.scenario.set_seed(seed);
    RunOptions options;
    options.keep_trace = true;
    const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
    ASSERT_TRUE(result.violation && result.signature) << "seed " << seed;
    ASSERT_EQ(result.violation->invariant_id, "gitpod.L5") << "seed " << seed;
    const KnownBug* with = match_known(*result.signature, applicable);
    const KnownBug* without = match_known(*result.signature, applicable, off);
    EXPECT_NE(with, nullptr) << "seed " << seed << " labelled NEW";
    if (with != nullptr && with->bug == id) ++right;
    if (without != nullptr && without->bug == id) ++right_without;
    if (with == nullptr || with->bug != id) {
      misses += "seed " + std::to_string(seed) + " (" + id + ") labelled " + known_label(with) +
                ": " + result.signature->contexts_text() + "\n";
    }
  }
  EXPECT_GE(right, 8u) << misses;
  EXPECT_GE(right, right_without) << misses;
}

TEST_F(SignatureCorpusTest, EveryCorpusBugMatchesItself) {
  std::vector<KnownBug> all;
  std::string error;
  ASSERT_TRUE(known_bugs(kCorpus, "", all, error)) << error;
  ASSERT_GE(all.size(), 30u);
  for (const KnownBug& bug : all) {
    const KnownBug* match = match_known(bug.signature, all);
    ASSERT_NE(match, nullptr) << bug.name;
    // Bugs whose scripts give the very same signature cannot be told apart; any of them will do.
    EXPECT_EQ(match->signature, bug.signature) << bug.name << " matched " << match->name;
  }
}

}  // namespace
}  // namespace wsim::run
