// sim/run/trace_view.h: the shared reading of a trace — typed kinds, fault names, UTF-8-safe
// clipping — that explain, the timeline, shrink, the report and signatures all use.
#include "sim/run/trace_view.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wsim::run {
namespace {

// True when `text` is well-formed UTF-8 (no sequence cut short).
bool valid_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : 4;
    if (i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

TEST(TraceView, ClipNeverCutsAUtf8CharacterAndKeepsTheWidth) {
  const std::string text = "namespace “gl-rd-ns-1” is terminating — ✓ done";
  for (std::size_t width = 1; width <= text.size() + 1; ++width) {
    const std::string clipped = clip(text, width);
    EXPECT_LE(clipped.size(), width) << width;
    EXPECT_TRUE(valid_utf8(clipped)) << width << ": " << clipped;
    if (width >= text.size()) {
      EXPECT_EQ(clipped, text);
    } else {
      EXPECT_EQ(clipped.back(), '~');
    }
  }
  // "é" is two bytes at offsets 1..2: a width of 3 keeps "a" and the marker, not half of "é".
  EXPECT_EQ(clip("aébc", 3), "a~");
}

TEST(TraceView, OneLineFlattensAndEscapedKeepsNewlinesVisible) {
  EXPECT_EQ(one_line("a\nb\tc\rd"), "a b c d");
  EXPECT_EQ(one_line_escaped("a\nb\tc\rd"), "a\\nb c d");
}

TEST(TraceView, KindsComeFromTheRecorderNotFromStrings) {
  const TraceEvent looks_scripted{1000, "user", "stop", "alice", "scripted", ""};
  const TraceEvent marker{1000, "user", "stop", "alice", "scripted", "", TraceKind::kScripted};
  const TraceEvent looks_violation{1000, "wsim", "violation", "ws-1", "x.S1", ""};
  const TraceEvent verdict{1000, "wsim", "violation", "ws-1", "x.S1", "", TraceKind::kViolation};
  EXPECT_FALSE(is_scripted_marker(looks_scripted));
  EXPECT_TRUE(is_scripted_marker(marker));
  EXPECT_FALSE(is_violation(looks_violation));
  EXPECT_TRUE(is_violation(verdict));
}

TEST(TraceView, ARedundantMarkerIsFollowedByItsOwnAction) {
  const TraceEvent marker{1000, "user", "stop", "alice", "scripted", "", TraceKind::kScripted};
  const std::vector<TraceEvent> followed = {marker, {1000, "user/alice", "stop", "ws-1", "ok"}};
  const std::vector<TraceEvent> other_verb = {marker, {1000, "user/alice", "start", "ws-1", "ok"}};
  const std::vector<TraceEvent> later = {marker, {1500, "user/alice", "stop", "ws-1", "ok"}};
  const TraceEvent kubectl{120000,     "kubectl", "delete_namespace",  "ws-0",
                           "scripted", "",        TraceKind::kScripted};
  const std::vector<TraceEvent> first_word = {
      kubectl, {120000, "kubectl", "delete", "Namespace/gl-rd-ns-ws-0", "ok"}};
  EXPECT_TRUE(redundant_scripted(first_word, 0));
  const std::vector<TraceEvent> alone = {marker};
  EXPECT_TRUE(redundant_scripted(followed, 0));
  EXPECT_FALSE(redundant_scripted(followed, 1));
  EXPECT_FALSE(redundant_scripted(other_verb, 0));
  EXPECT_FALSE(redundant_scripted(later, 0));
  EXPECT_FALSE(redundant_scripted(alone, 0));
}

TEST(TraceView, ANamedFaultMakesAFaultEventWhateverItsResult) {
  TraceEvent init{0, "ws-daemon/node-1", "init", "ws-1", "ok", "content init"};
  EXPECT_FALSE(fired_fault(init));
  EXPECT_FALSE(is_fault_event(init));
  EXPECT_EQ(fault_names(init), "");
  init.faults = {"ws-daemon.init_fail", "ws-daemon.crash"};
  EXPECT_TRUE(fired_fault(init));
  EXPECT_TRUE(is_fault_event(init));
  EXPECT_EQ(fault_names(init), "ws-daemon.init_fail,ws-daemon.crash");
}

TEST(TraceView, ActorPrefixIsTheNameBeforeTheSlash) {
  EXPECT_EQ(actor_prefix("user/alice"), "user");
  EXPECT_EQ(actor_prefix("agentk"), "agentk");
  EXPECT_EQ(actor_prefix(""), "");
}

}  // namespace
}  // namespace wsim::run
