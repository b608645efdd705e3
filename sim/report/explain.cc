// `wsim explain` (explain.h): a failed run told in three parts, the invariant, the events that
// touched the failing object (folded), and its state before the first disturbing event and after.
#include "sim/report/explain.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "sim/core/assert.h"
#include "sim/report/report.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/run/lanes.h"
#include "sim/run/scenario.h"
#include "sim/run/trace_view.h"
#include "sim/run/verdict_json.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

namespace fs = std::filesystem;

namespace {

std::string_view prefix(std::string_view actor) { return actor_prefix(actor); }

bool success(std::string_view result) {
  return result == "ok" || result == "OK" || result == "200" || result == "201";
}

bool is_read(std::string_view verb) { return verb == "get" || verb == "list" || verb == "watch"; }

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  WSIM_ASSERT_GE(text.size(), width);
  return text;
}

std::string right(std::string text, std::size_t width) {
  if (text.size() < width) text.insert(0, width - text.size(), ' ');
  WSIM_ASSERT_GE(text.size(), width);
  return text;
}

// The actors of the system's scripted actions (user, kubectl, admin, link, ...).
std::set<std::string, std::less<>> external_actors(const System& system) {
  std::set<std::string, std::less<>> actors = {"user", "kubectl", "admin"};
  for (const ActionInfo& action : system.actions()) actors.insert(action.actor);
  return actors;
}

std::string group_line(const RunResult& result, const EventGroup& group,
                       const std::string& violates, std::size_t violating,
                       std::size_t actor_width) {
  WSIM_ASSERT(!group.members.empty());  // fold_key_events: a group has its first event.
  WSIM_ASSERT_LT(group.first, result.trace.size());
  const TraceEvent& e = result.trace[group.first];
  const bool marked =
      std::find(group.members.begin(), group.members.end(), violating) != group.members.end();
  std::string line = marked ? ">> " : "   ";
  line +=
      right(format_trace_time(e.time_ms), 13) + "  " + pad(clip(e.actor, 22), actor_width) + "  ";
  std::string verb = e.verb;
  std::string object = e.object;
  if (group.members.size() > 1) {
    verb += " x" + std::to_string(group.members.size());
    // The distinct objects; for Kubernetes objects "Kind/ns/name" their kinds suffice.
    std::vector<std::string> names;
    bool same = true;
    for (std::size_t i : group.members) {
      const std::string& o = result.trace[i].object;
      same = same && o == e.object;
      std::string name = o.empty() || !(o[0] >= 'A' && o[0] <= 'Z') ? o : o.substr(0, o.find('/'));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    if (!same) {
      object.clear();
      for (const std::string& name : names) object += (object.empty() ? "" : ", ") + name;
    }
  }
  bool same_detail = true;
  for (std::size_t i : group.members)
    same_detail = same_detail && result.trace[i].detail == e.detail;
  line += pad(verb, 12) + "  " + clip(one_line(object), 56) + "  " + e.result;
  if (!e.detail.empty() && same_detail && !is_violation(e))
    line += "  (" + clip(one_line(e.detail), 48) + ")";
  if (marked && !violates.empty()) line += "  <-- violates " + violates;
  return line;
}

// The lines of describe_state() that mention `object` (all of them when none does), at most 4.
std::vector<std::string> state_lines(const std::string& state, const std::string& object) {
  std::vector<std::string> all;
  std::vector<std::string> mentioning;
  std::istringstream in(state);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    all.push_back(line);
    if (!object.empty() && names_object(line, object)) mentioning.push_back(line);
  }
  std::vector<std::string> out = mentioning.empty() ? all : mentioning;
  if (out.size() > 4) {
    const std::size_t more = out.size() - 3;
    out.resize(3);
    out.push_back("... (" + std::to_string(more) + " more lines)");
  }
  WSIM_ASSERT_LE(out.size(), 4u);
  return out;
}

std::string config_summary(const System& system, const proto::Scenario& scenario) {
  std::string out;
  for (const VersionAxis& axis : system.axes()) {
    WSIM_ASSERT(!axis.field.empty());  // As describe_versions: an axis names its field.
    std::string value;
    if (!config_value(scenario, system, axis.field, value)) continue;
    out += (out.empty() ? "" : " ") + axis.field + "=" + value;
  }
  return out.empty() ? describe_config(scenario, system) : out;
}

}  // namespace

