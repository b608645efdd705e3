// The run driver: phases, verdicts, scripted events, the event budget, the banner (seed and swarm
// first), using the self-test system for exact control.
#include "sim/run/driver.h"

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/kube/api_server.h"
#include "sim/run/duration.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

RunResult run_text(const std::string& text, RunOptions options = {}) {
  LoadedScenario loaded = testing::scenario_from_text(text);
  if (loaded.system == nullptr) return {};
  return execute_run(*loaded.system, loaded.scenario, options);
}

TEST(DriverTest, PassRunsBothPhasesToTheEnd) {
  RunOptions options;
  options.keep_trace = true;
  const RunResult result = run_text("seed: 3\nselftest { }\n", options);
  EXPECT_EQ(result.verdict, Verdict::kPass);
  EXPECT_EQ(result.phase, RunPhase::kLiveness);
  EXPECT_EQ(result.end_ms, 70 * kSecondMs);  // 60 s fault phase + 10 s settle.
  EXPECT_FALSE(result.violation);
  EXPECT_GT(result.events, 10u);
  EXPECT_EQ(result.trace_events, result.trace.size());
  // The heal marker sits at the end of the fault phase; no tick after it.
  bool healed = false;
  for (const TraceEvent& e : result.trace) {
    if (e.actor == "wsim" && e.verb == "heal") {
      healed = true;
      EXPECT_EQ(e.time_ms, 60 * kSecondMs);
    } else if (healed) {
      EXPECT_NE(e.verb, "tick") << "ticked after heal at " << e.time_ms;
    }
  }
  EXPECT_TRUE(healed);
}

// RunOptions::observe_api (`wsim replay --serve` records through it): called once, before the
// server holds anything, and a read-only recorder leaves the run as it was.
TEST(DriverTest, TheApiObserverSeesEveryChangeAndLeavesTheRunAsItWas) {
  const std::string text = "seed: 6\ntoy { version: \"buggy\" }\n";
  RunOptions plain;
  plain.keep_trace = true;
  const RunResult unobserved = run_text(text, plain);
  int calls = 0;
  std::uint64_t first_rv = 1;
  std::vector<std::uint64_t> seen;
  RunOptions observed = plain;
  observed.observe_api = [&](kube::ApiServer& api) {
    ++calls;
    first_rv = api.current_resource_version();
    api.subscribe("", [&](const kube::WatchEvent& event) {
      seen.push_back(event.object.meta.resource_version);
    });
  };
  const RunResult result = run_text(text, observed);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(first_rv, 0u);
  ASSERT_GT(seen.size(), 5u);   // Node, namespaces, the counters and their updates.
  EXPECT_EQ(seen.front(), 1u);  // From the first change on.
  EXPECT_EQ(result.fingerprint, unobserved.fingerprint);
  EXPECT_EQ(result.trace_hash, unobserved.trace_hash);
  EXPECT_EQ(result.verdict, unobserved.verdict);
}

TEST(DriverTest, TheApiObserverIsNotCalledForASystemWithoutAnApiServer) {
  int calls = 0;
  RunOptions options;
  options.observe_api = [&](kube::ApiServer&) { ++calls; };
  EXPECT_EQ(run_text("seed: 3\nselftest { }\n", options).verdict, Verdict::kPass);
  EXPECT_EQ(calls, 0);
}

TEST(DriverTest, SafetyViolationStopsAtOnceAndMarksTheCulprit) {
  RunOptions options;
  options.keep_trace = true;
  const RunResult result =
      run_text("selftest { version: \"unsafe\" violate_after_ms: 5000 }\n", options);
  ASSERT_EQ(result.verdict, Verdict::kSafety);
  ASSERT_TRUE(result.violation);
  EXPECT_EQ(result.violation->invariant_id, "selftest.S1");
  EXPECT_EQ(result.phase, RunPhase::kFault);
  EXPECT_GE(result.end_ms, 5000);
  EXPECT_LT(result.end_ms, 5000 + 1000);  // Stopped at the first tick after 5 s.
  ASSERT_TRUE(result.culprit_event && result.violation_event);
  EXPECT_EQ(result.trace[*result.culprit_event].verb, "tick");
  EXPECT_EQ(result.trace[*result.violation_event].verb, "violation");
  EXPECT_EQ(*result.violation_event, result.trace.size() - 1);
}

TEST(DriverTest, LivenessViolationsAreAllReported) {
  RunOptions options;
  options.keep_trace = true;
  const RunResult result = run_text("selftest { version: \"stuck\" }\n", options);
  ASSERT_EQ(result.verdict, Verdict::kLiveness);
  EXPECT_EQ(result.violation->invariant_id, "selftest.L1");
  ASSERT_EQ(result.liveness.size(), 2u);
  EXPECT_EQ(result.liveness[1].invariant_id, "selftest.L2");
  EXPECT_FALSE(result.culprit_event);
  EXPECT_EQ(result.trace[*result.violation_event].result, "selftest.L1");
  EXPECT_EQ(result.trace.back().result, "selftest.L2");
}

