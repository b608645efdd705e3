// The scripted form of a shrunk run (shrink.h: scripted_events_of, scripted_to_text,
// render_scripted, run_scenario_text).
#include "sim/search/shrink.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include "sim/core/assert.h"
#include "sim/core/sim.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/trace_view.h"
#include "sim/search/scenario_flags.h"

namespace wsim::run {

// ---- The scripted form (docs/architecture.md §6: "rendered as a short readable scenario").

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string dashes_to_underscores(std::string text) {
  std::replace(text.begin(), text.end(), '-', '_');
  WSIM_ASSERT_EQ(text.find('-'), std::string::npos);
  return text;
}

// `needle` occurs in `hay` with a boundary ('-', '/', start, end) on both sides.
bool contains_at_boundary(const std::string& hay, const std::string& needle) {
  if (needle.empty()) return false;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) {
    const bool left = at == 0 || hay[at - 1] == '-' || hay[at - 1] == '/';
    const std::size_t end = at + needle.size();
    WSIM_ASSERT_LE(end, hay.size());  // find() matched the whole needle.
    const bool right = end == hay.size() || hay[end] == '-' || hay[end] == '/';
    if (left && right) return true;
  }
  return false;
}

// The text up to the first '_' (or '-').
std::string first_word(const std::string& text) { return text.substr(0, text.find_first_of("_-")); }

// `word` occurs in `text` delimited by non-alphanumeric characters (or the ends).
bool contains_word(const std::string& text, const std::string& word) {
  if (word.empty()) return false;
  auto is_word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    WSIM_ASSERT_LE(end, text.size());
    if ((at == 0 || !is_word_char(text[at - 1])) &&
        (end == text.size() || !is_word_char(text[end]))) {
      return true;
    }
  }
  return false;
}

// The catalog actor of a trace actor: "user" for "user" and "user/ws0", "agent" for "agentk"
// (the agent's process name); empty when none.
std::string catalog_actor(const std::vector<ActionInfo>& catalog, const std::string& trace_actor) {
  const std::string head = trace_actor.substr(0, trace_actor.find('/'));
  std::string best;
  for (const ActionInfo& info : catalog) {
    if (info.actor == head) return head;
    const bool extended = head.size() > info.actor.size() &&
                          head.compare(0, info.actor.size(), info.actor) == 0 &&
                          std::isalpha(static_cast<unsigned char>(head[info.actor.size()])) &&
                          head.size() <= info.actor.size() + 2;
    if (extended) best = info.actor;
  }
  if (!best.empty()) WSIM_ASSERT_LT(best.size(), head.size());  // A process name extends it.
  return best;
}

// How well `action` explains a trace verb: -1 = not at all.
int verb_score(const std::string& action, const std::string& verb) {
  if (verb == action) return 100;
  if (action.size() > verb.size() && action.compare(0, verb.size(), verb) == 0 &&
      action[verb.size()] == '_') {
    return 10;
  }
  if (verb.size() > action.size() && verb.compare(0, action.size(), action) == 0 &&
      verb[action.size()] == '_') {
    return 10;
  }
  return -1;
}

// The words of `action` after its first, found in `text` (lower case).
int word_score(const std::string& action, const std::string& text) {
  int score = 0;
  std::size_t start = action.find('_');
  while (start != std::string::npos) {
    const std::size_t end = action.find('_', start + 1);
    const std::string word =
        action.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
    if (!word.empty() && text.find(word) != std::string::npos) ++score;
    start = end;
  }
  return score;
}

// The fault points of the run's swarm that a trace event shows firing.
std::vector<std::string> fired_faults(const RunResult& run) {
  std::vector<std::string> out;
  for (const auto& entry : run.swarm) {
    // Not a structured binding: clang 14 cannot capture those in the lambda below.
    const std::string& name = entry.first;
    // Off (and not pinned), or a system parameter.
    if (entry.second.rfind("on", 0) != 0 && entry.second.find(" pin") == std::string::npos) {
      continue;
    }
    const bool fired = std::any_of(run.trace.begin(), run.trace.end(), [&](const TraceEvent& e) {
      return std::find(e.faults.begin(), e.faults.end(), name) != e.faults.end();
    });
    if (fired) out.push_back(name);
  }
  WSIM_ASSERT_LE(out.size(), run.swarm.size());
  return out;
}

// The points the API server evaluates per request (sim/core/fault.h set_per_request), from a
// throwaway world of `scenario`'s system, as the validator's dry run builds it.
std::vector<std::string> request_points(const System& system, const proto::Scenario& scenario) {
  Sim dummy(ChoiceSource::from_seed(scenario.seed()));
  const std::unique_ptr<SystemRun> world = system.create(dummy, scenario);
  WSIM_ASSERT(world != nullptr);
  std::vector<std::string> out;
  for (std::size_t k = 0; k < dummy.faults().size(); ++k) {
    const FaultPoint& point = dummy.faults().point(static_cast<FaultId>(k));
    if (point.per_request) out.push_back(point.name);
  }
  std::sort(out.begin(), out.end());
  // Unique names (Faults::declare): pinned_faults binary-searches them.
  WSIM_ASSERT(std::adjacent_find(out.begin(), out.end()) == out.end());
  return out;
}

