// timeline.html (timeline_html.h): a run's trace drawn as lanes with messages, workspace bands,
// folded repeats, gaps and elided stretches, the failing object's story on top.
#include "sim/report/timeline_html.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/assert.h"
#include "sim/report/explain.h"
#include "sim/report/report.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/trace_view.h"

namespace wsim::run {

namespace {

// Geometry (pixels).
constexpr int kRowH = 16;
constexpr int kTimeRight = 92;  // Right edge of the time column.
constexpr int kBandLeft = 100;  // Workspace state bands.
constexpr int kBandW = 12;
constexpr int kBandsMax = 4;
constexpr int kLaneLeft = kBandLeft + kBandsMax * kBandW + 12;
constexpr int kLaneW = 92;
constexpr int kTextLeft = kLaneLeft + kLaneCount * kLaneW + 10;
constexpr int kWidth = kTextLeft + 760;
constexpr std::size_t kTextMax = 120;   // Characters of the row's text.
constexpr std::size_t kTitleMax = 600;  // Characters of a tooltip.
constexpr std::size_t kRepeatMin = 3;

std::string_view prefix(std::string_view actor) { return actor_prefix(actor); }

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool starts_with(std::string_view text, std::string_view head) {
  return text.substr(0, head.size()) == head;
}

int lane_x(Lane lane) {
  WSIM_ASSERT_GE(static_cast<int>(lane), 0);
  WSIM_ASSERT_LT(static_cast<int>(lane), kLaneCount);  // Inside the drawing's lane columns.
  return kLaneLeft + static_cast<int>(lane) * kLaneW + kLaneW / 2;
}

bool success(std::string_view result) {
  return result == "ok" || result == "OK" || result == "200" || result == "201";
}

bool is_api_verb(std::string_view verb) {
  static constexpr std::string_view kVerbs[] = {
      "get",    "list",  "watch",  "create",           "apply",
      "update", "patch", "delete", "deletecollection", "update-status"};
  return std::find(std::begin(kVerbs), std::end(kVerbs), verb) != std::end(kVerbs);
}

// "Deployment/ns/name" or "Deployment": a Kubernetes object reference.
bool is_kube_object(std::string_view object) {
  return !object.empty() && object[0] >= 'A' && object[0] <= 'Z';
}

bool is_watch_notification(const TraceEvent& e) {
  return e.verb == "watch" &&
         (e.result == "added" || e.result == "modified" || e.result == "deleted" ||
          e.result == "Gone" || e.result == "bookmark");
}

// The message an event carries, as (from, to) lanes, when it clearly is one.
std::optional<std::pair<Lane, Lane>> message_of(const LaneMap& lanes, const TraceEvent& e) {
  const Lane lane = lanes.of(e.actor);
  if (is_scripted_marker(e)) return std::nullopt;
  if (is_watch_notification(e)) return std::make_pair(Lane::kApiServer, lane);
  if (lane != Lane::kApiServer && is_api_verb(e.verb) && is_kube_object(e.object)) {
    return std::make_pair(lane, Lane::kApiServer);
  }
  // An agent's exchange with its control plane, recorded by either side.
  if ((lane == Lane::kControlPlane || lane == Lane::kAgent) && e.verb == "reconcile") {
    return std::make_pair(Lane::kAgent, Lane::kControlPlane);
  }
  if (lane == Lane::kUser && !is_kube_object(e.object) && !e.object.empty()) {
    if (ends_with(e.verb, "-reply")) return std::make_pair(Lane::kControlPlane, Lane::kUser);
    return std::make_pair(Lane::kUser, Lane::kControlPlane);
  }
  if (lane == Lane::kWsDaemon && (e.verb == "backup" || e.verb == "restore")) {
    return std::make_pair(Lane::kWsDaemon, Lane::kStorage);
  }
  return std::nullopt;
}

std::string event_text(const TraceEvent& e) {
  std::string text = e.actor + " " + e.verb;
  if (!e.object.empty()) text += " " + e.object;
  text += " " + e.result;
  if (!e.detail.empty()) text += "  " + e.detail;
  return one_line(text);
}

// ---- workspace bands ----------------------------------------------------------------------

enum class Desired { kNone, kRunning, kStopped, kTerminated };

const char* desired_class(Desired d) {
  switch (d) {
    case Desired::kRunning:
      return "bR";
    case Desired::kStopped:
      return "bS";
    case Desired::kTerminated:
      return "bT";
    case Desired::kNone:
      break;
  }
  WSIM_ASSERT(d == Desired::kNone);  // Every other state has its band class.
  return "";
}

struct Bands {
  std::vector<std::string> workspaces;   // At most kBandsMax, the violating one first.
  std::vector<std::vector<Desired>> at;  // at[w][event index]: desired state after the event.
};

// The workspace a user event concerns: "user/alice ..." → alice; else its object, with an
// instance suffix ("alice-1") folded into a known workspace ("alice").
std::string workspace_of(const TraceEvent& e, const std::vector<std::string>& known) {
  std::string key;
  const std::size_t slash = e.actor.find('/');
  if (slash != std::string::npos) {
    key = e.actor.substr(slash + 1);
  } else {
    key = e.object;
  }
  for (const std::string& k : known) {
    if (key.size() > k.size() + 1 && starts_with(key, k) && key[k.size()] == '-' &&
        std::all_of(key.begin() + static_cast<std::ptrdiff_t>(k.size()) + 1, key.end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      WSIM_ASSERT_LT(k.size(), key.size());  // An instance folds into a shorter name.
      return k;
    }
  }
  return key;
}

std::optional<Desired> desired_after(const TraceEvent& e) {
  if (prefix(e.actor) != "user" || !success(e.result) || is_kube_object(e.object) ||
      e.object.empty()) {
    return std::nullopt;
  }
  std::string_view verb = e.verb;
  if (ends_with(verb, "-reply")) verb = verb.substr(0, verb.size() - 6);
  if (verb == "create" || verb == "start" || verb == "restart") return Desired::kRunning;
  if (verb == "stop") return Desired::kStopped;
  if (verb == "terminate" || verb == "delete") return Desired::kTerminated;
  return std::nullopt;
}

Bands derive_bands(const RunResult& result) {
  Bands bands;
  const std::vector<TraceEvent>& trace = result.trace;
  std::vector<std::string> all;
  for (const TraceEvent& e : trace) {
    if (!desired_after(e)) continue;
    const std::string w = workspace_of(e, all);
    if (std::find(all.begin(), all.end(), w) == all.end()) all.push_back(w);
  }
  if (all.empty()) return bands;
  if (result.violation) {
    auto it = std::find(all.begin(), all.end(), result.violation->object);
    if (it != all.end()) std::rotate(all.begin(), it, it + 1);
  }
  if (all.size() > static_cast<std::size_t>(kBandsMax)) all.resize(kBandsMax);
  bands.workspaces = all;
  std::vector<std::string> known = all;
  bands.at.assign(all.size(), std::vector<Desired>(trace.size(), Desired::kNone));
  std::vector<Desired> now(all.size(), Desired::kNone);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (auto d = desired_after(trace[i])) {
      const std::string w = workspace_of(trace[i], known);
      auto it = std::find(all.begin(), all.end(), w);
      if (it != all.end()) now[static_cast<std::size_t>(it - all.begin())] = *d;
    }
    for (std::size_t w = 0; w < all.size(); ++w) bands.at[w][i] = now[w];
  }
  WSIM_ASSERT_LE(bands.workspaces.size(), static_cast<std::size_t>(kBandsMax));
  WSIM_ASSERT_EQ(bands.at.size(), bands.workspaces.size());  // One band per workspace.
  return bands;
}

// ---- rows ---------------------------------------------------------------------------------

enum class RowKind { kEvent, kRepeat, kGap, kElided };

struct Row {
  RowKind kind = RowKind::kEvent;
  std::size_t first = 0;  // Trace indices (kEvent, kRepeat).
  std::size_t last = 0;
  std::size_t count = 1;  // Events in the row (kRepeat, kElided).
  TimeMs from_ms = 0;     // kGap, kElided: the stretch.
  TimeMs to_ms = 0;
  bool marked = false;
  bool fault = false;
  bool external = false;
};

bool same_signature(const TraceEvent& a, const TraceEvent& b) {
  return a.actor == b.actor && a.verb == b.verb && a.object == b.object && a.result == b.result;
}

// One row per event, runs of >= kRepeatMin identical unmarked events folded into one.
std::vector<Row> event_rows(const LaneMap& lanes, const RunResult& result) {
  const std::vector<TraceEvent>& trace = result.trace;
  auto marked = [&](std::size_t i) {
    return (result.culprit_event && *result.culprit_event == i) ||
           (result.violation_event && *result.violation_event == i) || is_violation(trace[i]);
  };
  std::vector<Row> rows;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (redundant_scripted(trace, i)) continue;
    Row row;
    row.first = row.last = i;
    row.marked = marked(i);
    row.fault = is_fault_event(trace[i]);
    row.external = lanes.of(trace[i].actor) == Lane::kUser;
    if (!row.marked) {
      std::size_t j = i + 1;
      while (j < trace.size() && same_signature(trace[j], trace[i]) && !marked(j)) ++j;
      if (j - i >= kRepeatMin) {
        row.kind = RowKind::kRepeat;
        row.last = j - 1;
        row.count = j - i;
        for (std::size_t k = i; k < j; ++k) row.fault = row.fault || is_fault_event(trace[k]);
        i = j - 1;
      }
    }
    WSIM_ASSERT_LE(row.first, row.last);
    WSIM_ASSERT_LT(row.last, trace.size());
    rows.push_back(row);
  }
  return rows;
}

// The cap: at most kTimelineRowsMax rows — first and last rows, marked rows, then external
// actions, then faults; each run of dropped rows becomes one elided row. Returns the events
// elided.
std::size_t cap_rows(const std::vector<TraceEvent>& trace, std::vector<Row>& rows) {
  std::size_t elided_events = 0;
  if (rows.size() > kTimelineRowsMax) {
    std::vector<bool> keep(rows.size(), false);
    std::size_t budget = kTimelineRowsMax;
    const std::size_t edge = kTimelineRowsMax / 4;
    auto take = [&](std::size_t r) {
      if (!keep[r] && budget > 0) {
        keep[r] = true;
        --budget;
      }
    };
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r].marked) take(r);
    }
    for (std::size_t r = 0; r < edge; ++r) take(r);
    for (std::size_t r = rows.size() - edge; r < rows.size(); ++r) take(r);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r].external) take(r);
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r].fault) take(r);
    }
    std::vector<Row> kept;
    for (std::size_t r = 0; r < rows.size();) {
      if (keep[r]) {
        kept.push_back(rows[r++]);
        continue;
      }
      Row elided;
      elided.kind = RowKind::kElided;
      elided.count = 0;
      elided.from_ms = trace[rows[r].first].time_ms;
      while (r < rows.size() && !keep[r]) {
        elided.count += rows[r].last - rows[r].first + 1;
        elided.fault = elided.fault || rows[r].fault;
        elided.to_ms = trace[rows[r].last].time_ms;
        ++r;
      }
      WSIM_ASSERT_GT(elided.count, 0u);  // An elided row stands for dropped events.
      elided_events += elided.count;
      kept.push_back(elided);
    }
    rows = std::move(kept);
    // At most kTimelineRowsMax kept rows, with at most one elided row between two of them.
    WSIM_ASSERT_LE(rows.size(), 2 * kTimelineRowsMax + 1);
  }
  return elided_events;
}

