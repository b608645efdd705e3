// A recorded run read back from a bundle (recorded_run.h): verdict.json and trace.jsonl into a
// RunResult, its signature recomputed, for `wsim explain` and the reports.
#include "sim/report/recorded_run.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "sim/core/assert.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/signature.h"
#include "sim/run/verdict_json.h"

namespace wsim::run {

namespace {

constexpr TraceKind kKinds[] = {TraceKind::kAction, TraceKind::kScripted, TraceKind::kViolation};

bool parse_kind(const std::string& name, TraceKind& kind) {
  for (TraceKind candidate : kKinds) {
    if (trace_kind_name(candidate) == name) {
      kind = candidate;
      return true;
    }
  }
  return false;
}

std::string string_member(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One line of trace.jsonl (report.cc render_trace_jsonl) into `result.trace`.
bool parse_trace_line(const std::string& line, RunResult& result, std::string& error) {
  WSIM_ASSERT(!line.empty());  // read_trace skips empty lines.
  const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
  if (!event.is_object() || !event.contains("time_ms") || !event["time_ms"].is_number_integer()) {
    error = "not a trace event (an object with \"time_ms\")";
    return false;
  }
  TraceEvent e;
  e.time_ms = event["time_ms"].get<TimeMs>();
  e.actor = string_member(event, "actor");
  e.verb = string_member(event, "verb");
  e.object = string_member(event, "object");
  e.result = string_member(event, "result");
  e.detail = string_member(event, "detail");
  if (!parse_kind(string_member(event, "kind"), e.kind)) {
    error = "unknown \"kind\" '" + string_member(event, "kind") + "'";
    return false;
  }
  if (const auto faults = event.find("faults"); faults != event.end() && faults->is_array()) {
    for (const nlohmann::json& fault : *faults) {
      if (fault.is_string()) e.faults.push_back(fault.get<std::string>());
    }
  }
  const std::string mark = string_member(event, "mark");
  if (mark == "culprit") result.culprit_event = result.trace.size();
  if (mark == "violation") result.violation_event = result.trace.size();
  result.trace.push_back(std::move(e));
  // A mark names the event just read (paired with render_trace_jsonl's "mark").
  if (result.culprit_event) WSIM_ASSERT_LT(*result.culprit_event, result.trace.size());
  return true;
}

bool read_trace(const std::string& path, RunResult& result, std::string& error) {
  WSIM_ASSERT(!path.empty());
  std::string text;
  if (!read_file_capped(path, kRecordedTraceBytesMax, text, error)) return false;
  std::istringstream in(text);
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    if (!parse_trace_line(line, result, error)) {
      error = path + ":" + std::to_string(number) + ": " + error;
      return false;
    }
  }
  WSIM_ASSERT_LE(result.trace.size(), number);  // At most one event per line.
  return true;
}

bool read_verdict(const std::string& path, RunResult& result, std::string& error) {
  WSIM_ASSERT(!path.empty());
  std::string json;
  proto::VerdictRecord record;
  if (!read_file_capped(path, kVerdictBytesMax, json, error) ||
      !parse_verdict_json(json, path, record, error)) {
    return false;
  }
  if (!parse_verdict_name(record.verdict(), result.verdict)) {
    error = path + ": unknown verdict '" + record.verdict() + "'";
    return false;
  }
  if (!record.invariant().empty()) {
    result.violation = Violation{record.invariant(), record.object(), record.message(), {}};
  } else if (result.verdict == Verdict::kHarnessError) {
    result.harness_error = record.message();
  }
  for (const proto::ViolationRecord& v : record.liveness()) {
    result.liveness.push_back(Violation{v.invariant(), v.object(), v.message(), {}});
  }
  if (!parse_hash(record.fingerprint(), result.fingerprint)) result.fingerprint = 0;
  if (!parse_hash(record.trace_hash(), result.trace_hash)) result.trace_hash = 0;
  result.seed = record.seed();
  result.events = record.events();
  result.trace_events = record.trace_events();
  result.choices = record.choices();
  result.end_ms = record.virtual_time_ms();
  result.state = record.state();
  if (!record.known().empty()) {
    result.labelled = true;
    result.known = record.known() == "NEW" ? "" : record.known();
  }
  for (const auto& [name, value] : record.swarm()) result.swarm.emplace_back(name, value);
  std::sort(result.swarm.begin(), result.swarm.end());
  if (record.phase() == "settle") result.phase = RunPhase::kSettle;
  if (record.phase() == "liveness") result.phase = RunPhase::kLiveness;
  return true;
}

}  // namespace

bool read_recorded_run(const Bundle& bundle, const System& system, RunResult& result,
                       std::string& error) {
  WSIM_ASSERT(!bundle.dir.empty());
  result = RunResult{};
  if (!read_verdict(bundle.dir + "/verdict.json", result, error) ||
      !read_trace(bundle.dir + "/trace.jsonl", result, error)) {
    return false;
  }
  if (result.culprit_event && *result.culprit_event >= result.trace.size()) {
    result.culprit_event.reset();
  }
  // compute_signature REQUIRES the culprit to index the trace.
  if (result.culprit_event) WSIM_ASSERT_LT(*result.culprit_event, result.trace.size());
  if (result.violation) {
    const bool liveness = result.verdict == Verdict::kLiveness;
    result.signature =
        compute_signature(external_actors_of(system), result.trace, result.culprit_event,
                          *result.violation, liveness ? std::string_view(result.state) : "");
  }
  return true;
}

}  // namespace wsim::run