bool is_api_verb(const std::string& verb) {
  static constexpr const char* kVerbs[] = {"get",    "list",  "watch",  "create",
                                           "update", "patch", "delete", "apply"};
  return std::find(std::begin(kVerbs), std::end(kVerbs), verb) != std::end(kVerbs);
}

// How a request pin names its request (pinned_faults).
enum class PinBy {
  // The first matching request after the midpoint between the previous matching request of the
  // trace (or 0) and this one: anchored in time, as the scripted events are, so that a scripted
  // run with more or fewer earlier requests of the object still hits the request of the moment.
  kTime,
  // The N-th matching request of the run (N counted in the trace): independent of timings.
  kCount,
};

// One pinned override per fault firing of the trace (TraceEvent::faults), in trace order
// (docs/shrinking.md §6). A request point's firing is pinned to its request: the trace event's
// verb, object and actor, and its place among the trace events with the same three (`by`; the API
// server traces every request that reaches it once, which is what a request pin counts). Any
// other point's firing is pinned to the first evaluation in the millisecond it fired
// ([t, t + 1)): its evaluations are not traced, so the trace gives no count. `rendered` are
// the points whose firings the scripted events already show (action_of_fault): not pinned.
std::vector<proto::FaultOverride> pinned_faults(const std::vector<TraceEvent>& trace,
                                                const std::vector<std::string>& per_request,
                                                const std::vector<std::string>& rendered,
                                                PinBy by) {
  std::vector<proto::FaultOverride> out;
  struct Seen {
    std::uint32_t count = 0;
    std::int64_t last_ms = -1;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Seen> requests_seen;
  for (const TraceEvent& event : trace) {
    const bool request =
        is_api_verb(event.verb) && !event.object.empty() && event.kind == TraceKind::kAction;
    Seen before;
    if (request) {
      Seen& seen = requests_seen[{event.actor, event.verb, event.object}];
      before = seen;
      ++seen.count;
      seen.last_ms = event.time_ms;
    }
    for (const std::string& name : event.faults) {
      WSIM_ASSERT(!name.empty());
      if (std::find(rendered.begin(), rendered.end(), name) != rendered.end()) continue;
      proto::FaultOverride pin;
      pin.set_name(name);
      pin.set_enabled(true);
      if (request && std::binary_search(per_request.begin(), per_request.end(), name)) {
        pin.set_verb(event.verb);
        pin.set_object(event.object);
        pin.set_actor(event.actor);
        if (by == PinBy::kCount) {
          pin.set_occurrence(before.count + 1);
        } else {
          pin.set_occurrence(1);
          // Midpoint, rounded up: after the previous request (even at the same millisecond).
          const std::int64_t from_ms =
              before.last_ms < 0 ? 0 : before.last_ms + (event.time_ms - before.last_ms + 1) / 2;
          if (from_ms > 0) pin.set_from_ms(from_ms);
        }
      } else {
        pin.set_occurrence(1);
        pin.set_from_ms(event.time_ms);
        pin.set_until_ms(event.time_ms + 1);
      }
      WSIM_ASSERT_GE(pin.occurrence(), 1u);  // Every pin names its occurrence (is_pinned).
      out.push_back(std::move(pin));
    }
  }
  return out;
}

std::vector<std::string> enabled_faults(const RunResult& run) {
  std::vector<std::string> out;
  for (const auto& [name, value] : run.swarm) {
    if (value.rfind("on", 0) == 0) out.push_back(name);
  }
  WSIM_ASSERT_LE(out.size(), run.swarm.size());
  return out;
}

bool same_failure(const RunResult& result, Verdict verdict, const std::string& invariant) {
  return result.verdict == verdict && result.violation &&
         result.violation->invariant_id == invariant;
}

std::string outcome(const RunResult& result) {
  std::string text = verdict_name(result.verdict);
  if (result.violation) text += " " + result.violation->invariant_id;
  if (!result.harness_error.empty()) text += " (" + result.harness_error + ")";
  return text;
}

}  // namespace

std::vector<std::vector<int>> event_groups(const proto::Scenario& scenario) {
  const int n = scenario.events_size();
  std::vector<std::string> targets;
  for (const proto::ScriptedEvent& event : scenario.events()) {
    if (!event.target().empty()) targets.push_back(event.target());
  }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  // The subject of a target: the longest other target it holds at a boundary, else itself.
  auto subject = [&](const std::string& target) {
    std::string best;
    for (const std::string& other : targets) {
      if (other != target && other.size() > best.size() && contains_at_boundary(target, other)) {
        best = other;
      }
    }
    return best.empty() ? target : best;
  };
  std::map<std::string, std::vector<int>> by_subject;
  std::map<std::string, std::vector<int>> by_actor;
  for (int i = 0; i < n; ++i) {
    const proto::ScriptedEvent& event = scenario.events(i);
    if (!event.target().empty()) by_subject[subject(event.target())].push_back(i);
    by_actor[event.actor()].push_back(i);
  }
  // Largest first, then by key (std::map order): deterministic.
  auto ordered = [n](const std::map<std::string, std::vector<int>>& groups) {
    std::vector<std::vector<int>> out;
    for (const auto& entry : groups) {
      if (static_cast<int>(entry.second.size()) < n) out.push_back(entry.second);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.size() > b.size(); });
    return out;
  };
  std::vector<std::vector<int>> out = ordered(by_subject);
  for (std::vector<int>& group : ordered(by_actor)) {
    if (std::find(out.begin(), out.end(), group) == out.end()) out.push_back(std::move(group));
  }
  // Each group: some but not all events, in index order (without_events binary-searches them).
  for (const std::vector<int>& group : out) {
    WSIM_ASSERT(!group.empty());
    WSIM_ASSERT_LT(static_cast<int>(group.size()), n);
    WSIM_ASSERT(std::is_sorted(group.begin(), group.end()));
  }
  return out;
}