// A gap row before each stretch of more than kTimelineGapMs without events.
std::vector<Row> with_gaps(const std::vector<TraceEvent>& trace, const std::vector<Row>& rows) {
  std::vector<Row> out;
  std::optional<TimeMs> previous;
  for (const Row& row : rows) {
    const TimeMs start = row.kind == RowKind::kElided ? row.from_ms : trace[row.first].time_ms;
    if (previous && start - *previous > kTimelineGapMs) {
      Row gap;
      gap.kind = RowKind::kGap;
      gap.from_ms = *previous;
      gap.to_ms = start;
      gap.count = 0;
      out.push_back(gap);
    }
    previous = row.kind == RowKind::kElided ? row.to_ms : trace[row.last].time_ms;
    out.push_back(row);
  }
  WSIM_ASSERT_GE(out.size(), rows.size());  // Gaps are added, rows never dropped.
  return out;
}

std::vector<Row> build_rows(const LaneMap& lanes, const RunResult& result,
                            std::size_t& elided_events) {
  std::vector<Row> rows = event_rows(lanes, result);
  elided_events = cap_rows(result.trace, rows);
  WSIM_ASSERT_LE(elided_events, result.trace.size());
  return with_gaps(result.trace, rows);
}

// ---- drawing ------------------------------------------------------------------------------

