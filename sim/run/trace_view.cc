// Reading a trace (trace_view.h): which events are faults, symptoms, scripted markers or
// violations, which name an object, and one-line renderings for the reports.
#include "sim/run/trace_view.h"

#include <algorithm>
#include <iterator>

#include "sim/core/assert.h"

namespace wsim::run {
namespace {

bool starts_with(std::string_view text, std::string_view head) {
  return text.substr(0, head.size()) == head;
}

// Results that show a failure even when no fault point of the run fired in the step.
bool symptom_result(std::string_view result) {
  static constexpr std::string_view kResults[] = {
      "lost",   "Conflict", "Timeout", "InternalError", "ServiceUnavailable", "TooManyRequests",
      "failed", "gave up",  "Gone",    "refused"};
  if (std::find(std::begin(kResults), std::end(kResults), result) != std::end(kResults)) {
    return true;
  }
  return result.size() == 3 && result[0] == '5' && result[1] >= '0' && result[1] <= '9';
}

}  // namespace

std::string_view actor_prefix(std::string_view actor) { return actor.substr(0, actor.find('/')); }

bool is_violation(const TraceEvent& event) { return event.kind == TraceKind::kViolation; }

bool is_scripted_marker(const TraceEvent& event) { return event.kind == TraceKind::kScripted; }

bool redundant_scripted(const std::vector<TraceEvent>& trace, std::size_t i) {
  WSIM_ASSERT_LT(i, trace.size());
  if (!is_scripted_marker(trace[i]) || i + 1 >= trace.size()) return false;
  const TraceEvent& marker = trace[i];
  const TraceEvent& next = trace[i + 1];
  // The action's verb and the catalog action name one another by prefix: "delete" of
  // "delete_namespace", "start-reply" of "start".
  const bool same_action =
      starts_with(marker.verb, next.verb) || starts_with(next.verb, marker.verb);
  return next.time_ms == marker.time_ms && actor_prefix(next.actor) == actor_prefix(marker.actor) &&
         !next.verb.empty() && same_action;
}

bool fired_fault(const TraceEvent& event) { return !event.faults.empty(); }

bool is_fault_event(const TraceEvent& event) {
  return fired_fault(event) || is_fault_symptom(event);
}

bool is_fault_symptom(const TraceEvent& event) {
  if (symptom_result(event.result)) return true;
  if (starts_with(event.detail, "fault ") || event.detail.find(" fault ") != std::string::npos) {
    return true;  // An interceptor's scripted rule names the fault it plays.
  }
  static constexpr std::string_view kVerbs[] = {"fault",  "crash",          "down",
                                                "reject", "reject-running", "partition"};
  if (std::find(std::begin(kVerbs), std::end(kVerbs), event.verb) != std::end(kVerbs)) return true;
  return actor_prefix(event.actor) == "link";
}

std::string fault_names(const TraceEvent& event) {
  std::string out;
  for (const std::string& name : event.faults) {
    WSIM_ASSERT(!name.empty());  // Paired with Faults::declare: every point has a name.
    if (!out.empty()) out += ',';
    out += name;
  }
  return out;
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  WSIM_ASSERT_EQ(out.size(), text.size());  // One character for one: columns stay put.
  WSIM_ASSERT_EQ(out.find('\n'), std::string::npos);
  return out;
}

std::string one_line_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else {
      out += (c == '\t' || c == '\r') ? ' ' : c;
    }
  }
  WSIM_ASSERT_GE(out.size(), text.size());
  WSIM_ASSERT_EQ(out.find('\n'), std::string::npos);
  return out;
}

std::string clip(std::string_view text, std::size_t width) {
  WSIM_ASSERT_GE(width, 1u);
  if (text.size() <= width) return std::string(text);
  std::size_t cut = width - 1;
  // A continuation byte (10xxxxxx) at the cut means the sequence started before it: cut there.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  std::string out(text.substr(0, cut));
  out += '~';
  WSIM_ASSERT_LE(out.size(), width);
  return out;
}

namespace {

bool ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

bool names_object(std::string_view object, std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t at = object.find(name); at != std::string_view::npos;
       at = object.find(name, at + 1)) {
    const bool left_ok = at == 0 || !ascii_alnum(object[at - 1]);
    const std::size_t end = at + name.size();
    WSIM_ASSERT_LE(end, object.size());  // find() matched the whole name.
    const bool right_ok = end >= object.size() || !ascii_alnum(object[end]);
    if (left_ok && right_ok) return true;
  }
  return false;
}

}  // namespace wsim::run