proto::Scenario without_events(const proto::Scenario& scenario, const std::vector<int>& drop) {
  WSIM_ASSERT(std::is_sorted(drop.begin(), drop.end()));  // binary_search below.
  proto::Scenario out = scenario;
  out.clear_events();
  for (int i = 0; i < scenario.events_size(); ++i) {
    if (!std::binary_search(drop.begin(), drop.end(), i)) *out.add_events() = scenario.events(i);
  }
  WSIM_ASSERT_LE(out.events_size(), scenario.events_size());
  return out;
}

proto::Scenario drop_event_groups(const proto::Scenario& scenario,
                                  const std::function<bool(proto::Scenario&)>& still_fails) {
  const std::vector<std::vector<int>> groups = event_groups(scenario);
  std::vector<bool> gone(static_cast<std::size_t>(scenario.events_size()), false);
  proto::Scenario current = scenario;
  for (const std::vector<int>& group : groups) {
    // The group's events still there, as indices of `current`.
    std::vector<int> drop;
    for (const int original : group) {
      WSIM_ASSERT_LT(static_cast<std::size_t>(original), gone.size());
      if (gone[static_cast<std::size_t>(original)]) continue;
      const auto before = std::count(gone.begin(), gone.begin() + original, true);
      drop.push_back(original - static_cast<int>(before));
    }
    if (drop.empty()) continue;
    proto::Scenario candidate = without_events(current, drop);
    if (!still_fails(candidate)) continue;
    current = std::move(candidate);
    for (const int original : group) gone[static_cast<std::size_t>(original)] = true;
  }
  WSIM_ASSERT_LE(current.events_size(), scenario.events_size());  // Only ever drops.
  return current;
}