std::string num(long long v) { return std::to_string(v); }

void arrow(std::string& out, Lane from, Lane to, int y, bool fault, bool lost) {
  WSIM_ASSERT_GE(y, 0);
  const int x1 = lane_x(from);
  int x2 = lane_x(to);
  const int dir = x2 > x1 ? 1 : -1;
  if (lost) x2 = (x1 + x2) / 2;  // A lost message stops halfway, with a cross.
  const char* css = fault ? "m f" : "m";
  out += "<line class=\"" + std::string(css) + "\" x1=\"" + num(x1 + dir * 5) + "\" y1=\"" +
         num(y) + "\" x2=\"" + num(x2 - dir * 5) + "\" y2=\"" + num(y) + "\"/>";
  if (lost) {
    out += "<path class=\"x\" d=\"M" + num(x2 - 4) + " " + num(y - 4) + "l8 8m0 -8l-8 8\"/>";
  } else {
    const int tip = x2 - dir * 5;
    out += "<path class=\"h" + std::string(fault ? " f" : "") + "\" d=\"M" + num(tip) + " " +
           num(y) + "l" + num(-dir * 6) + " -3v6z\"/>";
  }
}

struct Page {
  const System& system;
  const LaneMap& lanes;
  const proto::Scenario& scenario;
  const RunResult& result;
  const Bands& bands;
  std::string violates;  // Invariant id, for the "<-- violates" note.
  std::size_t violating = SIZE_MAX;
  std::size_t first_culprit = SIZE_MAX;  // first_disturbing_event (explain.h), if any.
};

