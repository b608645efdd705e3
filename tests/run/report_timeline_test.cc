// timeline.html (sim/report/timeline_html.h) and trace.txt / trace.jsonl (report.h) on real and
// synthetic runs: self-contained (nothing fetched), every lane named, the violation marked,
// byte-identical on re-rendering, a 100,000-event trace within the size cap with the elided
// events counted, the text trace one line per event, every JSONL line valid JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "model/gitlab/register.h"
#include "sim/report/bundle_write.h"
#include "sim/report/explain.h"
#include "sim/report/report.h"
#include "sim/report/timeline_html.h"
#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/lanes.h"
#include "sim/run/scenario.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

LoadedScenario load_limbo() {
  gitlab::register_gitlab_system();
  LoadedScenario loaded;
  std::string error;
  EXPECT_TRUE(load_scenario_file(
      std::string(WSIM_SOURCE_DIR) + "/corpus/regressions/gitlab/limbo-411205.textproto", loaded,
      error))
      << error;
  loaded.scenario.mutable_gitlab()->set_agent("A0a");  // The corpus file runs every version.
  EXPECT_TRUE(validate_scenario(loaded, error)) << error;
  return loaded;
}

RunResult run_kept(const LoadedScenario& loaded) {
  RunOptions options;
  options.keep_trace = true;
  options.record_choices = true;
  return execute_run(*loaded.system, loaded.scenario, options);
}

// No network, no file references: nothing in the page can make a browser fetch anything.
void expect_self_contained(const std::string& html) {
  for (const char* bad : {"http:", "https:", "//", "src=", "@import", "url(", "<link", "<img",
                          "<iframe", "fetch(", "XMLHttpRequest"}) {
    EXPECT_THAT(html, Not(HasSubstr(bad))) << bad;
  }
}

void expect_every_lane(const std::string& html) {
  for (int l = 0; l < kLaneCount; ++l) {
    const std::string name(lane_name(static_cast<Lane>(l)));
    EXPECT_THAT(html, HasSubstr(">" + name + "<br>")) << name;
  }
  for (const char* lane :
       {"user", "control plane", "agent", "API server", "kubelet", "ws-daemon", "storage"}) {
    EXPECT_THAT(html, HasSubstr(std::string(">") + lane + "<br>")) << lane;
  }
}

TEST(ReportTimeline, LanesOfActors) {
  // Generic actors: every run has them; no system is named in sim/run/lanes.cc (issue #31).
  EXPECT_EQ(generic_lane("user/alice"), Lane::kUser);
  EXPECT_EQ(generic_lane("kubectl"), Lane::kUser);
  EXPECT_EQ(generic_lane("namespace-controller"), Lane::kKubeControllers);
  EXPECT_EQ(generic_lane("kubelet/node-1"), Lane::kKubelet);
  EXPECT_EQ(generic_lane("wsim"), Lane::kHarness);
  EXPECT_EQ(generic_lane("martian"), Lane::kOther);
  EXPECT_EQ(generic_lane("rails"), Lane::kOther);  // A system's actor: only its map knows it.
  // A system's own actors come from System::actor_lanes().
  gitlab::register_gitlab_system();
  const System* gitlab = find_system("gitlab");
  ASSERT_NE(gitlab, nullptr);
  const LaneMap lanes(*gitlab);
  EXPECT_EQ(lanes.of("rails"), Lane::kControlPlane);
  EXPECT_EQ(lanes.of("agentk/informer"), Lane::kAgent);
  EXPECT_EQ(lanes.of("user/alice"), Lane::kUser);
  EXPECT_EQ(lanes.of("ws-manager"), Lane::kOther);  // Gitpod's, not GitLab's.
  EXPECT_EQ(lane_of_role(ActorRole::kNodeDaemon), Lane::kWsDaemon);
  EXPECT_EQ(lane_of_role(ActorRole::kStorage), Lane::kStorage);
  EXPECT_EQ(LaneMap().of("rails"), Lane::kOther);
  EXPECT_TRUE(is_fault_event(TraceEvent{0, "agentk", "get", "Pod/x", "lost", ""}));
  EXPECT_TRUE(is_fault_event(
      TraceEvent{0, "ws-manager", "update", "Pod/x", "Conflict", "fault kube.api.conflict"}));
  EXPECT_TRUE(is_fault_event(TraceEvent{0, "agentk", "get", "Pod/x", "503", ""}));
  EXPECT_FALSE(is_fault_event(TraceEvent{0, "agentk", "get", "Pod/x", "NotFound", ""}));
}