namespace {

// Known targets: actor suffixes of catalog actors ("ws0" of "user/ws0"), and plain objects of
// exact catalog events ("create ws-1") unless they name an actor's target ("ws0-1", an instance
// of "ws0": then that target is the one to use). Sorted, unique.
std::vector<std::string> known_targets(const std::vector<ActionInfo>& catalog,
                                       const std::vector<TraceEvent>& trace) {
  std::vector<std::string> targets;
  for (const TraceEvent& event : trace) {
    const std::string actor = catalog_actor(catalog, event.actor);
    if (actor.empty() || is_scripted_marker(event)) continue;
    const std::size_t slash = event.actor.find('/');
    if (slash != std::string::npos) targets.push_back(event.actor.substr(slash + 1));
  }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  std::vector<std::string> objects;
  for (const TraceEvent& event : trace) {
    const std::string actor = catalog_actor(catalog, event.actor);
    if (actor.empty() || is_scripted_marker(event)) continue;
    const bool exact = std::any_of(catalog.begin(), catalog.end(), [&](const ActionInfo& info) {
      return info.actor == actor && info.action == event.verb;
    });
    const bool names_a_target =
        std::any_of(targets.begin(), targets.end(),
                    [&](const std::string& t) { return contains_at_boundary(event.object, t); });
    if (exact && !event.object.empty() && event.object.find('/') == std::string::npos &&
        !names_a_target) {
      objects.push_back(event.object);
    }
  }
  targets.insert(targets.end(), objects.begin(), objects.end());
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

// The catalog action of `actor` that best explains the trace event; null when none.
const ActionInfo* best_action(const std::vector<ActionInfo>& catalog, const std::string& actor,
                              const TraceEvent& event) {
  const std::string verb = dashes_to_underscores(event.verb);
  const std::string text = lower(event.object + " " + event.detail);
  const std::string detail = lower(event.detail);
  const ActionInfo* best = nullptr;
  int best_score = -1;
  for (const ActionInfo& info : catalog) {
    if (info.actor != actor) continue;
    int score = verb_score(info.action, verb);
    // A process that stops or starts is the catalog's down / up.
    if (score < 0 &&
        ((verb == "stop" && info.action == "down") || (verb == "start" && info.action == "up"))) {
      score = 50;
    }
    // The action named by the event's detail ("stop-reply ws0-1 OK abort" → abort), or one that
    // shares the verb's first word and has its other words in the detail ("stop-reply ...
    // immediate" → stop_immediate): the detail says which variant of the request it was.
    if (contains_word(detail, info.action)) score = std::max(score, 30);
    if (score < 0 && first_word(info.action) == first_word(verb)) score = 5;
    if (score < 0) continue;
    score += 20 * word_score(info.action, text);
    const bool better =
        score > best_score || (score == best_score && info.action.size() < best->action.size());
    if (better) {
      best = &info;
      best_score = score;
    }
  }
  if (best != nullptr) WSIM_ASSERT_EQ(best->actor, actor);
  return best;
}

// The catalog action a fault firing of the event stands for: a point named
// "<system>.<subject>.<action>" whose <action> is a catalog action of an actor named <subject> or
// "<prefix>-<subject>" (gitpod.manager.restart → manager restart, gitpod.daemon.restart →
// ws-daemon restart, gitpod.kubelet.reject_after_ready → kubelet reject_after_ready, not the
// admission reject the trace verb names). The random form of an action, drawn by the workload,
// which a scripted_only run never draws: rendered as the scripted action. Null when none.
const ActionInfo* action_of_fault(const std::vector<ActionInfo>& catalog,
                                  const std::string& fault) {
  const std::size_t last_dot = fault.rfind('.');
  if (last_dot == std::string::npos || last_dot == 0) return nullptr;
  const std::size_t subject_dot = fault.rfind('.', last_dot - 1);
  if (subject_dot == std::string::npos) return nullptr;
  WSIM_ASSERT_LT(subject_dot, last_dot);
  const std::string action = fault.substr(last_dot + 1);
  const std::string subject = fault.substr(subject_dot + 1, last_dot - subject_dot - 1);
  for (const ActionInfo& info : catalog) {
    if (info.action != action) continue;
    const std::string& actor = info.actor;
    const bool named = actor == subject || (actor.size() > subject.size() + 1 &&
                                            actor.compare(actor.size() - subject.size(),
                                                          subject.size(), subject) == 0 &&
                                            actor[actor.size() - subject.size() - 1] == '-');
    if (named) return &info;
  }
  return nullptr;
}

// Only for an event of the action's own actor: a fault firing traced by another process
// (ws-manager's stop for gitpod.manager.restart) stays unrendered, as before this rule; rendering
// those too made the readable form of a hunted run longer (upgrade-naive-stuck-pending: 2 → 5
// events, docs/shrinking.md §5).
const ActionInfo* action_of_fault(const std::vector<ActionInfo>& catalog, const TraceEvent& event) {
  const std::string actor = catalog_actor(catalog, event.actor);
  if (actor.empty()) return nullptr;
  for (const std::string& fault : event.faults) {
    const ActionInfo* info = action_of_fault(catalog, fault);
    if (info != nullptr && info->actor == actor) return info;
  }
  return nullptr;
}

// The target of a trace event (TargetFrom).
std::string target_of(const TraceEvent& event, const std::vector<std::string>& targets,
                      TargetFrom target_from) {
  const std::size_t slash = event.actor.find('/');
  std::string named;  // The longest known target the object names.
  for (const std::string& known : targets) {
    if (known.size() > named.size() && contains_at_boundary(event.object, known)) named = known;
  }
  if (slash != std::string::npos && (target_from == TargetFrom::kActorFirst || named.empty())) {
    return event.actor.substr(slash + 1);
  }
  if (!named.empty()) return named;
  return event.object.substr(event.object.rfind('/') + 1);
}

}  // namespace

std::vector<proto::ScriptedEvent> scripted_events_of(const System& system,
                                                     const std::vector<TraceEvent>& trace,
                                                     TargetFrom target_from) {
  const std::vector<ActionInfo> catalog = system.actions();
  const std::vector<std::string> targets = known_targets(catalog, trace);
  std::vector<proto::ScriptedEvent> out;
  for (const TraceEvent& event : trace) {
    if (is_scripted_marker(event)) continue;  // The driver's marker; the action follows.
    const ActionInfo* best = action_of_fault(catalog, event);
    if (best == nullptr) {
      const std::string actor = catalog_actor(catalog, event.actor);
      if (actor.empty()) continue;
      best = best_action(catalog, actor, event);
    }
    if (best == nullptr) continue;
    WSIM_ASSERT(!best->action.empty());  // validate_scripted_events requires an action.
    WSIM_ASSERT_GE(event.time_ms, 0);
    proto::ScriptedEvent scripted;
    scripted.set_at_ms(event.time_ms);
    scripted.set_actor(best->actor);
    scripted.set_action(best->action);
    scripted.set_target(target_of(event, targets, target_from));
    out.push_back(std::move(scripted));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.at_ms() < b.at_ms(); });
  // One action traced as several events at the same instant (a namespace delete traced twice)
  // is one scripted event.
  out.erase(std::unique(out.begin(), out.end(),
                        [](const auto& a, const auto& b) {
                          return google::protobuf::util::MessageDifferencer::Equals(a, b);
                        }),
            out.end());
  return out;
}

