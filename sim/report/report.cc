// The plain reports of a run (report.h): trace.txt, trace.jsonl, verdict.json, and the escaping
// and time formats they share.
#include "sim/report/report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "sim/core/assert.h"

#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/trace_view.h"
#include "sim/run/verdict_json.h"

namespace wsim::run {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 if it is not one.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  WSIM_ASSERT_LT(i, text.size());
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  std::uint32_t code = 0;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    code = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    code = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  // Overlong forms, surrogates and out-of-range code points are invalid.
  if ((n == 2 && code < 0x80) || (n == 3 && code < 0x800) || (n == 4 && code < 0x10000) ||
      code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    return 0;
  }
  WSIM_ASSERT_LE(i + n, text.size());  // A whole sequence, inside the text.
  return n;
}

}  // namespace

// "1h02m03.456s", "2m03.456s", "3.456s": virtual time as the rest of wsim prints it, with the
// milliseconds always shown so right-aligned columns line up.
std::string format_trace_time(TimeMs ms) {
  char buffer[48];
  const long long t = ms < 0 ? 0 : static_cast<long long>(ms);
  const long long h = t / 3'600'000;
  const long long m = t / 60'000 % 60;
  const long long s = t / 1000 % 60;
  const long long f = t % 1000;
  int written = 0;
  if (h > 0) {
    written = std::snprintf(buffer, sizeof buffer, "%lldh%02lldm%02lld.%03llds", h, m, s, f);
  } else if (m > 0) {
    written = std::snprintf(buffer, sizeof buffer, "%lldm%02lld.%03llds", m, s, f);
  } else {
    written = std::snprintf(buffer, sizeof buffer, "%lld.%03llds", s, f);
  }
  WSIM_ASSERT_GT(written, 0);
  WSIM_ASSERT_LT(written, static_cast<int>(sizeof buffer));  // Never truncated.
  return buffer;
}

namespace {

std::string time_column(TimeMs ms) { return format_trace_time(ms); }

std::string pad(std::string_view text, std::size_t width) {
  std::string out(text);
  if (out.size() < width) out.append(width - out.size(), ' ');
  WSIM_ASSERT_GE(out.size(), width);
  return out;
}

const char* mark_of(const RunResult& result, std::size_t index) {
  // One mark per event: the culprit comes before the harness's violation event.
  if (result.culprit_event && result.violation_event) {
    WSIM_ASSERT_NE(*result.culprit_event, *result.violation_event);
  }
  if (result.violation_event && *result.violation_event == index) return "violation";
  if (result.culprit_event && *result.culprit_event == index) return "culprit";
  return nullptr;
}

std::string headline(const System& system, const proto::Scenario& scenario,
                     const RunResult& result) {
  std::string out = std::string(verdict_name(result.verdict));
  if (result.violation) {
    out += " " + result.violation->invariant_id;
    if (!result.violation->object.empty()) out += " on " + result.violation->object;
  }
  out += " at " + format_duration_ms(result.end_ms) + " (" +
         std::string(run_phase_name(result.phase)) + " phase)";
  return out;
}

}  // namespace

std::string json_string(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    char buffer[8];
    switch (c) {
      case '"':
        out += "\\\"";
        ++i;
        continue;
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == 0x7f) {
      WSIM_ASSERT_EQ(std::snprintf(buffer, sizeof buffer, "\\u%04x", c), 6);
      out += buffer;
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);  // Not UTF-8: keep the byte visible.
      out += buffer;
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  out += '"';
  WSIM_ASSERT_GE(out.size(), text.size() + 2);  // Quoted; escapes only lengthen.
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  WSIM_ASSERT_GE(out.size(), text.size());
  return out;
}