void draw_bands(std::string& out, const Page& page, const std::vector<Row>& rows, std::size_t begin,
                std::size_t end) {
  WSIM_ASSERT_LE(begin, end);
  WSIM_ASSERT_LE(end, rows.size());
  for (std::size_t w = 0; w < page.bands.workspaces.size(); ++w) {
    const int x = kBandLeft + static_cast<int>(w) * kBandW + 2;
    // The state at each row: that after its last event; gaps and elided rows keep the state of
    // the row before them.
    std::vector<Desired> state(end - begin, Desired::kNone);
    Desired d = Desired::kNone;
    for (std::size_t r = 0; r < end; ++r) {
      if (rows[r].kind == RowKind::kEvent || rows[r].kind == RowKind::kRepeat) {
        d = page.bands.at[w][rows[r].last];
      }
      if (r >= begin) state[r - begin] = d;
    }
    for (std::size_t r = 0; r < state.size();) {
      std::size_t next = r + 1;
      while (next < state.size() && state[next] == state[r]) ++next;
      if (state[r] != Desired::kNone) {
        out += "<rect class=\"" + std::string(desired_class(state[r])) + "\" x=\"" + num(x) +
               "\" y=\"" + num(static_cast<long long>(r) * kRowH) + "\" width=\"" +
               num(kBandW - 4) + "\" height=\"" + num(static_cast<long long>(next - r) * kRowH) +
               "\"><title>" + html_escape(page.bands.workspaces[w]) + ": desired " +
               (state[r] == Desired::kRunning   ? "running"
                : state[r] == Desired::kStopped ? "stopped"
                                                : "terminated") +
               "</title></rect>";
      }
      r = next;
    }
  }
}

// A quiet stretch (kGap) or elided rows (kElided): one full-width row with a note.
void draw_stretch_row(std::string& out, const Row& row, int y) {
  WSIM_ASSERT(row.kind == RowKind::kGap || row.kind == RowKind::kElided);
  const int mid = y + kRowH / 2;
  const int base = y + kRowH - 4;
  const bool gap = row.kind == RowKind::kGap;
  out += "<g class=\"" + std::string(gap ? "gap" : "eli") + "\"><rect x=\"0\" y=\"" + num(y) +
         "\" width=\"" + num(kWidth) + "\" height=\"" + num(kRowH) + "\"/><line x1=\"" +
         num(kLaneLeft) + "\" y1=\"" + num(mid) + "\" x2=\"" + num(kTextLeft - 10) + "\" y2=\"" +
         num(mid) + "\"/><text x=\"" + num(kTextLeft) + "\" y=\"" + num(base) + "\">";
  if (gap) {
    out += "&#8942; quiet for " + format_duration_ms(row.to_ms - row.from_ms) + " (" +
           format_trace_time(row.from_ms) + " &#8594; " + format_trace_time(row.to_ms) + ")";
  } else {
    out += "&#8942; " + num(static_cast<long long>(row.count)) + " events elided (" +
           format_trace_time(row.from_ms) + " &#8594; " + format_trace_time(row.to_ms) +
           (row.fault ? ", some faults" : "") + "); see trace.txt";
  }
  out += "</text></g>\n";
}

void draw_row(std::string& out, const Page& page, const Row& row, int y) {
  const std::vector<TraceEvent>& trace = page.result.trace;
  const int mid = y + kRowH / 2;
  const int base = y + kRowH - 4;
  if (row.kind == RowKind::kGap || row.kind == RowKind::kElided) {
    draw_stretch_row(out, row, y);
    return;
  }
  const TraceEvent& e = trace[row.first];
  const bool culprit = page.result.culprit_event && *page.result.culprit_event == row.first;
  const bool violation = is_violation(e);
  const bool lost = e.result == "lost";
  std::string css = "ev";
  const bool first = row.first == page.first_culprit && row.kind == RowKind::kEvent;
  if (culprit) css += " culprit";
  if (first) css += " first";
  if (violation) css += " violation";
  if (row.fault) css += " fault";
  if (is_scripted_marker(e)) css += " scripted";
  if (row.kind == RowKind::kRepeat) css += " rep";
  out += "<g class=\"" + css + "\"><title>";
  if (row.kind == RowKind::kRepeat) {
    out +=
        html_escape(num(static_cast<long long>(row.count)) + " × (" + format_trace_time(e.time_ms) +
                    " to " + format_trace_time(trace[row.last].time_ms) + ") ");
  } else {
    out += html_escape(format_trace_time(e.time_ms) + " #" +
                       num(static_cast<long long>(row.first)) + " ");
  }
  out += html_escape(clip(event_text(e), kTitleMax)) + "</title>";
  if (culprit || violation || first) {
    out += "<rect class=\"hl\" x=\"0\" y=\"" + num(y) + "\" width=\"" + num(kWidth) +
           "\" height=\"" + num(kRowH) + "\"/>";
  }
  out += "<text class=\"t\" x=\"" + num(kTimeRight) + "\" y=\"" + num(base) + "\">" +
         format_trace_time(e.time_ms) + "</text>";
  const Lane lane = page.lanes.of(e.actor);
  if (violation) {
    out += "<line class=\"vl\" x1=\"" + num(kLaneLeft) + "\" y1=\"" + num(mid) + "\" x2=\"" +
           num(kTextLeft - 10) + "\" y2=\"" + num(mid) + "\"/>";
  }
  if (auto message = message_of(page.lanes, e))
    arrow(out, message->first, message->second, mid, row.fault, lost);
  const int x = lane_x(lane);
  if (row.first == page.violating && !page.violates.empty()) {
    out += "<text class=\"vt\" x=\"" + num(x - 12) + "\" y=\"" + num(base) + "\">violates " +
           html_escape(page.violates) + "</text>";
  }
  if (violation) {
    out += "<path class=\"vm\" d=\"M" + num(x) + " " + num(mid - 7) + "l7 7l-7 7l-7 -7z\"/>";
  } else if (row.kind == RowKind::kRepeat) {
    out += "<rect class=\"dot\" x=\"" + num(x - 5) + "\" y=\"" + num(mid - 5) +
           "\" width=\"10\" height=\"10\"/>";
  } else {
    out += "<circle class=\"dot\" cx=\"" + num(x) + "\" cy=\"" + num(mid) + "\" r=\"4\"/>";
  }
  std::string text;
  if (row.kind == RowKind::kRepeat) {
    text = "×" + num(static_cast<long long>(row.count)) + " until " +
           format_trace_time(trace[row.last].time_ms) + "  ";
  }
  text += event_text(e);
  out += "<text class=\"d\" x=\"" + num(kTextLeft) + "\" y=\"" + num(base) + "\">" +
         html_escape(clip(text, kTextMax));
  if (row.first == page.violating && !page.violates.empty()) {
    out += "<tspan class=\"vn\">  &lt;-- violates " + html_escape(page.violates) + "</tspan>";
  }
  if (first) out += "<tspan class=\"fc\">  &lt;-- first culprit (wsim explain)</tspan>";
  out += "</text></g>\n";
}

