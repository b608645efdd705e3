// Failure bundles: every file present, written atomically (no .tmp left, a stale one cleaned, an
// old bundle replaced), read back, replayed to the same hash; tampering is detected (exit 4) and
// broken files are clear errors (exit 1).
#include "sim/run/bundle.h"
#include "sim/report/bundle_write.h"

#include <filesystem>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/commands/commands.h"
#include "sim/run/duration.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kFiles[] = {"scenario.textproto", "choices.bin",  "trace.jsonl",
                                  "trace.txt",          "verdict.json", "timeline.html"};

struct Written {
  LoadedScenario loaded;
  RunResult result;
  std::string path;
};

Written write_failure(const std::string& out, const std::string& text) {
  Written w;
  w.loaded = testing::scenario_from_text(text);
  RunOptions options;
  options.record_choices = true;
  options.keep_trace = true;
  w.result = execute_run(*w.loaded.system, w.loaded.scenario, options);
  std::string error;
  EXPECT_TRUE(write_bundle(out, *w.loaded.system, w.loaded.scenario, w.result, w.path, error))
      << error;
  return w;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(BundleTest, AllFilesPresentAndNoTemporaryLeft) {
  const std::string out = testing::scratch_dir("bundle-files");
  const Written w = write_failure(out, "seed: 6\ntoy { version: \"buggy\" }\n");
  ASSERT_EQ(w.result.verdict, Verdict::kSafety);
  EXPECT_EQ(w.path, out + "/toy-buggy-s6-toy.S1");
  EXPECT_EQ(entries(out), std::vector<std::string>{"toy-buggy-s6-toy.S1"});
  for (const char* file : kFiles) {
    EXPECT_TRUE(fs::is_regular_file(w.path + "/" + file)) << file;
    EXPECT_GT(fs::file_size(w.path + "/" + file), 0u) << file;
  }
  const std::string json = testing::read_text(w.path + "/verdict.json");
  EXPECT_THAT(json, HasSubstr("\"fingerprint\": \"" + format_hash(w.result.fingerprint) + "\""));
  const std::string scenario = testing::read_text(w.path + "/scenario.textproto");
  EXPECT_THAT(scenario, StartsWith("# wsim failure bundle: SAFETY_VIOLATION toy.S1, seed 6\n"));
  EXPECT_THAT(scenario, HasSubstr("seed: 6"));
  EXPECT_THAT(scenario, HasSubstr("namespaces: 3"));  // Normalized config.
}

TEST(BundleTest, StaleTemporaryIsRemovedAndOldBundleReplaced) {
  const std::string out = testing::scratch_dir("bundle-replace");
  const std::string name = "toy-buggy-s6-toy.S1";
  fs::create_directories(out + "/.tmp-" + name);
  testing::write_text(out + "/.tmp-" + name + "/junk", "half-written");
  fs::create_directories(out + "/" + name);
  testing::write_text(out + "/" + name + "/old-file", "from an older run");
  const Written w = write_failure(out, "seed: 6\ntoy { version: \"buggy\" }\n");
  EXPECT_EQ(entries(out), std::vector<std::string>{name});
  EXPECT_FALSE(fs::exists(w.path + "/old-file"));
  EXPECT_TRUE(fs::exists(w.path + "/choices.bin"));
}

TEST(BundleTest, UnwritableOutputLeavesNothing) {
  const std::string out = testing::scratch_dir("bundle-unwritable");
  testing::write_text(out + "/file", "not a directory");
  LoadedScenario loaded = testing::scenario_from_text("seed: 6\ntoy { version: \"buggy\" }\n");
  RunOptions options;
  options.record_choices = true;
  options.keep_trace = true;
  const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  std::string path;
  std::string error;
  EXPECT_FALSE(write_bundle(out + "/file", *loaded.system, loaded.scenario, result, path, error));
  EXPECT_THAT(error, HasSubstr("cannot create"));
  EXPECT_EQ(entries(out), std::vector<std::string>{"file"});
}

TEST(BundleTest, ReadBackAndReplayExactly) {
  const std::string out = testing::scratch_dir("bundle-replay");
  const Written w = write_failure(out, "seed: 11\ntoy { version: \"buggy\" }\n");
  Bundle bundle;
  std::string error;
  ASSERT_TRUE(read_bundle(w.path, bundle, error)) << error;
  EXPECT_EQ(bundle.fingerprint, w.result.fingerprint);
  EXPECT_EQ(bundle.trace_hash, w.result.trace_hash);
  EXPECT_EQ(bundle.verdict, "SAFETY_VIOLATION");
  EXPECT_EQ(bundle.invariant, "toy.S1");
  EXPECT_EQ(bundle.record, w.result.record);

  std::ostringstream stdout_text;
  std::ostringstream stderr_text;
  ReplayCommand replay;
  replay.path = w.path;
  EXPECT_EQ(cmd_replay(replay, stdout_text, stderr_text), kExitSafety) << stderr_text.str();
  EXPECT_THAT(stdout_text.str(),
              HasSubstr("replayed exactly: fingerprint " + format_hash(w.result.fingerprint) +
                        ", SAFETY_VIOLATION toy.S1"));
  EXPECT_THAT(stdout_text.str(), StartsWith("SEED=11 (replaying a choice record)\n"));
}

TEST(BundleTest, TamperedHashIsNondeterminism) {
  const std::string out = testing::scratch_dir("bundle-tamper");
  const Written w = write_failure(out, "seed: 11\ntoy { version: \"buggy\" }\n");
  std::string json = testing::read_text(w.path + "/verdict.json");
  const std::string hash = format_hash(w.result.fingerprint);
  json.replace(json.find(hash), hash.size(), "0x0000000000000001");
  testing::write_text(w.path + "/verdict.json", json);
  std::ostringstream stdout_text;
  std::ostringstream stderr_text;
  ReplayCommand replay;
  replay.path = w.path;
  EXPECT_EQ(cmd_replay(replay, stdout_text, stderr_text), kExitNondeterminism);
  EXPECT_THAT(stdout_text.str(), HasSubstr("NONDETERMINISM: the replay's fingerprint " + hash));
}

TEST(BundleTest, BrokenFilesAreClearErrors) {
  const std::string out = testing::scratch_dir("bundle-broken");
  const Written w = write_failure(out, "seed: 11\ntoy { version: \"buggy\" }\n");
  ReplayCommand replay;
  replay.path = w.path;
  auto replay_error = [&] {
    std::ostringstream stdout_text;
    std::ostringstream stderr_text;
    EXPECT_EQ(cmd_replay(replay, stdout_text, stderr_text), kExitUsage);
    return stderr_text.str();
  };
  const std::string choices = testing::read_text(w.path + "/choices.bin");
  testing::write_text(w.path + "/choices.bin", choices.substr(0, choices.size() - 3));
  EXPECT_THAT(replay_error(), HasSubstr(w.path + "/choices.bin: byte 8: count"));
  testing::write_text(w.path + "/choices.bin", "garbage");
  EXPECT_THAT(replay_error(), HasSubstr("not a choice record"));
  testing::write_text(w.path + "/choices.bin", choices);

  const std::string scenario = testing::read_text(w.path + "/scenario.textproto");
  testing::write_text(w.path + "/scenario.textproto", scenario + "\ntoy { bogus: 1 }\n");
  EXPECT_THAT(replay_error(), HasSubstr(w.path + "/scenario.textproto:"));
  testing::write_text(w.path + "/scenario.textproto", scenario);

  // verdict.json is read with protobuf's JSON parser (sim/run/verdict_json.h).
  testing::write_text(w.path + "/verdict.json", "{\"fingerprint\": 12}");
  EXPECT_THAT(replay_error(), HasSubstr("verdict.json: not a verdict record"));
  testing::write_text(w.path + "/verdict.json", "{\"fingerprint\": \"0x12\", \"new_member\": 1}");
  EXPECT_THAT(replay_error(), HasSubstr("verdict.json: field fingerprint/trace_hash"));
  fs::remove(w.path + "/verdict.json");
  EXPECT_THAT(replay_error(), HasSubstr("verdict.json: cannot read"));

  replay.path = out + "/nope";
  std::ostringstream o;
  std::ostringstream e;
  EXPECT_EQ(cmd_replay(replay, o, e), kExitUsage);
}

}  // namespace
}  // namespace wsim::run
