// wsim explain (sim/report/explain.h) on the limbo bundle of gitlab#411205: a story under 30 lines
// naming the invariant, the namespace deletion and the Terminated desired state, with the state
// before and after; --html writes the diagram; a BUNDLE-shrunk next to the bundle is preferred.
#include "sim/report/explain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "cli/commands/commands.h"
#include "model/gitlab/register.h"
#include "sim/report/bundle_write.h"
#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string limbo_bundle(const std::string& name) {
  gitlab::register_gitlab_system();
  LoadedScenario loaded;
  std::string error;
  EXPECT_TRUE(load_scenario_file(
      std::string(WSIM_SOURCE_DIR) + "/corpus/regressions/gitlab/limbo-411205.textproto", loaded,
      error))
      << error;
  loaded.scenario.mutable_gitlab()->set_agent("A0a");  // The corpus file runs every version.
  EXPECT_TRUE(validate_scenario(loaded, error)) << error;
  RunOptions options;
  options.keep_trace = true;
  options.record_choices = true;
  const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  EXPECT_EQ(result.verdict, Verdict::kLiveness);
  std::string path;
  EXPECT_TRUE(write_bundle(testing::scratch_dir(name), *loaded.system, loaded.scenario, result,
                           path, error))
      << error;
  return path;
}

std::size_t count_lines(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST(Explain, NamesObjectsAtWordBoundaries) {
  EXPECT_TRUE(names_object("Namespace/gl-rd-ns-ws-0", "ws-0"));
  EXPECT_TRUE(names_object("ws-0", "ws-0"));
  EXPECT_TRUE(names_object("Pod/gitpod/ws-alice-1", "alice"));
  EXPECT_FALSE(names_object("ws-01", "ws-0"));
  EXPECT_FALSE(names_object("Pod/ns/bobby-1", "bob"));
  EXPECT_FALSE(names_object("anything", ""));
}

TEST(Explain, LimboStoryIsShortAndToThePoint) {
  const std::string bundle = limbo_bundle("explain-limbo");
  ExplainCommand command;
  command.bundle = bundle;
  command.html = bundle + "/../diagram.html";
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(cmd_explain(command, out, err), 0) << err.str();
  const std::string story = out.str();
  EXPECT_LT(count_lines(story), 30u) << story;
  EXPECT_THAT(story, HasSubstr("gitlab.L1 violated on ws-0"));
  EXPECT_THAT(story, HasSubstr("means: "));  // The InvariantInfo description.
  EXPECT_THAT(story, HasSubstr("seed 1"));
  EXPECT_THAT(story, HasSubstr("agent=A0a"));
  EXPECT_THAT(story, HasSubstr("Terminated"));
  EXPECT_THAT(story, HasSubstr("kubectl"));
  EXPECT_THAT(story, HasSubstr("delete x2     Namespace/gl-rd-ns-ws-0"));  // The deletion.
  EXPECT_THAT(story, HasSubstr("terminate     ws-0"));
  EXPECT_THAT(story, HasSubstr("<-- violates gitlab.L1"));
  EXPECT_THAT(story, HasSubstr("state before kubectl delete Namespace/gl-rd-ns-ws-0 at 2m00.000s"));
  EXPECT_THAT(story, HasSubstr("ws-0: desired Running, actual Running"));
  EXPECT_THAT(story, HasSubstr("ws-0: desired Terminated, actual Running"));
  EXPECT_THAT(story, Not(HasSubstr("rails  ")));  // Hours of polls stay out.
  EXPECT_TRUE(std::filesystem::exists(bundle + "/../diagram.html"));
  EXPECT_EQ(testing::read_text(bundle + "/../diagram.html"),
            testing::read_text(bundle + "/timeline.html"));
  // Deterministic.
  std::ostringstream again;
  ASSERT_EQ(cmd_explain(command, again, err), 0);
  EXPECT_EQ(again.str(), story);
}

TEST(Explain, VerboseListsEveryEventAndShrunkRunIsPreferred) {
  const std::string bundle = limbo_bundle("explain-verbose");
  std::filesystem::copy(bundle, bundle + "-shrunk");
  ExplainCommand command;
  command.bundle = bundle + "/";
  command.verbose = true;
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(cmd_explain(command, out, err), 0) << err.str();
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("-shrunk (the shrunk run"));
  EXPECT_THAT(text, HasSubstr("#0  0.000s  "));
  EXPECT_THAT(text, HasSubstr("#1100  3h11m40.000s  wsim  violation  ws-0  gitlab.L2  limbo"));
  command.original = true;
  command.verbose = false;
  std::ostringstream original;
  ASSERT_EQ(cmd_explain(command, original, err), 0);
  EXPECT_THAT(original.str(), Not(HasSubstr("-shrunk")));
}

TEST(Explain, NotABundle) {
  ExplainCommand command;
  command.bundle = testing::scratch_dir("explain-empty");
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(cmd_explain(command, out, err), kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("wsim explain: "));
}

}  // namespace
}  // namespace wsim::run