// The lane lines; with `only`, just the lanes it marks.
void draw_lane_lines(std::string& out, int height, const std::vector<bool>* only = nullptr) {
  if (only != nullptr) WSIM_ASSERT_EQ(only->size(), static_cast<std::size_t>(kLaneCount));
  for (int l = 0; l < kLaneCount; ++l) {
    if (only != nullptr && !(*only)[static_cast<std::size_t>(l)]) continue;
    const int x = lane_x(static_cast<Lane>(l));
    out += "<line class=\"lane\" x1=\"" + num(x) + "\" y1=\"0\" x2=\"" + num(x) + "\" y2=\"" +
           num(height) + "\"/>";
  }
}

// ---- the story ---------------------------------------------------------------------------

// The events of the failing object's story: explain's key events (key_events), the culprit, the
// violation and the first culprit, in trace order; at most kTimelineStoryRowsMax rows, the first
// quarter and the rest nearest the violation, with the cut counted in an elided row.
std::vector<Row> story_rows(const Page& page, const std::vector<std::size_t>& keys) {
  const RunResult& result = page.result;
  std::vector<std::size_t> indices = keys;
  for (std::size_t extra : {page.violating, page.first_culprit}) {
    if (extra < result.trace.size()) indices.push_back(extra);
  }
  if (result.violation_event) indices.push_back(*result.violation_event);
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::vector<Row> rows;
  for (std::size_t i : indices) {
    WSIM_ASSERT_LT(i, result.trace.size());  // key_events and the marks index the trace.
    Row row;
    row.first = row.last = i;
    row.marked = i == page.violating || i == page.first_culprit || is_violation(result.trace[i]);
    row.fault = is_fault_event(result.trace[i]);
    rows.push_back(row);
  }
  if (rows.size() <= kTimelineStoryRowsMax) return rows;
  const std::size_t head = kTimelineStoryRowsMax / 4;
  const std::size_t tail = kTimelineStoryRowsMax - head - 1;
  Row elided;
  elided.kind = RowKind::kElided;
  elided.count = rows.size() - head - tail;
  elided.from_ms = result.trace[rows[head].first].time_ms;
  elided.to_ms = result.trace[rows[rows.size() - tail - 1].first].time_ms;
  std::vector<Row> kept(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(head));
  kept.push_back(elided);
  kept.insert(kept.end(), rows.end() - static_cast<std::ptrdiff_t>(tail), rows.end());
  WSIM_ASSERT_EQ(kept.size(), kTimelineStoryRowsMax);  // The head, one elided row, the tail.
  return kept;
}

// The lanes the story's events are on or send messages to.
std::vector<bool> story_lanes(const Page& page, const std::vector<Row>& rows) {
  std::vector<bool> lanes(kLaneCount, false);
  for (const Row& row : rows) {
    if (row.kind != RowKind::kEvent) continue;
    const TraceEvent& e = page.result.trace[row.first];
    WSIM_ASSERT_LT(static_cast<std::size_t>(page.lanes.of(e.actor)), lanes.size());
    lanes[static_cast<std::size_t>(page.lanes.of(e.actor))] = true;
    if (auto message = message_of(page.lanes, e)) {
      lanes[static_cast<std::size_t>(message->first)] = true;
      lanes[static_cast<std::size_t>(message->second)] = true;
    }
  }
  return lanes;
}