TEST(ReportTimeline, LimboBundleIsSelfContainedAndMarked) {
  const LoadedScenario loaded = load_limbo();
  const RunResult result = run_kept(loaded);
  ASSERT_TRUE(result.violation);
  const std::string html = render_timeline_html(*loaded.system, loaded.scenario, result);
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("<svg"));
  expect_self_contained(html);
  expect_every_lane(html);
  EXPECT_THAT(html, HasSubstr("class=\"ev violation\""));
  EXPECT_THAT(html, HasSubstr("violates " + result.violation->invariant_id));
  EXPECT_THAT(html, HasSubstr("kubectl delete Namespace/gl-rd-ns-ws-0"));
  EXPECT_THAT(html, HasSubstr("class=\"ev rep\""));  // Hours of polls, folded.
  EXPECT_THAT(html, HasSubstr("class=\"bT\""));      // ws-0's desired state: terminated.
  // Deterministic: the same run renders byte-identical HTML.
  EXPECT_EQ(html, render_timeline_html(*loaded.system, loaded.scenario, run_kept(loaded)));
}

TEST(ReportTimeline, BundleCarriesTheDiagram) {
  const LoadedScenario loaded = load_limbo();
  const RunResult result = run_kept(loaded);
  const std::string out = testing::scratch_dir("timeline-bundle");
  std::string path;
  std::string error;
  ASSERT_TRUE(write_bundle(out, *loaded.system, loaded.scenario, result, path, error)) << error;
  const std::string html = testing::read_text(path + "/timeline.html");
  EXPECT_EQ(html, render_timeline_html(*loaded.system, loaded.scenario, result));
  expect_self_contained(html);
}

// A synthetic run of `n` events: polls, API requests, faults, user actions, a violation last.
RunResult synthetic(std::size_t n) {
  RunResult result;
  result.verdict = Verdict::kSafety;
  result.violation = Violation{"synthetic.S1", "ws-7", "the synthetic invariant broke"};
  result.phase = RunPhase::kFault;
  const char* kinds[] = {"Pod", "ConfigMap", "Deployment"};
  TimeMs t = 0;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    t += static_cast<TimeMs>(i % 97 == 0 ? 400'000 : 37);
    const std::string ws = "ws-" + std::to_string(i % 13);
    switch (i % 11) {
      case 0:
        result.trace.push_back({t, "user", i % 2 ? "create" : "terminate", ws, "ok", ""});
        break;
      case 1:
        result.trace.push_back({t, "agentk", "apply", std::string(kinds[i % 3]) + "/ns/" + ws,
                                i % 7 == 0 ? "Conflict" : "ok",
                                i % 7 == 0 ? "fault kube.api.conflict" : "rv 5"});
        break;
      case 2:
        result.trace.push_back({t, "kubelet/node-1", "start", "Pod/ns/" + ws, "ok",
                                "a \"quoted\" <detail> & a tab\there"});
        break;
      case 3:
        result.trace.push_back({t, "agentk", "get", "Pod/ns/" + ws, "lost", "fault x: lost"});
        break;
      default:
        result.trace.push_back({t, "rails", "reconcile", "partial", "201", "0 infos in"});
    }
  }
  result.trace.push_back(
      {t, "wsim", "violation", "ws-7", "synthetic.S1", "broke", TraceKind::kViolation});
  result.culprit_event = result.trace.size() - 2;
  result.violation_event = result.trace.size() - 1;
  result.trace_events = result.trace.size();
  result.events = result.trace.size();
  result.end_ms = t;
  result.state = "ws-7: desired Terminated, actual Running\n";
  return result;
}

TEST(ReportTimeline, HundredThousandEventsStayUnderTheCap) {
  const LoadedScenario loaded = testing::scenario_from_text("seed: 1\ntoy {}\n");
  const RunResult result = synthetic(100'000);
  const std::string html = render_timeline_html(*loaded.system, loaded.scenario, result);
  EXPECT_LT(html.size(), 10u << 20);
  expect_self_contained(html);
  expect_every_lane(html);
  EXPECT_THAT(html, HasSubstr("events elided"));
  EXPECT_THAT(html, HasSubstr("violates synthetic.S1"));
  EXPECT_THAT(html, HasSubstr("&quot;quoted&quot; &lt;detail&gt; &amp;"));
  std::size_t groups = 0;
  for (std::size_t at = html.find("<g class=\"ev"); at != std::string::npos;
       at = html.find("<g class=\"ev", at + 1)) {
    ++groups;
  }
  EXPECT_LE(groups, kTimelineRowsMax);
  EXPECT_GT(groups, kTimelineRowsMax / 2);

  // The text trace: a header, then exactly one line per event.
  const std::string text = render_trace_text(*loaded.system, loaded.scenario, result);
  std::size_t lines = 0;
  std::size_t comments = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++lines;
    if (line.rfind("#", 0) == 0) ++comments;
  }
  EXPECT_EQ(lines - comments - 1, result.trace.size());  // -1: the column header.
  EXPECT_THAT(text, HasSubstr("<-- violates synthetic.S1\n"));
}