std::string scripted_to_text(const proto::Scenario& scenario, const System& system) {
  google::protobuf::TextFormat::Printer line;
  line.SetSingleLineMode(true);
  auto one_line = [&](const google::protobuf::Message& message) {
    std::string text;
    const bool printed = line.PrintToString(message, &text);
    WSIM_ASSERT(printed);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
  };
  proto::Scenario top = scenario;
  top.clear_events();
  top.clear_faults();
  top.clear_expect();
  std::string out;
  const google::protobuf::Message* config = config_of(scenario, system);
  if (config != nullptr) {
    // Only the version axes and the values that differ from the system's defaults.
    proto::Scenario defaults;
    defaults.set_seed(scenario.seed());
    mutable_config_of(defaults, system);
    std::string ignored;
    const bool have_defaults = system.normalize(defaults, ignored);
    std::unique_ptr<google::protobuf::Message> shown(config->New());
    shown->CopyFrom(*config);
    const google::protobuf::Descriptor* descriptor = shown->GetDescriptor();
    const google::protobuf::Reflection* reflection = shown->GetReflection();
    std::vector<std::string> axes;
    for (const VersionAxis& axis : system.axes()) axes.push_back(axis.field);
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const std::string& name = descriptor->field(i)->name();
      if (std::find(axes.begin(), axes.end(), name) != axes.end()) continue;
      std::string value, default_value;
      if (have_defaults && config_value(scenario, system, name, value) &&
          config_value(defaults, system, name, default_value) && value == default_value) {
        reflection->ClearField(shown.get(), descriptor->field(i));
      }
    }
    google::protobuf::Message* slot = mutable_config_of(top, system);
    WSIM_ASSERT(slot != nullptr);
    slot->Clear();
    out = scenario_to_text(top);
    // The config on one line, after the scalars (scenario_to_text prints it last: cut it off).
    const std::size_t at = out.find(system.name() + " {");
    if (at != std::string::npos) out.erase(at);
    out += system.name() + " { " + one_line(*shown) + " }\n";
  } else {
    out = scenario_to_text(top);
  }
  for (const proto::FaultOverride& fault : scenario.faults()) {
    out += "faults { " + one_line(fault) + " }\n";
  }
  for (const proto::ScriptedEvent& event : scenario.events()) {
    out += "events { " + one_line(event) + " }\n";
  }
  for (const proto::Expectation& expect : scenario.expect()) {
    out += "expect { " + one_line(expect) + " }\n";
  }
  WSIM_ASSERT(!out.empty());
  return out;
}

bool run_scenario_text(const std::string& text, RunResult& result, std::string& error,
                       std::uint64_t events_max, const std::vector<KnownBug>* known) {
  WSIM_ASSERT_GT(events_max, 0u);
  LoadedScenario loaded;
  if (!parse_scenario(text, "scripted.textproto", loaded, error)) return false;
  if (!validate_scenario(loaded, error)) return false;
  WSIM_ASSERT(loaded.system != nullptr);  // validate_scenario selected it.
  RunOptions options;
  options.events_max = events_max;
  options.known = known;
  options.keep_trace = known != nullptr;  // Labels need the trace.
  result = execute_run(*loaded.system, loaded.scenario, options);
  return true;
}

namespace {

class ScriptedShrinker {
 public:
  ScriptedShrinker(const System& system, Verdict verdict, std::string invariant,
                   const ScriptedOptions& options)
      : system_(system), verdict_(verdict), invariant_(std::move(invariant)), options_(options) {
    WSIM_ASSERT(!invariant_.empty());  // render_scripted shrinks a violation.
  }

  bool budget_left() const { return runs_ < options_.max_runs; }

  // The bug id of a label ("" for NEW, the label itself when it names no known bug).
  std::string bug_of(const std::string& label) const {
    if (label.empty() || options_.known == nullptr) return label;
    for (const KnownBug& bug : *options_.known) {
      if (bug.name == label) return bug.bug.empty() ? label : bug.bug;
    }
    return label;
  }

  // Same verdict and invariant; with known bugs also the same bug (a scripted form may match
  // another file of the same bug, e.g. the hunted and the scripted file of one bug id).
  bool same(const RunResult& result) const {
    if (!same_failure(result, verdict_, invariant_)) return false;
    if (options_.known == nullptr) return true;
    return result.labelled && bug_of(result.known) == bug_of(options_.known_label);
  }

  // Runs the candidate through its text form: what a reader's `wsim run --scenario` does.
  bool fails_same(const proto::Scenario& candidate, std::string* what) {
    if (!budget_left()) {
      if (what != nullptr) *what = "not run (budget spent)";
      return false;
    }
    ++runs_;
    RunResult result;
    std::string error;
    if (!run_scenario_text(scripted_to_text(candidate, system_), result, error, options_.events_max,
                           options_.known)) {
      if (what != nullptr) *what = "does not load: " + error;
      return false;
    }
    if (what != nullptr) {
      *what = outcome(result);
      if (options_.known != nullptr && result.violation) {
        *what += result.known.empty() ? " (NEW)" : " (known " + result.known + ")";
      }
    }
    WSIM_ASSERT_LE(runs_, options_.max_runs);
    return same(result);
  }

  // Drops whole groups of events (event_groups: a workspace's, an actor's): one round with the
  // scenario's seed, then one with other seeds for the groups left. A scripted run draws its
  // timings (and the faults its overrides enable) from its seed, and without a group's events
  // every later draw moves: so a group whose removal passes with the seed is tried with the next
  // kGroupSeeds seeds, and the first seed that fails the same is kept (any seed is as good a repro
  // as another).
  static constexpr std::uint64_t kGroupSeeds = 3;
  void drop_groups(proto::Scenario& scenario) {
    const int before = scenario.events_size();
    scenario = drop_event_groups(
        scenario, [&](proto::Scenario& candidate) { return fails_same(candidate, nullptr); });
    if (scenario.events_size() <= 1) return;
    const std::uint64_t seed = scenario.seed();
    scenario = drop_event_groups(scenario, [&](proto::Scenario& candidate) {
      for (std::uint64_t k = 1; k <= kGroupSeeds && budget_left(); ++k) {
        candidate.set_seed(seed + k);
        if (fails_same(candidate, nullptr)) return true;  // Kept with this seed.
      }
      return false;
    });
    WSIM_ASSERT_LE(scenario.events_size(), before);
  }

