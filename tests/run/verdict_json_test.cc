// verdict.json as a protobuf message (sim/run/verdict_json.h): what the writer prints, that the
// reader gets every field back, and that hostile text is an error, not a crash.
#include "sim/run/verdict_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <google/protobuf/util/message_differencer.h>

#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

proto::VerdictRecord sample_record(const System*& system) {
  const LoadedScenario loaded =
      testing::scenario_from_text("seed: 7\ntoy { version: \"buggy\" }\n");
  system = loaded.system;
  RunResult result;
  result.verdict = Verdict::kSafety;
  result.fingerprint = 0x0123456789abcdefULL;
  result.trace_hash = 0xfedcba9876543210ULL;
  result.seed = 7;
  result.end_ms = 90'061;
  result.violation = Violation{"toy.S1", "ConfigMap/toy-0/counter-0", "went \"back\"\nfrom 2 to 1"};
  result.swarm = {{"z.last", "on"}, {"a.first", "off"}};
  result.liveness = {Violation{"toy.L1", "Namespace/toy-1", "missing"}};
  return verdict_record(*system, loaded.scenario, result);
}

TEST(VerdictJson, HashesComeFirstAndFieldsKeepTheirNames) {
  const System* system = nullptr;
  const std::string json = verdict_json(sample_record(system));
  EXPECT_THAT(json, StartsWith("{\n \"fingerprint\": \"0x0123456789abcdef\",\n"));
  EXPECT_THAT(json, HasSubstr("\"trace_hash\": \"0xfedcba9876543210\""));
  EXPECT_THAT(json, HasSubstr("\"verdict\": \"SAFETY_VIOLATION\""));
  EXPECT_THAT(json, HasSubstr("\"exit_code\": 2"));
  EXPECT_THAT(json, HasSubstr("\"known\": \"\""));  // Empty strings are printed too.
  EXPECT_THAT(json, HasSubstr("\"version\": \"buggy\""));
  EXPECT_THAT(json, HasSubstr("\"virtual_time\": \"1m30.061s\""));
  // Map entries sorted by key: the same run always writes the same bytes.
  EXPECT_LT(json.find("\"a.first\""), json.find("\"z.last\""));
  EXPECT_EQ(json.back(), '\n');
}

TEST(VerdictJson, ReaderGetsEveryFieldBack) {
  const System* system = nullptr;
  const proto::VerdictRecord written = sample_record(system);
  proto::VerdictRecord read;
  std::string error;
  ASSERT_TRUE(parse_verdict_json(verdict_json(written), "v.json", read, error)) << error;
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(written, read))
      << read.DebugString();
  EXPECT_EQ(read.message(), "went \"back\"\nfrom 2 to 1");
}

TEST(VerdictJson, HostileTextIsAnErrorNamingTheFile) {
  for (const std::string text : {"", "{", "[]", "{\"seed\": \"x\"}", "{\"fingerprint\": 12}"}) {
    proto::VerdictRecord record;
    std::string error;
    EXPECT_FALSE(parse_verdict_json(text, "dir/verdict.json", record, error)) << text;
    EXPECT_THAT(error, StartsWith("dir/verdict.json: not a verdict record")) << text;
  }
}

}  // namespace
}  // namespace wsim::run