std::vector<std::size_t> key_events(const System& system, const RunResult& result,
                                    const std::string& object) {
  const auto externals = external_actors(system);
  const LaneMap lanes(system);
  const std::vector<TraceEvent>& trace = result.trace;
  std::vector<std::size_t> keys;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const TraceEvent& e = trace[i];
    if (redundant_scripted(trace, i)) continue;
    if (is_violation(e)) {
      keys.push_back(i);
      continue;
    }
    const Lane lane = lanes.of(e.actor);
    const bool fault = is_fault_event(e);
    const bool touches =
        object.empty() || names_object(e.object, object) || names_object(e.actor, object);
    if (!touches) {
      // Faults of the agent/Rails channel concern every workspace.
      if (fault && (lane == Lane::kAgent || lane == Lane::kOther || prefix(e.actor) == "rails")) {
        keys.push_back(i);
      }
      continue;
    }
    const bool external = externals.count(prefix(e.actor)) > 0;
    bool keep = external || fault;
    if ((lane == Lane::kControlPlane || lane == Lane::kAgent) && !is_read(e.verb) &&
        e.result != "NotFound") {
      keep = true;  // A decision of the control plane or the agent about the object.
    }
    if (lane == Lane::kKubeControllers && (e.verb.find("delete") != std::string::npos ||
                                           e.verb == "finalize" || e.verb == "orphan")) {
      keep = true;
    }
    if ((lane == Lane::kKubelet || lane == Lane::kWsDaemon) &&
        (!success(e.result) || e.verb == "backup" || e.verb == "wipe" ||
         e.verb == "delete-content" || e.verb == "reject")) {
      keep = true;
    }
    if (object.empty() && !external && !fault) keep = false;
    if (keep) keys.push_back(i);
  }
  if (!keys.empty()) WSIM_ASSERT_LT(keys.back(), trace.size());  // Ascending trace indices.
  return keys;
}

std::optional<std::size_t> first_disturbing_event(const System& system, const RunResult& result,
                                                  const std::vector<std::size_t>& keys) {
  const auto externals = external_actors(system);
  bool seen_external = false;
  for (std::size_t i : keys) {
    WSIM_ASSERT_LT(i, result.trace.size());
    const TraceEvent& e = result.trace[i];
    if (is_violation(e)) continue;
    const bool external = externals.count(prefix(e.actor)) > 0;
    if (is_fault_event(e) || (external && seen_external)) return i;
    seen_external = seen_external || external;
  }
  return result.culprit_event;
}

std::optional<StateSnapshot> state_before(const System& system, const proto::Scenario& scenario,
                                          const std::vector<std::uint64_t>& tape,
                                          const RunResult& result, std::size_t trace_index) {
  auto replay = [&](std::uint64_t events_max) {
    RunOptions options;
    options.tape = tape;
    options.events_max = events_max;
    return execute_run(system, scenario, options);
  };
  // Largest k with trace_events(after k loop events) <= trace_index; trace_events grows with k.
  std::uint64_t lo = 1;
  std::uint64_t hi = result.events;
  RunResult best = replay(lo);
  if (best.trace_events > trace_index) return std::nullopt;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    WSIM_ASSERT_GT(mid, lo);  // The search makes progress.
    RunResult run = replay(mid);
    if (run.trace_events <= trace_index) {
      lo = mid;
      best = std::move(run);
    } else {
      hi = mid - 1;
    }
  }
  WSIM_ASSERT_LE(best.trace_events, trace_index);  // The state before the event, not after.
  return StateSnapshot{best.end_ms, best.state};
}

namespace {

// Section 1: the invariant (its description and reference), what was seen, the run.
void explain_invariant(std::ostream& out, const System& system, const proto::Scenario& scenario,
                       const RunResult& result, const std::string& source) {
  WSIM_ASSERT(!source.empty());  // "from:" names the bundle or the command.
  const std::string object = result.violation ? result.violation->object : "";
  const std::string invariant = result.violation ? result.violation->invariant_id : "";
  if (result.violation) {
    out << invariant << " violated";
    if (!object.empty()) out << " on " << object;
    out << " at " << format_trace_time(result.end_ms) << " (" << verdict_name(result.verdict)
        << ", " << run_phase_name(result.phase) << " phase)\n";
    for (const InvariantInfo& info : system.invariants()) {
      if (info.id != invariant) continue;
      out << "  means: " << info.description;
      if (!info.reference.empty()) out << "  [" << info.reference << "]";
      out << "\n";
    }
    out << "  seen:  " << one_line(result.violation->message) << "\n";
    for (std::size_t i = 1; i < result.liveness.size(); ++i) {
      out << "  also:  " << result.liveness[i].invariant_id << " on " << result.liveness[i].object
          << ": " << clip(one_line(result.liveness[i].message), 80) << "\n";
    }
  } else {
    out << verdict_name(result.verdict) << " at " << format_trace_time(result.end_ms) << " ("
        << run_phase_name(result.phase) << " phase)";
    if (result.verdict == Verdict::kHarnessError) out << ": " << result.harness_error;
    out << "\n";
  }
  out << "run:   " << system.name() << " " << config_summary(system, scenario) << ", seed "
      << result.seed;
  if (!scenario.name().empty()) out << " (" << scenario.name() << ")";
  out << "; " << result.events << " events, " << result.trace_events << " trace events\n";
  out << "from:  " << source << "\n";
}

// Section 2: the key events, runs of the same actor/verb/result folded into one line, at most
// kExplainEventLinesMax lines (the beginning and, above all, the end).
void explain_events(std::ostream& out, const RunResult& result,
                    const std::vector<std::size_t>& keys, const std::string& object,
                    const std::string& invariant) {
  const std::vector<TraceEvent>& trace = result.trace;
  const std::vector<EventGroup> groups = fold_key_events(result, keys);
  const std::size_t violating = result.culprit_event     ? *result.culprit_event
                                : result.violation_event ? *result.violation_event
                                                         : trace.size();
  std::size_t actor_width = 5;
  for (const EventGroup& g : groups) {
    actor_width = std::max(actor_width, std::min<std::size_t>(trace[g.first].actor.size(), 22));
  }
  out << "what happened";
  if (!object.empty()) out << " to " << object;
  out << " (" << keys.size() << " of " << trace.size() << " events; all in trace.txt):\n";
  std::vector<std::string> lines;
  for (const EventGroup& g : groups) {
    lines.push_back(group_line(result, g, invariant, violating, actor_width));
  }
  if (lines.size() > kExplainEventLinesMax) {
    // Keep the beginning and, above all, the end (nearest the violation).
    const std::size_t head = kExplainEventLinesMax / 3;
    const std::size_t tail = kExplainEventLinesMax - head - 1;
    const std::size_t dropped = lines.size() - head - tail;
    std::vector<std::string> kept(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(head));
    kept.push_back("   ... " + std::to_string(dropped) + " more lines");
    kept.insert(kept.end(), lines.end() - static_cast<std::ptrdiff_t>(tail), lines.end());
    lines = std::move(kept);
    WSIM_ASSERT_EQ(lines.size(), kExplainEventLinesMax);
  }
  for (const std::string& line : lines) out << line << "\n";
}

}  // namespace