  // Drops events in chunks of n/2, n/4, ... 1.
  void drop_events(proto::Scenario& scenario) {
    const int before = scenario.events_size();
    for (int chunk = std::max(1, scenario.events_size() / 2); chunk >= 1 && budget_left();
         chunk /= 2) {
      for (int start = 0; start < scenario.events_size() && budget_left();) {
        std::vector<int> drop;
        for (int i = start; i < std::min(scenario.events_size(), start + chunk); ++i) {
          drop.push_back(i);
        }
        WSIM_ASSERT(!drop.empty());
        proto::Scenario candidate = without_events(scenario, drop);
        if (fails_same(candidate, nullptr)) {
          scenario = std::move(candidate);
        } else {
          start += chunk;
        }
      }
      if (chunk == 1) break;
    }
    WSIM_ASSERT_LE(scenario.events_size(), before);
  }

  // Drops fault overrides: with more than kFaultChunksFrom of them (a hunted run's pinned
  // faults), first in chunks of n/2, n/4, ... 2; then one by one, last first. True when one went.
  static constexpr int kFaultChunksFrom = 4;
  bool drop_faults(proto::Scenario& scenario) {
    const int before = scenario.faults_size();
    bool any = false;
    if (scenario.faults_size() > kFaultChunksFrom) {
      for (int chunk = scenario.faults_size() / 2; chunk >= 2 && budget_left(); chunk /= 2) {
        for (int start = 0; start < scenario.faults_size() && budget_left();) {
          proto::Scenario candidate = scenario;
          const int count = std::min(chunk, scenario.faults_size() - start);
          WSIM_ASSERT_GT(count, 0);
          candidate.mutable_faults()->DeleteSubrange(start, count);
          if (fails_same(candidate, nullptr)) {
            scenario = std::move(candidate);
            any = true;
          } else {
            start += chunk;
          }
        }
      }
    }
    for (int i = scenario.faults_size() - 1; i >= 0 && budget_left(); --i) {
      proto::Scenario candidate = scenario;
      candidate.mutable_faults()->DeleteSubrange(i, 1);
      if (fails_same(candidate, nullptr)) {
        scenario = std::move(candidate);
        any = true;
      }
    }
    WSIM_ASSERT_LE(scenario.faults_size(), before);
    if (any) WSIM_ASSERT_LT(scenario.faults_size(), before);
    return any;
  }

  // Coarse to fine (shrink.h): whole groups of events, then single events, then fault overrides,
  // then single events again when a fault went (an event may have been needed only with it).
  // With known bugs every kept form is the same bug, so a create + terminate under a 5xx storm
  // that also ends in the invariant but is another bug is not kept.
  proto::Scenario shrink(proto::Scenario scenario) {
    const int events = scenario.events_size();
    const int faults = scenario.faults_size();
    if (scenario.events_size() > 1) drop_groups(scenario);
    drop_events(scenario);
    if (drop_faults(scenario)) drop_events(scenario);
    // A shrunk scenario is no larger than its input.
    WSIM_ASSERT_LE(scenario.events_size(), events);
    WSIM_ASSERT_LE(scenario.faults_size(), faults);
    return scenario;
  }

  const System& system_;
  Verdict verdict_;
  std::string invariant_;
  const ScriptedOptions& options_;
  std::uint64_t runs_ = 0;
};

// Drops the events the system's dry run refuses (a mis-mapped action or target).
void drop_refused_events(proto::Scenario& scenario) {
  LoadedScenario whole;
  whole.scenario = scenario;
  std::string error;
  if (validate_scenario(whole, error)) return;
  proto::Scenario kept = scenario;
  kept.clear_events();
  for (const proto::ScriptedEvent& event : scenario.events()) {
    LoadedScenario alone;
    alone.scenario = scenario;
    alone.scenario.clear_events();
    *alone.scenario.add_events() = event;
    if (validate_scenario(alone, error)) *kept.add_events() = event;
  }
  WSIM_ASSERT_LE(kept.events_size(), scenario.events_size());
  scenario = kept;
}

}  // namespace