// The open section at the top: the failing object's lanes and the events that touched it.
void draw_story(std::string& out, const Page& page, const std::string& object,
                const std::vector<Row>& rows, std::size_t keys_count) {
  WSIM_ASSERT_LE(keys_count, page.result.trace.size());
  const std::vector<bool> lanes = story_lanes(page, rows);
  std::string lane_names;
  for (int l = 0; l < kLaneCount; ++l) {
    if (!lanes[static_cast<std::size_t>(l)]) continue;
    lane_names += (lane_names.empty() ? "" : ", ") + std::string(lane_name(static_cast<Lane>(l)));
  }
  out += "<details id=\"story\" open><summary>The story of " + html_escape(object) + ": " +
         num(static_cast<long long>(keys_count)) + " of " +
         num(static_cast<long long>(page.result.trace.size())) +
         " events touched it (lanes: " + html_escape(lane_names) +
         "); the whole run is below, folded</summary>\n";
  const int height = static_cast<int>(rows.size()) * kRowH;
  out += "<svg width=\"" + num(kWidth) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " +
         num(kWidth) + " " + num(height) + "\">\n";
  draw_lane_lines(out, height, &lanes);
  draw_bands(out, page, rows, 0, rows.size());
  out += "\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string row;
    draw_row(row, page, rows[r], static_cast<int>(r) * kRowH);
    // Story rows are "st ev ...": the same look, told apart from the full timeline's rows.
    if (row.rfind("<g class=\"ev", 0) == 0) row.insert(10, "st ");
    out += row;
  }
  out += "</svg>\n</details>\n";
}

constexpr std::string_view kLaneSub[kLaneCount] = {
    "user kubectl", "Rails/ws-manager", "agentk", "kube-apiserver", "scheduler GC ns", "nodes",
    "per node",     "backups",          "",       "harness"};

// The sticky lane header: time, the workspace bands, the lanes, the event text.
void draw_lane_header(std::string& out, const Bands& bands) {
  WSIM_ASSERT_LE(bands.workspaces.size(), static_cast<std::size_t>(kBandsMax));  // Columns.
  out += "<div id=\"lanes\" style=\"width:" + num(kWidth) + "px\">";
  out += "<div style=\"left:0;width:" + num(kTimeRight) + "px;text-align:right\">time</div>";
  for (std::size_t w = 0; w < bands.workspaces.size(); ++w) {
    out += "<div class=\"ws\" style=\"left:" + num(kBandLeft + static_cast<int>(w) * kBandW) +
           "px;width:" + num(kBandW) + "px\">" + html_escape(clip(bands.workspaces[w], 8)) +
           "</div>";
  }
  for (int l = 0; l < kLaneCount; ++l) {
    out += "<div style=\"left:" + num(kLaneLeft + l * kLaneW) + "px;width:" + num(kLaneW) +
           "px\">" + std::string(lane_name(static_cast<Lane>(l))) + "<br><small>" +
           std::string(kLaneSub[l]) + "</small></div>";
  }
  out += "<div style=\"left:" + num(kTextLeft) + "px;text-align:left\">event</div></div>\n";
}

// The whole run in sections of kTimelineSectionRows rows; `folded`: all start closed (the story
// is open above them), else the first, last and marked ones are open.
void draw_sections(std::string& out, const Page& page, const std::vector<Row>& rows, bool folded) {
  const std::vector<TraceEvent>& trace = page.result.trace;
  for (std::size_t begin = 0; begin < rows.size(); begin += kTimelineSectionRows) {
    const std::size_t end = std::min(rows.size(), begin + kTimelineSectionRows);
    WSIM_ASSERT_LT(begin, end);  // A section is never empty.
    bool marked = false;
    std::size_t section_faults = 0;
    std::size_t events = 0;
    std::optional<TimeMs> t0;
    TimeMs t1 = 0;
    for (std::size_t r = begin; r < end; ++r) {
      const Row& row = rows[r];
      if (row.kind == RowKind::kGap) continue;
      const TimeMs from = row.kind == RowKind::kElided ? row.from_ms : trace[row.first].time_ms;
      const TimeMs to = row.kind == RowKind::kElided ? row.to_ms : trace[row.last].time_ms;
      if (!t0) t0 = from;
      t1 = to;
      marked = marked || row.marked;
      if (row.kind != RowKind::kElided && row.fault) ++section_faults;
      events += row.kind == RowKind::kEvent ? 1 : row.count;
    }
    const bool open = !folded && (begin == 0 || end == rows.size() || marked);
    out += std::string("<details") + (open ? " open" : "") + "><summary>rows " +
           num(static_cast<long long>(begin + 1)) + "&#8211;" + num(static_cast<long long>(end)) +
           ": " + format_trace_time(t0.value_or(0)) + " &#8594; " + format_trace_time(t1) + ", " +
           num(static_cast<long long>(events)) + " events" +
           (section_faults > 0 ? ", " + num(static_cast<long long>(section_faults)) + " with faults"
                               : std::string()) +
           (marked ? ", <b>violation</b>" : "") + "</summary>\n";
    const int height = static_cast<int>(end - begin) * kRowH;
    out += "<svg width=\"" + num(kWidth) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " +
           num(kWidth) + " " + num(height) + "\">\n";
    draw_lane_lines(out, height);
    draw_bands(out, page, rows, begin, end);
    out += "\n";
    for (std::size_t r = begin; r < end; ++r) {
      // An event row names trace events (draw_row reads them).
      const bool event = rows[r].kind == RowKind::kEvent || rows[r].kind == RowKind::kRepeat;
      if (event) WSIM_ASSERT_LT(rows[r].last, trace.size());
      draw_row(out, page, rows[r], static_cast<int>(r - begin) * kRowH);
    }
    out += "</svg>\n</details>\n";
  }
}