std::string render_trace_text(const System& system, const proto::Scenario& scenario,
                              const RunResult& result) {
  WSIM_ASSERT(!system.name().empty());
  std::ostringstream out;
  out << "# " << headline(system, scenario, result) << "\n";
  if (result.violation) out << "# " << one_line_escaped(result.violation->message) << "\n";
  if (result.verdict == Verdict::kHarnessError) out << "# " << result.harness_error << "\n";
  out << "# seed " << result.seed << ", " << system.name() << " "
      << describe_config(scenario, system) << ", fingerprint " << format_hash(result.fingerprint)
      << "\n";
  out << "# >> the event after which the invariant was found violated; !! the verdict; "
         "<-- the event that violates the invariant\n";
  std::size_t w_time = 4;
  std::size_t w_actor = 5;
  std::size_t w_verb = 4;
  std::size_t w_object = 6;
  std::size_t w_result = 6;
  for (const TraceEvent& e : result.trace) {
    w_time = std::max(w_time, time_column(e.time_ms).size());
    w_actor = std::max(w_actor, std::min<std::size_t>(e.actor.size(), 28));
    w_verb = std::max(w_verb, std::min<std::size_t>(e.verb.size(), 20));
    w_object = std::max(w_object, std::min<std::size_t>(e.object.size(), 48));
    w_result = std::max(w_result, std::min<std::size_t>(e.result.size(), 20));
  }
  std::string time_header = "time";
  time_header.insert(0, w_time - time_header.size(), ' ');
  out << "   " << time_header << "  " << pad("actor", w_actor) << "  " << pad("verb", w_verb)
      << "  " << pad("object", w_object) << "  " << pad("result", w_result) << "  detail\n";
  // The event the "<-- violates" note goes on: the culprit of a safety violation, else the
  // harness's violation event (liveness has no culprit).
  const std::size_t violating = result.culprit_event     ? *result.culprit_event
                                : result.violation_event ? *result.violation_event
                                                         : result.trace.size();
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const TraceEvent& e = result.trace[i];
    const char* mark = mark_of(result, i);
    std::string time = time_column(e.time_ms);
    time.insert(0, w_time - std::min(w_time, time.size()), ' ');
    std::string line = std::string(mark == nullptr                       ? "   "
                                   : std::string_view(mark) == "culprit" ? ">> "
                                                                         : "!! ") +
                       time + "  " + pad(clip(one_line_escaped(e.actor), 28), w_actor) + "  " +
                       pad(clip(one_line_escaped(e.verb), 20), w_verb) + "  " +
                       pad(clip(one_line_escaped(e.object), 48), w_object) + "  " +
                       pad(clip(one_line_escaped(e.result), 20), w_result) + "  " +
                       one_line_escaped(e.detail);
    if (fired_fault(e)) line += "  [fault " + fault_names(e) + "]";
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (result.violation && i == violating)
      line += "  <-- violates " + result.violation->invariant_id;
    out << line << "\n";
  }
  if (result.trace.size() < result.trace_events) {
    out << "# (" << result.trace_events - result.trace.size() << " events not kept)\n";
  }
  return out.str();
}

std::string render_trace_jsonl(const RunResult& result) {
  std::string out;
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const TraceEvent& e = result.trace[i];
    out += "{\"i\":" + std::to_string(i) + ",\"time_ms\":" + std::to_string(e.time_ms) +
           ",\"actor\":" + json_string(e.actor) + ",\"verb\":" + json_string(e.verb) +
           ",\"object\":" + json_string(e.object) + ",\"result\":" + json_string(e.result) +
           ",\"detail\":" + json_string(e.detail) +
           ",\"kind\":" + json_string(trace_kind_name(e.kind));
    if (!e.faults.empty()) {
      out += ",\"faults\":[";
      for (std::size_t f = 0; f < e.faults.size(); ++f) {
        out += (f == 0 ? "" : ",") + json_string(e.faults[f]);
      }
      out += "]";
    }
    if (const char* mark = mark_of(result, i)) out += ",\"mark\":" + json_string(mark);
    out += "}\n";
  }
  // One line per event (json_string escapes newlines): read_trace parses it line by line.
  WSIM_ASSERT_EQ(static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n')),
                 result.trace.size());
  return out;
}

std::string render_verdict_json(const System& system, const proto::Scenario& scenario,
                                const RunResult& result) {
  // A protobuf message since issue #11 (verdict_json.h).
  return verdict_json(verdict_record(system, scenario, result));
}

}  // namespace wsim::run