namespace {

// The rendered scenario without fault overrides: `source`'s config, phases and seed, scripted
// only, the shrunk run's external actions that the system accepts, expecting (verdict,
// invariant) on `source`'s versions.
proto::Scenario scripted_base(const System& system, const proto::Scenario& source,
                              const RunResult& shrunk, Verdict verdict,
                              const std::string& invariant, TargetFrom target_from) {
  WSIM_ASSERT(verdict == Verdict::kSafety || verdict == Verdict::kLiveness);
  WSIM_ASSERT(!invariant.empty());  // The expectation names it.
  proto::Scenario base = source;
  base.clear_events();
  base.clear_faults();
  base.clear_expect();
  base.clear_muted_actors();  // Scripted actions run as the muted actors would (user/ws1, ...).
  base.set_scripted_only(true);
  base.set_name((source.name().empty() ? std::string("run") : source.name()) + "-scripted");
  for (const proto::ScriptedEvent& event : scripted_events_of(system, shrunk.trace, target_from)) {
    *base.add_events() = event;
  }
  drop_refused_events(base);
  proto::Expectation* expect = base.add_expect();
  for (const VersionAxis& axis : system.axes()) {
    std::string value;
    if (config_value(source, system, axis.field, value)) {
      (*expect->mutable_when())[axis.field] = value;
    }
  }
  expect->set_verdict(to_proto(verdict));
  expect->set_invariant(invariant);
  return base;
}

proto::Scenario with_faults(const proto::Scenario& base, const std::vector<std::string>& names) {
  proto::Scenario scenario = base;
  for (const std::string& name : names) {
    WSIM_ASSERT(!name.empty());
    proto::FaultOverride* fault = scenario.add_faults();
    fault->set_name(name);
    fault->set_enabled(true);
  }
  return scenario;
}

proto::Scenario with_pins(const proto::Scenario& base,
                          const std::vector<proto::FaultOverride>& pins) {
  proto::Scenario scenario = base;
  for (const proto::FaultOverride& pin : pins) {
    WSIM_ASSERT(is_pinned(pin));  // Paired with pinned_faults.
    *scenario.add_faults() = pin;
  }
  return scenario;
}

// Seeds after the scenario's own tried with the pinned faults.
constexpr int kPinnedSeeds = 3;
// The name of every pinned variant starts with this.
constexpr const char* kPinnedForm = "faults pinned";
// Fault phase added to the pinned variants (see scripted_variants).
constexpr DurationMs kPinnedPhaseSlackMs = 60 * kSecondMs;

// The variants, most faithful first: the faults pinned to their moments (with the scenario's
// seed and kPinnedSeeds more); the rendered form; every fault the shrunk run had
// enabled; no faults; events shifted by ±1 s (a reply traced after its request; kept inside the
// fault phase); other seeds. Each for `base` (targets from the actors first), then for `other`
// (targets the objects name first) when it differs.
std::vector<std::pair<std::string, proto::Scenario>> scripted_variants(
    const proto::Scenario& base, const proto::Scenario& other, std::int64_t phase_ms,
    std::uint64_t seed, const std::vector<std::string>& fired,
    const std::vector<std::string>& enabled, const std::vector<proto::FaultOverride>& pins_by_time,
    const std::vector<proto::FaultOverride>& pins_by_count) {
  WSIM_ASSERT_GT(phase_ms, 0);
  std::vector<std::pair<std::string, proto::Scenario>> variants;
  auto forms = [&](const proto::Scenario& events, const std::string& suffix, int seeds) {
    // Faults pinned to the moments they fired first (docs/shrinking.md §6): what the reader
    // wants to see, and the form that does not depend on the seed drawing the same faults.
    for (const auto& [how, pins] :
         {std::pair{"by time", &pins_by_time}, std::pair{"by count", &pins_by_count}}) {
      if (pins->empty()) continue;
      if (how == std::string("by count") &&
          std::equal(pins->begin(), pins->end(), pins_by_time.begin(), pins_by_time.end(),
                     [](const auto& a, const auto& b) {
                       return google::protobuf::util::MessageDifferencer::Equals(a, b);
                     })) {
        continue;
      }
      for (std::uint64_t next = seed; next <= seed + static_cast<std::uint64_t>(kPinnedSeeds);
           ++next) {
        proto::Scenario pinned = with_pins(events, *pins);
        pinned.set_seed(next);
        // Nothing fires after the fault phase, pins included, and the phase is the tape run's
        // shortest: a scripted run slower to reach the pinned request needs slack. In a
        // scripted_only run only the pins fire, so a longer phase adds no other fault.
        pinned.set_fault_phase_ms(std::min(phase_ms + kPinnedPhaseSlackMs, kPhaseMsMax));
        variants.emplace_back(
            std::string(kPinnedForm) + " " + how + " (seed " + std::to_string(next) + ")" + suffix,
            pinned);
      }
    }
    variants.emplace_back("as rendered (seed " + std::to_string(seed) + ")" + suffix,
                          with_faults(events, fired));
    if (enabled.size() > fired.size()) {
      variants.emplace_back("every fault the shrunk run had enabled" + suffix,
                            with_faults(events, enabled));
    }
    if (!fired.empty())
      variants.emplace_back("no fault overrides" + suffix, with_faults(events, {}));
    for (const DurationMs shift_ms : {-kSecondMs, kSecondMs}) {
      proto::Scenario shifted = with_faults(events, fired);
      for (proto::ScriptedEvent& event : *shifted.mutable_events()) {
        event.set_at_ms(std::clamp<std::int64_t>(event.at_ms() + shift_ms, 0, phase_ms));
      }
      variants.emplace_back(std::string("event times ") + (shift_ms < 0 ? "-1s" : "+1s") + suffix,
                            shifted);
    }
    for (std::uint64_t next = seed + 1; next <= seed + static_cast<std::uint64_t>(seeds); ++next) {
      proto::Scenario reseeded = with_faults(events, fired);
      reseeded.set_seed(next);
      variants.emplace_back("seed " + std::to_string(next) + suffix, reseeded);
    }
  };
  const bool differ = !google::protobuf::util::MessageDifferencer::Equals(base, other);
  forms(base, "", 8);
  if (differ) forms(other, ", targets the objects name", 8);
  WSIM_ASSERT(!variants.empty());  // At least the rendered form.
  return variants;
}

// The pinned overrides of the shrunk run, both forms (pinned_faults), without the points whose
// firings the scripted events show (action_of_fault).
struct Pins {
  std::vector<proto::FaultOverride> by_time;
  std::vector<proto::FaultOverride> by_count;
};
Pins pins_of(const System& system, const proto::Scenario& source, const RunResult& shrunk) {
  const std::vector<std::string> per_request = request_points(system, source);
  std::vector<std::string> rendered;
  const std::vector<ActionInfo> catalog = system.actions();
  for (const TraceEvent& event : shrunk.trace) {
    if (const ActionInfo* info = action_of_fault(catalog, event)) {
      for (const std::string& name : event.faults) {
        if (action_of_fault(catalog, name) == info) rendered.push_back(name);
      }
    }
  }
  Pins pins{pinned_faults(shrunk.trace, per_request, rendered, PinBy::kTime),
            pinned_faults(shrunk.trace, per_request, rendered, PinBy::kCount)};
  WSIM_ASSERT_EQ(pins.by_time.size(), pins.by_count.size());  // One pin per firing, both ways.
  return pins;
}

// Tries the variants in order and sets out.form / out.scenario / out.tried. The first pinned and
// the first unpinned variant that reproduce are both shrunk (the scenario's own events, first
// when `own_first`, are taken as they come when they reproduce): the result is the one with
// fewer events, the pinned one on a tie (docs/shrinking.md §6: a pinned fault does not depend on
// the seed drawing it at the right moment). Without pins, the first that reproduces.
void choose_form(ScriptedShrinker& shrinker,
                 std::vector<std::pair<std::string, proto::Scenario>>& variants, bool own_first,
                 bool any_pins, const ScriptedOptions& options, ScriptedResult& out) {
  WSIM_ASSERT(!variants.empty());
  out.scenario = variants.front().second;
  bool have_pinned = false;
  bool have_plain = false;
  for (auto& [form, scenario] : variants) {
    const bool own = own_first;
    own_first = false;
    const bool pinned = form.rfind(kPinnedForm, 0) == 0;
    if (pinned ? have_pinned : have_plain) continue;
    std::string what;
    const bool same = shrinker.fails_same(scenario, &what);
    out.tried.push_back(form + ": " + what);
    if (options.progress != nullptr) {
      *options.progress << "scripted: " << form << ": " << what << "\n";
    }
    if (!same) continue;
    proto::Scenario shrunk_form = shrinker.shrink(scenario);
    const bool first = !have_pinned && !have_plain;
    const bool better = first || shrunk_form.events_size() < out.scenario.events_size() ||
                        (shrunk_form.events_size() == out.scenario.events_size() && pinned);
    if (better) {
      out.form = form;
      out.scenario = std::move(shrunk_form);
    }
    (pinned ? have_pinned : have_plain) = true;
    if (own || !any_pins || (have_pinned && have_plain)) break;
  }
  WSIM_ASSERT_LE(out.tried.size(), variants.size());
}

}  // namespace

