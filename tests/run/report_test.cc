// Reports: JSON escaping, the aligned text trace with its marks, the HTML table.
#include "sim/report/report.h"
#include "sim/report/timeline_html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ReportTest, JsonStringEscapesEverything) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("l1\nl2\tx\r"), "\"l1\\nl2\\tx\\r\"");
  EXPECT_EQ(json_string(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(json_string("caf\xc3\xa9 \xe2\x86\x92"),
            "\"caf\xc3\xa9 \xe2\x86\x92\"");                       // UTF-8 kept.
  EXPECT_EQ(json_string("bad\xff\xc3"), "\"bad\\u00ff\\u00c3\"");  // Not UTF-8: escaped bytes.
  EXPECT_EQ(json_string("\xc0\xaf"), "\"\\u00c0\\u00af\"");        // Overlong form.
  EXPECT_EQ(json_string(std::string("nul\0x", 5)), "\"nul\\u0000x\"");
}

TEST(ReportTest, HtmlEscape) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

RunResult unsafe_run(LoadedScenario& loaded) {
  loaded = testing::scenario_from_text(
      "seed: 5\nselftest { version: \"unsafe\" violate_after_ms: 3000 }\n");
  RunOptions options;
  options.keep_trace = true;
  return execute_run(*loaded.system, loaded.scenario, options);
}

TEST(ReportTest, TextTraceIsAlignedAndMarked) {
  LoadedScenario loaded;
  RunResult result = unsafe_run(loaded);
  // An event with awkward characters must stay on one line.
  result.trace.insert(result.trace.begin(),
                      TraceEvent{1, "a\nb", "verb", "obj\tx", "ok", "multi\nline"});
  if (result.culprit_event) ++*result.culprit_event;
  if (result.violation_event) ++*result.violation_event;
  const std::string text = render_trace_text(*loaded.system, loaded.scenario, result);
  EXPECT_THAT(text, HasSubstr("# SAFETY_VIOLATION selftest.S1 on ticker-"));
  EXPECT_THAT(text, HasSubstr("# seed 5, selftest version=unsafe"));
  EXPECT_THAT(text, HasSubstr("a\\nb"));
  EXPECT_THAT(text, HasSubstr("multi\\nline"));
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  std::size_t header = 0;
  while (header < lines.size() && lines[header].rfind("#", 0) == 0) ++header;
  ASSERT_LT(header, lines.size());
  const std::size_t actor_column = lines[header].find("actor");
  ASSERT_NE(actor_column, std::string::npos);
  std::size_t culprits = 0;
  std::size_t verdicts = 0;
  for (std::size_t i = header + 1; i < lines.size(); ++i) {
    if (lines[i].rfind("#", 0) == 0) continue;
    EXPECT_EQ(lines[i][actor_column - 1], ' ') << lines[i];
    EXPECT_NE(lines[i][actor_column], ' ') << lines[i];
    if (lines[i].rfind(">> ", 0) == 0) ++culprits;
    if (lines[i].rfind("!! ", 0) == 0) {
      ++verdicts;
      EXPECT_THAT(lines[i], HasSubstr("violation"));
      EXPECT_THAT(lines[i], HasSubstr("selftest.S1"));
    }
  }
  EXPECT_EQ(culprits, 1u);
  EXPECT_EQ(verdicts, 1u);
  EXPECT_THAT(text, HasSubstr("   0.001s  "));
  EXPECT_THAT(text, HasSubstr("  <-- violates selftest.S1\n"));
}

TEST(ReportTest, JsonlHasOneValidObjectPerEvent) {
  LoadedScenario loaded;
  const RunResult result = unsafe_run(loaded);
  const std::string jsonl = render_trace_jsonl(result);
  std::size_t lines = 0;
  std::size_t marks = 0;
  for (std::size_t begin = 0, end = jsonl.find('\n'); end != std::string::npos;
       begin = end + 1, end = jsonl.find('\n', begin)) {
    const std::string line = jsonl.substr(begin, end - begin);
    EXPECT_EQ(line.front(), '{');
    EXPECT_EQ(line.back(), '}');
    EXPECT_THAT(line, HasSubstr("\"i\":" + std::to_string(lines) + ","));
    if (line.find("\"mark\":") != std::string::npos) ++marks;
    ++lines;
  }
  EXPECT_EQ(lines, result.trace.size());
  EXPECT_EQ(marks, 2u);  // The culprit and the violation.
}

TEST(ReportTest, VerdictJsonAndTimeline) {
  LoadedScenario loaded;
  const RunResult result = unsafe_run(loaded);
  const std::string json = render_verdict_json(*loaded.system, loaded.scenario, result);
  EXPECT_THAT(json, HasSubstr("\"verdict\": \"SAFETY_VIOLATION\""));
  EXPECT_THAT(json, HasSubstr("\"invariant\": \"selftest.S1\""));
  EXPECT_THAT(json, HasSubstr("\"seed\": \"5\""));  // protobuf JSON: 64-bit ints are strings.
  EXPECT_THAT(json, HasSubstr("\"exit_code\": 2"));
  EXPECT_THAT(json, HasSubstr("\"selftest.glitch\": "));
  EXPECT_THAT(json, HasSubstr("\"virtual_time_ms\": \"" + std::to_string(result.end_ms) + "\""));
  const std::string html = render_timeline_html(*loaded.system, loaded.scenario, result);
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("class=\"ev violation\""));
  EXPECT_THAT(html, HasSubstr("class=\"ev culprit"));
  EXPECT_THAT(html, Not(HasSubstr("http")));  // Self-contained: nothing fetched.
}

}  // namespace
}  // namespace wsim::run
