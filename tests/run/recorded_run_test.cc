// sim/report/recorded_run.h: a bundle read back as recorded (trace.jsonl + verdict.json) gives
// the run that wrote it — verdict, violation, marks, trace, state and the same signature — so
// `wsim explain` of a bundle that cannot be re-executed (the external system without its
// process) tells the run's own story. Bad files are errors naming file and line.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "model/gitlab/register.h"
#include "sim/report/bundle_write.h"
#include "sim/report/recorded_run.h"
#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

struct Written {
  RunResult result;
  Bundle bundle;
};

// The GitLab limbo corpus scenario (a liveness violation) run and written as a bundle.
Written limbo(const std::string& name) {
  gitlab::register_gitlab_system();
  Written out;
  LoadedScenario loaded;
  std::string error;
  EXPECT_TRUE(load_scenario_file(
      std::string(WSIM_SOURCE_DIR) + "/corpus/regressions/gitlab/limbo-411205.textproto", loaded,
      error))
      << error;
  loaded.scenario.mutable_gitlab()->set_agent("A0a");
  EXPECT_TRUE(validate_scenario(loaded, error)) << error;
  RunOptions options;
  options.keep_trace = true;
  options.record_choices = true;
  out.result = execute_run(*loaded.system, loaded.scenario, options);
  std::string path;
  EXPECT_TRUE(write_bundle(testing::scratch_dir(name), *loaded.system, loaded.scenario, out.result,
                           path, error))
      << error;
  EXPECT_TRUE(read_bundle(path, out.bundle, error)) << error;
  EXPECT_TRUE(validate_scenario(out.bundle.scenario, error)) << error;
  return out;
}

TEST(RecordedRun, GivesTheRunThatWroteTheBundle) {
  const Written written = limbo("recorded");
  const RunResult& run = written.result;
  ASSERT_EQ(run.verdict, Verdict::kLiveness);
  RunResult recorded;
  std::string error;
  ASSERT_TRUE(read_recorded_run(written.bundle, *written.bundle.scenario.system, recorded, error))
      << error;
  EXPECT_EQ(recorded.verdict, run.verdict);
  ASSERT_TRUE(recorded.violation.has_value());
  EXPECT_EQ(recorded.violation->invariant_id, run.violation->invariant_id);
  EXPECT_EQ(recorded.violation->object, run.violation->object);
  EXPECT_EQ(recorded.violation->message, run.violation->message);
  EXPECT_EQ(recorded.liveness.size(), run.liveness.size());
  EXPECT_EQ(recorded.seed, run.seed);
  EXPECT_EQ(recorded.fingerprint, run.fingerprint);
  EXPECT_EQ(recorded.trace_hash, run.trace_hash);
  EXPECT_EQ(recorded.end_ms, run.end_ms);
  EXPECT_EQ(recorded.state, run.state);
  EXPECT_EQ(recorded.culprit_event, run.culprit_event);
  EXPECT_EQ(recorded.violation_event, run.violation_event);
  ASSERT_EQ(recorded.trace.size(), run.trace.size());
  for (std::size_t i = 0; i < run.trace.size(); ++i) {
    const TraceEvent& a = recorded.trace[i];
    const TraceEvent& b = run.trace[i];
    EXPECT_EQ(a.time_ms, b.time_ms) << i;
    EXPECT_EQ(a.actor + a.verb + a.object + a.result + a.detail,
              b.actor + b.verb + b.object + b.result + b.detail)
        << i;
    EXPECT_EQ(a.kind, b.kind) << i;
    EXPECT_EQ(a.faults, b.faults) << i;
  }
  ASSERT_TRUE(recorded.signature.has_value() && run.signature.has_value());
  EXPECT_EQ(recorded.signature->text(), run.signature->text());
}

TEST(RecordedRun, BadTraceLineNamesFileAndLine) {
  const Written written = limbo("recorded-bad");
  {
    std::ofstream trace(written.bundle.dir + "/trace.jsonl", std::ios::app);
    trace << "{\"i\":1,\"actor\":\"x\"}\n";
  }
  RunResult recorded;
  std::string error;
  EXPECT_FALSE(read_recorded_run(written.bundle, *written.bundle.scenario.system, recorded, error));
  EXPECT_NE(error.find("trace.jsonl:" + std::to_string(written.result.trace.size() + 1)),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace wsim::run