ScriptedResult render_scripted(const System& system, const proto::Scenario& source,
                               const RunResult& shrunk, Verdict verdict,
                               const std::string& invariant, const ScriptedOptions& options) {
  WSIM_ASSERT(verdict == Verdict::kSafety || verdict == Verdict::kLiveness);
  WSIM_ASSERT(!invariant.empty());
  ScriptedResult out;
  out.invariant = invariant;
  const proto::Scenario base =
      scripted_base(system, source, shrunk, verdict, invariant, TargetFrom::kActorFirst);
  const proto::Scenario other =
      scripted_base(system, source, shrunk, verdict, invariant, TargetFrom::kObjectFirst);
  out.events_rendered = base.events_size();
  const std::vector<std::string> fired = fired_faults(shrunk);
  out.faults_rendered = static_cast<int>(fired.size());
  const std::int64_t phase_ms =
      source.fault_phase_ms() > 0 ? source.fault_phase_ms() : system.default_fault_phase_ms();
  const Pins pins = pins_of(system, source, shrunk);
  out.faults_pinned = static_cast<int>(pins.by_time.size());
  std::vector<std::pair<std::string, proto::Scenario>> variants =
      scripted_variants(base, other, phase_ms, source.seed(), fired, enabled_faults(shrunk),
                        pins.by_time, pins.by_count);
  const proto::Scenario& original = options.original != nullptr ? *options.original : source;
  if (original.scripted_only() && original.events_size() > 0) {
    // A scripted scenario (a corpus file's script) is its own best rendering: its events, fault
    // overrides and phases as they are, run from its seed, come first.
    proto::Scenario own = base;
    *own.mutable_events() = original.events();
    *own.mutable_faults() = original.faults();
    own.set_fault_phase_ms(original.fault_phase_ms());
    own.set_settle_ms(original.settle_ms());
    variants.insert(
        variants.begin(),
        {"the scenario's own events (seed " + std::to_string(source.seed()) + ")", own});
  }

  ScriptedShrinker shrinker(system, verdict, invariant, options);
  choose_form(shrinker, variants, original.scripted_only() && original.events_size() > 0,
              !pins.by_time.empty(), options, out);

  // The final word is a run of the final text: nothing is claimed that was not checked.
  RunResult final_run;
  std::string error;
  ++shrinker.runs_;
  if (run_scenario_text(scripted_to_text(out.scenario, system), final_run, error,
                        options.events_max, options.known)) {
    out.verdict = final_run.verdict;
    out.reproduces = shrinker.same(final_run);
    if (!out.reproduces) {
      out.invariant = final_run.violation ? final_run.violation->invariant_id : "";
    }
  }
  if (out.reproduces) WSIM_ASSERT(!out.form.empty());
  out.events_kept = out.scenario.events_size();
  out.runs = shrinker.runs_;
  WSIM_ASSERT_LE(out.runs, options.max_runs + 1);  // The budget, then the final check.
  return out;
}

}  // namespace wsim::run