// The legend line, with the workspace bands when there are any, and the expand/collapse buttons.
void draw_legend(std::string& out, bool with_bands) {
  out +=
      "<p class=\"legend\"><span><span class=\"sw\" style=\"background:#6b7b8c\">"
      "</span>event</span><span><span class=\"sw\" style=\"background:#fff;border-color:"
      "#2a5db0\"></span>scripted</span><span><span class=\"sw\" style=\"background:#a9b6c4\">"
      "</span>repeated &#215;N</span><span><span class=\"sw\" style=\"background:#d00\">"
      "</span>fault (lost, Conflict, 5xx, injected)</span><span><span class=\"sw\" "
      "style=\"background:#f8d7da\"></span>violation</span><span><span class=\"sw\" "
      "style=\"background:#fff3cd\"></span>culprit event</span>";
  if (with_bands) {
    out +=
        "<span>bands: desired state from user actions: <span class=\"sw\" "
        "style=\"background:#8fd18a\"></span>running <span class=\"sw\" "
        "style=\"background:#bbb\"></span>stopped <span class=\"sw\" "
        "style=\"background:#a98bd6\"></span>terminated</span>";
  }
  out +=
      "<button onclick=\"setAll(true)\">expand all</button> <button "
      "onclick=\"setAll(false)\">collapse all</button></p>\n</header>\n";
}

std::string headline(const System& system, const proto::Scenario& scenario,
                     const RunResult& result) {
  WSIM_ASSERT(!system.name().empty());
  std::string out = system.name() + " seed " + std::to_string(result.seed) + ": " +
                    std::string(verdict_name(result.verdict));
  if (result.violation) {
    out += " " + result.violation->invariant_id;
    if (!result.violation->object.empty()) out += " on " + result.violation->object;
  }
  out += " at " + format_trace_time(result.end_ms) + " (" +
         std::string(run_phase_name(result.phase)) + " phase)";
  (void)scenario;
  return out;
}