std::vector<EventGroup> fold_key_events(const RunResult& result,
                                        const std::vector<std::size_t>& keys) {
  const std::vector<TraceEvent>& trace = result.trace;
  std::vector<EventGroup> groups;
  for (std::size_t i : keys) {
    WSIM_ASSERT(i < trace.size());
    const TraceEvent& e = trace[i];
    if (!groups.empty()) {
      EventGroup& last = groups.back();
      const TraceEvent& head = trace[last.first];
      const TraceEvent& tail = trace[last.members.back()];
      if (head.actor == e.actor && head.verb == e.verb && head.result == e.result &&
          !is_violation(e) && e.time_ms - tail.time_ms <= kFoldGapMs) {
        last.members.push_back(i);
        continue;
      }
    }
    groups.push_back(EventGroup{i, {i}});
  }
  WSIM_ASSERT_LE(groups.size(), keys.size());  // Folding only merges.
  return groups;
}

std::string explain_run(const System& system, const proto::Scenario& scenario,
                        const std::vector<std::uint64_t>& tape, const RunResult& result,
                        const std::string& source) {
  std::ostringstream out;
  const std::string object = result.violation ? result.violation->object : "";
  const std::string invariant = result.violation ? result.violation->invariant_id : "";
  const std::vector<TraceEvent>& trace = result.trace;

  // 1. The invariant.
  explain_invariant(out, system, scenario, result, source);

  // 2. The events that matter.
  const std::vector<std::size_t> keys = key_events(system, result, object);
  WSIM_ASSERT_LE(keys.size(), trace.size());
  explain_events(out, result, keys, object, invariant);

  // 3. The state before and after.
  const std::optional<std::size_t> trigger = first_disturbing_event(system, result, keys);
  if (trigger && !tape.empty()) {
    if (auto before = state_before(system, scenario, tape, result, *trigger)) {
      WSIM_ASSERT_LT(*trigger, trace.size());
      const TraceEvent& e = trace[*trigger];
      out << "state before " << e.actor << " " << e.verb << " " << e.object << " at "
          << format_trace_time(e.time_ms) << ":\n";
      for (const std::string& line : state_lines(before->state, object)) {
        out << "  " << line << "\n";
      }
    }
  }
  out << "state after (" << format_trace_time(result.end_ms) << "):\n";
  for (const std::string& line : state_lines(result.state, object)) out << "  " << line << "\n";
  return out.str();
}

std::string render_trace_verbose(const RunResult& result) {
  std::string out =
      "# every event, columns unclipped, details in full (the trace records what the models "
      "wrote in `detail`; it holds no object snapshots beyond that)\n";
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const TraceEvent& e = result.trace[i];
    const bool culprit = result.culprit_event && *result.culprit_event == i;
    const bool violation = result.violation_event && *result.violation_event == i;
    out += culprit ? ">> " : violation ? "!! " : "   ";
    out += "#" + std::to_string(i) + "  " + format_trace_time(e.time_ms) + "  " +
           one_line(e.actor) + "  " + one_line(e.verb) + "  " + one_line(e.object) + "  " +
           one_line(e.result);
    if (e.detail.find('\n') == std::string::npos) {
      if (!e.detail.empty()) out += "  " + e.detail;
      out += "\n";
    } else {
      out += "\n";
      std::istringstream in(e.detail);
      std::string line;
      while (std::getline(in, line)) out += "        " + line + "\n";
    }
  }
  return out;
}

}  // namespace wsim::run