TEST(ReportTimeline, FiveThousandEventsAreSectioned) {
  const LoadedScenario loaded = testing::scenario_from_text("seed: 1\ntoy {}\n");
  const std::string html = render_timeline_html(*loaded.system, loaded.scenario, synthetic(5'000));
  // The story of ws-7 opens (its own rows capped); every section of the whole run starts folded.
  const std::size_t story_end = html.find("</details>", html.find("<details id=\"story\" open>"));
  ASSERT_NE(story_end, std::string::npos);
  EXPECT_THAT(html.substr(story_end), Not(HasSubstr("events elided")));  // Under the cap.
  EXPECT_THAT(html, Not(HasSubstr("<details open>")));
  EXPECT_THAT(html, HasSubstr("<details>"));
  EXPECT_THAT(html, HasSubstr("quiet for"));
}

TEST(ReportTimeline, WithoutAViolationSectionsOpenAsBefore) {
  const LoadedScenario loaded = testing::scenario_from_text("seed: 1\ntoy {}\n");
  RunResult result = synthetic(5'000);
  result.verdict = Verdict::kPass;
  result.violation.reset();
  result.culprit_event.reset();
  result.violation_event.reset();
  const std::string html = render_timeline_html(*loaded.system, loaded.scenario, result);
  EXPECT_THAT(html, Not(HasSubstr("id=\"story\"")));
  EXPECT_THAT(html, HasSubstr("<details open>"));  // The first and last sections.
  EXPECT_THAT(html, HasSubstr("<details>"));       // Middle sections start collapsed.
}

// The limbo bundle opens on ws-0's story: the events explain lists (key_events), marked with
// the first culprit explain names, above the folded whole run.
TEST(ReportTimeline, LimboOpensOnTheStoryOfTheFailingObject) {
  const LoadedScenario loaded = load_limbo();
  const RunResult result = run_kept(loaded);
  ASSERT_TRUE(result.violation);
  ASSERT_EQ(result.violation->object, "ws-0");
  const std::string html = render_timeline_html(*loaded.system, loaded.scenario, result);
  const std::size_t story = html.find("<details id=\"story\" open>");
  ASSERT_NE(story, std::string::npos);
  const std::size_t story_end = html.find("</details>", story);
  ASSERT_NE(story_end, std::string::npos);
  const std::string story_html = html.substr(story, story_end - story);
  EXPECT_THAT(html.substr(story_end), Not(HasSubstr("<details open>")));  // The rest folded.

  const std::vector<std::size_t> keys = key_events(*loaded.system, result, "ws-0");
  ASSERT_FALSE(keys.empty());
  std::size_t story_rows = 0;
  for (std::size_t at = story_html.find("<g class=\"st ev"); at != std::string::npos;
       at = story_html.find("<g class=\"st ev", at + 1)) {
    ++story_rows;
  }
  EXPECT_GE(story_rows, std::min(keys.size(), kTimelineStoryRowsMax - 1));
  EXPECT_LT(story_rows, result.trace.size() / 10);  // A story, not the whole run.
  EXPECT_THAT(story_html, HasSubstr("kubectl delete Namespace/gl-rd-ns-ws-0"));
  EXPECT_THAT(story_html, HasSubstr("st ev violation"));

  const std::optional<std::size_t> first = first_disturbing_event(*loaded.system, result, keys);
  ASSERT_TRUE(first.has_value());
  // The one row whose class says "first": its tooltip names trace event #first.
  std::vector<std::string> first_titles;
  for (std::size_t at = story_html.find("<g class=\"st ev"); at != std::string::npos;
       at = story_html.find("<g class=\"st ev", at + 1)) {
    const std::size_t classes_end = story_html.find('"', at + 10);
    const std::string classes = story_html.substr(at + 10, classes_end - at - 10);
    if (classes.find(" first") == std::string::npos) continue;
    const std::size_t title = story_html.find("<title>", at) + 7;
    first_titles.push_back(story_html.substr(title, story_html.find("</title>", title) - title));
  }
  ASSERT_EQ(first_titles.size(), 1u);
  EXPECT_THAT(first_titles[0], HasSubstr(" #" + std::to_string(*first) + " "));
  EXPECT_THAT(story_html, HasSubstr("first culprit (wsim explain)"));
  // Only the story's lanes are drawn in it: the storage lane has no limbo event.
  EXPECT_THAT(story_html, HasSubstr("(lanes: "));
  EXPECT_THAT(story_html, Not(HasSubstr("lanes: storage")));
}

}  // namespace
}  // namespace wsim::run