TEST(DriverTest, ScriptedEventsRunAtTheirTimes) {
  RunOptions options;
  options.keep_trace = true;
  const RunResult result = run_text(
      "scripted_only: true\nselftest { }\n"
      "events { at_ms: 1500 actor: \"user\" action: \"tick\" target: \"ticker-7\" }\n"
      "events { at_ms: 500 actor: \"user\" action: \"tick\" target: \"ticker-3\" }\n",
      options);
  ASSERT_EQ(result.verdict, Verdict::kPass);
  std::vector<std::pair<TimeMs, std::string>> ticks;
  for (const TraceEvent& e : result.trace) {
    if (e.verb == "tick" && e.result == "ok") ticks.emplace_back(e.time_ms, e.object);
  }
  ASSERT_EQ(ticks.size(), 2u);  // scripted_only: no random tickers.
  EXPECT_EQ(ticks[0], std::make_pair(TimeMs{500}, std::string("ticker-3")));
  EXPECT_EQ(ticks[1], std::make_pair(TimeMs{1500}, std::string("ticker-7")));
}

TEST(DriverTest, ScriptedOnlyDrawsNoSwarm) {
  const RunResult result = run_text("scripted_only: true\nselftest { }\n");
  for (const auto& [name, value] : result.swarm) {
    if (name == "selftest.glitch") {
      EXPECT_EQ(value, "off");
    }
  }
  const RunResult forced = run_text(
      "scripted_only: true\nselftest { }\nfaults { name: \"selftest.glitch\" enabled: true "
      "fire_num: 1 fire_den: 3 }\n");
  bool found = false;
  for (const auto& [name, value] : forced.swarm) {
    if (name == "selftest.glitch") {
      found = true;
      EXPECT_EQ(value, "on (forced) fire 1/3");
    }
  }
  EXPECT_TRUE(found);
}

TEST(DriverTest, FailingScriptedEventIsAHarnessError) {
  const RunResult result =
      run_text("selftest { }\nevents { at_ms: 2000 actor: \"user\" action: \"fail\" }\n");
  EXPECT_EQ(result.verdict, Verdict::kHarnessError);
  EXPECT_THAT(result.harness_error, HasSubstr("the selftest was asked to fail"));
  EXPECT_EQ(result.end_ms, 2000);
}

TEST(DriverTest, EventBudgetStopsALongRun) {
  RunOptions options;
  options.events_max = 50;
  const RunResult result = run_text("selftest { }\n", options);
  EXPECT_EQ(result.verdict, Verdict::kHarnessError);
  EXPECT_EQ(result.events, 50u);
  EXPECT_THAT(result.harness_error, StartsWith("event budget of 50 events exhausted"));
}

TEST(DriverTest, BannerPrintsSeedThenEverySwarmParameter) {
  std::ostringstream log;
  RunOptions options;
  options.log = &log;
  const RunResult result = run_text("seed: 77\nselftest { }\n", options);
  const std::string text = log.str();
  EXPECT_THAT(text, StartsWith("SEED=77\nsystem selftest: version=ok tickers=2"));
  for (const auto& [name, value] : result.swarm) {
    EXPECT_THAT(text, HasSubstr(name)) << name;
  }
  EXPECT_THAT(text, HasSubstr("swarm selftest.think_max_ms"));
  EXPECT_THAT(text, HasSubstr("verdict PASS at 1m10.000s"));
  // The banner comes before anything the run does.
  EXPECT_LT(text.find("swarm selftest.think_max_ms"), text.find("verdict"));
}

TEST(DriverTest, Durations) {
  DurationMs ms = 0;
  std::string error;
  ASSERT_TRUE(parse_duration_ms("60s", ms, error));
  EXPECT_EQ(ms, 60'000);
  ASSERT_TRUE(parse_duration_ms("10m", ms, error));
  EXPECT_EQ(ms, 600'000);
  ASSERT_TRUE(parse_duration_ms("500ms", ms, error));
  EXPECT_EQ(ms, 500);
  ASSERT_TRUE(parse_duration_ms("1h30m", ms, error));
  EXPECT_EQ(ms, 5'400'000);
  EXPECT_FALSE(parse_duration_ms("60", ms, error));
  EXPECT_THAT(error, HasSubstr("needs a unit"));
  EXPECT_FALSE(parse_duration_ms("5x", ms, error));
  EXPECT_FALSE(parse_duration_ms("", ms, error));
  EXPECT_FALSE(parse_duration_ms("99999999999999999999h", ms, error));
  EXPECT_FALSE(parse_duration_ms("31d", ms, error));
  EXPECT_EQ(format_duration_ms(250), "250ms");
  EXPECT_EQ(format_duration_ms(12'345), "12.345s");
  EXPECT_EQ(format_duration_ms(123'456), "2m03.456s");
  EXPECT_EQ(format_duration_ms(3'723'456), "1h02m03.456s");
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  ASSERT_TRUE(parse_seed_range("0..199", first, last, 1000, error));
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(last, 199u);
  EXPECT_FALSE(parse_seed_range("5..1", first, last, 1000, error));
  EXPECT_FALSE(parse_seed_range("0..5000", first, last, 1000, error));
}

}  // namespace
}  // namespace wsim::run