constexpr const char* kStyle = R"(
body{font:12px ui-monospace,Menlo,Consolas,"DejaVu Sans Mono",monospace;margin:0;color:#222;background:#fff}
header{padding:10px 14px 6px}
h1{font-size:15px;margin:0 0 4px}
p{margin:2px 0}
.msg{color:#a00;font-weight:bold}
.legend span{display:inline-block;margin-right:14px}
.sw{display:inline-block;width:10px;height:10px;vertical-align:middle;margin-right:3px;border:1px solid #888}
#lanes{position:sticky;top:0;background:#f4f4f4;border-bottom:1px solid #bbb;height:34px;z-index:2}
#lanes div{position:absolute;top:3px;text-align:center;font-weight:bold;font-size:11px;line-height:13px}
#lanes div small{font-weight:normal;color:#666}
#lanes div.ws{font-weight:normal;writing-mode:vertical-rl;transform:rotate(180deg);height:30px;top:2px;font-size:10px}
details{border-top:1px solid #ddd}
summary{cursor:pointer;padding:3px 14px;background:#fafafa;color:#444}
svg{display:block}
.lane{stroke:#d8d8d8;stroke-width:1}
.t{text-anchor:end;fill:#666}
.d{fill:#222;white-space:pre}
.dot{fill:#6b7b8c}
.ev.scripted .dot{fill:#fff;stroke:#2a5db0;stroke-width:1.5}
.ev.rep .dot{fill:#a9b6c4}
.ev.fault .dot{fill:#d00}
.ev.fault .d{fill:#b00}
.m{stroke:#7d8fa3;stroke-width:1.2}
.h{fill:#7d8fa3}
.m.f{stroke:#d00;stroke-dasharray:4 2}
.h.f{fill:#d00}
.x{stroke:#d00;stroke-width:2}
.hl{fill:#fff3cd}
.violation .hl{fill:#f8d7da}
.violation .d{font-weight:bold;fill:#900}
.vl{stroke:#d00;stroke-width:1;stroke-dasharray:2 2}
.vm{fill:#d00}
.vn{fill:#d00;font-weight:bold}
.fc{fill:#8a5a00;font-weight:bold}
.first .hl{fill:#ffe08a}
#story>summary{background:#fdf1d8;font-weight:bold}
.vt{fill:#d00;font-weight:bold;text-anchor:end;paint-order:stroke;stroke:#f8d7da;stroke-width:4px}
.gap rect{fill:#f0f4fa}.gap line{stroke:#7a93b8;stroke-dasharray:6 4}.gap text{fill:#3d5a85;font-style:italic}
.eli rect{fill:#f6f0e6}.eli line{stroke:#b08a4a;stroke-dasharray:1 3}.eli text{fill:#7a5a20;font-style:italic}
.bR{fill:#8fd18a}.bS{fill:#bbb}.bT{fill:#a98bd6}
pre{margin:6px 14px;padding:6px;background:#f6f6f6;border:1px solid #ddd}
button{font:inherit;font-size:11px}
)";

constexpr const char* kScript = R"(
function setAll(open){for(const d of document.querySelectorAll('details')){d.open=open;}}
)";

// The invariant and the event the page marks "violates" (the culprit, else the violation).
void mark_violation(Page& page) {
  const RunResult& result = page.result;
  if (!result.violation) return;
  page.violates = result.violation->invariant_id;
  WSIM_ASSERT(!page.violates.empty());
  page.violating = result.culprit_event     ? *result.culprit_event
                   : result.violation_event ? *result.violation_event
                                            : SIZE_MAX;
}

}  // namespace

std::string render_timeline_html(const System& system, const proto::Scenario& scenario,
                                 const RunResult& result) {
  const std::vector<TraceEvent>& trace = result.trace;
  const Bands bands = derive_bands(result);
  std::size_t elided = 0;
  const LaneMap lanes(system);
  const std::vector<Row> rows = build_rows(lanes, result, elided);
  Page page{system, lanes, scenario, result, bands, {}, SIZE_MAX};
  mark_violation(page);
  const std::string object = result.violation ? result.violation->object : "";
  std::vector<std::size_t> keys;
  std::vector<Row> story;
  if (!object.empty() && !trace.empty()) {
    keys = key_events(system, result, object);
    page.first_culprit = first_disturbing_event(system, result, keys).value_or(SIZE_MAX);
    story = story_rows(page, keys);
    WSIM_ASSERT_LE(story.size(), kTimelineStoryRowsMax);
  }

  const auto faults = std::count_if(trace.begin(), trace.end(), is_fault_event);
  WSIM_ASSERT_LE(static_cast<std::size_t>(faults), trace.size());

  std::string out;
  out.reserve(4096 + rows.size() * 700);
  const std::string title = headline(system, scenario, result);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + kStyle + "</style>\n<script>" + kScript +
         "</script>\n</head>\n<body>\n<header>\n<h1>" + html_escape(title) + "</h1>\n";
  if (result.violation) {
    out += "<p class=\"msg\">" + html_escape(result.violation->invariant_id) + ": " +
           html_escape(result.violation->message) + "</p>\n";
    for (std::size_t i = 1; i < result.liveness.size(); ++i) {
      out += "<p>also " + html_escape(result.liveness[i].invariant_id) + " on " +
             html_escape(result.liveness[i].object) + ": " +
             html_escape(result.liveness[i].message) + "</p>\n";
    }
  }
  if (result.verdict == Verdict::kHarnessError) {
    out += "<p class=\"msg\">" + html_escape(result.harness_error) + "</p>\n";
  }
  out += "<p>" + html_escape(system.name() + " " + describe_config(scenario, system)) +
         " &middot; seed " + num(static_cast<long long>(result.seed)) + " &middot; fingerprint " +
         format_hash(result.fingerprint) + "</p>\n";
  out += "<p>" + num(static_cast<long long>(result.trace_events)) + " trace events, " +
         num(static_cast<long long>(faults)) + " faults; " +
         num(static_cast<long long>(rows.size())) +
         " rows drawn (repeats of identical events "
         "folded into one row, quiet stretches over " +
         format_duration_ms(kTimelineGapMs) + " marked)";
  if (elided > 0) {
    out += "; <b>" + num(static_cast<long long>(elided)) + " events elided</b> to stay under " +
           num(static_cast<long long>(kTimelineRowsMax)) +
           " rows (kept: the first and last rows, the violation, external actions, faults)";
  }
  if (trace.size() < result.trace_events) {
    out += "; " + num(static_cast<long long>(result.trace_events - trace.size())) +
           " events were not kept by the run";
  }
  out += "</p>\n";
  draw_legend(out, !bands.workspaces.empty());
  draw_lane_header(out, bands);
  if (!story.empty()) draw_story(out, page, object, story, keys.size());

  draw_sections(out, page, rows, /*folded=*/!story.empty());
  out += "<header><p><b>Final state</b> (SystemRun::describe_state)</p></header>\n<pre>" +
         html_escape(result.state) + "</pre>\n</body>\n</html>\n";
  return out;
}

}  // namespace wsim::run
