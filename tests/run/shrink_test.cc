// wsim shrink (sim/run/shrink.h): kept candidates fail with the same invariant, the result is a
// smaller run that replays exactly, scripted noise is dropped, and passing runs are refused.
#include <gtest/gtest.h>

#include <string>

#include "model/gitlab/register.h"
#include "model/toy/register.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/run/shrink.h"

namespace wsim::run {
namespace {

LoadedScenario load(const std::string& text) {
  toy::register_toy_system();
  gitlab::register_gitlab_system();
  LoadedScenario loaded;
  std::string error;
  EXPECT_TRUE(parse_scenario(text, "shrink_test", loaded, error)) << error;
  EXPECT_TRUE(validate_scenario(loaded, error)) << error;
  return loaded;
}

std::size_t nonzero(const std::vector<std::uint64_t>& tape) {
  std::size_t n = 0;
  for (auto v : tape) n += v != 0;
  return n;
}

// The limbo of gitlab#411205 buried in unrelated user actions: shrinking keeps the three that
// matter (create, delete the namespace, terminate) and the same invariant.
TEST(Shrink, DropsScriptedNoiseAndKeepsTheInvariant) {
  LoadedScenario loaded = load(R"(
    seed: 1 scripted_only: true fault_phase_ms: 600000 settle_ms: 4000000
    gitlab { agent: "A0a" rails: "R1" full_interval_ms: 600000 }
    events { at_ms: 1000 actor: "user" action: "create" target: "ws-0" }
    events { at_ms: 2000 actor: "user" action: "create" target: "ws-1" }
    events { at_ms: 30000 actor: "user" action: "stop" target: "ws-1" }
    events { at_ms: 60000 actor: "user" action: "start" target: "ws-1" }
    events { at_ms: 90000 actor: "admin" action: "update_agent_config" }
    events { at_ms: 120000 actor: "kubectl" action: "delete_namespace" target: "ws-0" }
    events { at_ms: 120500 actor: "user" action: "terminate" target: "ws-0" }
    events { at_ms: 200000 actor: "user" action: "restart" target: "ws-1" }
  )");
  const RunResult original = execute_run(*loaded.system, loaded.scenario, {});
  ASSERT_EQ(original.verdict, Verdict::kLiveness);
  ASSERT_TRUE(original.violation);
  const std::string invariant = original.violation->invariant_id;

  ShrinkOptions options;
  options.max_runs = 400;
  RunOptions record;
  record.record_choices = true;
  const RunResult recorded = execute_run(*loaded.system, loaded.scenario, record);
  const ShrinkResult result =
      shrink_run(*loaded.system, loaded.scenario, tape_of(recorded.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.invariant, invariant);
  EXPECT_EQ(result.scripted_before, 8);
  EXPECT_LE(result.scripted_after, 3);
  EXPECT_LE(result.external_after, result.external_before);
  EXPECT_LE(result.choices_after, result.choices_before);

  // The shrunk run replays exactly from its tape.
  RunOptions replay;
  replay.tape = result.tape;
  const RunResult again = execute_run(*loaded.system, result.scenario, replay);
  EXPECT_EQ(again.fingerprint, result.run.fingerprint);
  ASSERT_TRUE(again.violation);
  EXPECT_EQ(again.violation->invariant_id, invariant);
}

// A random run of the toy canary: the choice record shrinks and still trips toy.S1.
TEST(Shrink, ShrinksARandomChoiceRecord) {
  LoadedScenario loaded = load(R"(fault_phase_ms: 10000 toy { version: "buggy" })");
  RunOptions record;
  record.record_choices = true;
  RunResult failing;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    loaded.scenario.set_seed(seed);
    failing = execute_run(*loaded.system, loaded.scenario, record);
    if (failing.violation && failing.violation->invariant_id == "toy.S1") break;
  }
  ASSERT_TRUE(failing.violation && failing.violation->invariant_id == "toy.S1");
  ShrinkOptions options;
  options.max_runs = 120;
  const ShrinkResult result =
      shrink_run(*loaded.system, loaded.scenario, tape_of(failing.record), options);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.invariant, "toy.S1");
  EXPECT_LT(result.nonzero_after, result.nonzero_before);
  EXPECT_EQ(nonzero(result.tape), result.nonzero_after);
  EXPECT_LE(result.runs, options.max_runs + 2);
  ASSERT_TRUE(result.run.violation);
  EXPECT_EQ(result.run.violation->invariant_id, "toy.S1");
}

TEST(Shrink, RefusesAPassingRun) {
  LoadedScenario loaded = load(R"(seed: 3 toy { version: "T1" })");
  const ShrinkResult result = shrink_run(*loaded.system, loaded.scenario, {}, ShrinkOptions{});
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("nothing to shrink"), std::string::npos) << result.error;
}

}  // namespace
}  // namespace wsim::run
