#include "sim/run/shrink.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <tuple>

#include <google/protobuf/text_format.h>

#include "sim/core/assert.h"
#include "sim/run/bundle.h"
#include "sim/run/commands.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"

namespace wsim::run {

namespace {

std::vector<std::uint64_t> normalized(std::vector<std::uint64_t> tape) {
  while (!tape.empty() && tape.back() == 0) tape.pop_back();
  return tape;
}

std::size_t nonzero(const std::vector<std::uint64_t>& tape) {
  return static_cast<std::size_t>(
      std::count_if(tape.begin(), tape.end(), [](std::uint64_t v) { return v != 0; }));
}

// Shortlex: shorter first, then lexicographically smaller.
bool simpler(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

class Shrinker {
 public:
  Shrinker(const System& system, const ShrinkOptions& options)
      : system_(system), options_(options) {}

  // Runs the candidate; keeps it when it fails with the same invariant and is simpler.
  bool try_candidate(const proto::Scenario& scenario, const std::vector<std::uint64_t>& tape) {
    if (runs_ >= options_.max_runs) {
      exhausted_ = true;
      return false;
    }
    ++runs_;
    RunOptions run_options;
    run_options.tape = tape;
    run_options.record_choices = true;
    run_options.events_max = options_.events_max;
    const RunResult result = execute_run(system_, scenario, run_options);
    if (!same_failure(result)) return false;
    std::vector<std::uint64_t> next = normalized(tape_of(result.record));
    const bool fewer_events = scenario.events_size() < scenario_.events_size();
    if (!fewer_events && !simpler(next, tape_)) return false;
    scenario_ = scenario;
    tape_ = std::move(next);
    return true;
  }

  bool same_failure(const RunResult& result) const {
    return result.verdict == verdict_ && result.violation &&
           result.violation->invariant_id == invariant_;
  }

  bool budget_left() const { return runs_ < options_.max_runs; }

  // Drops scripted events: chunks of n/2, n/4, ... 1.
  bool pass_events() {
    bool any = false;
    for (int chunk = std::max(1, scenario_.events_size() / 2); chunk >= 1; chunk /= 2) {
      for (int start = 0; start < scenario_.events_size() && budget_left();) {
        proto::Scenario candidate = scenario_;
        candidate.clear_events();
        for (int i = 0; i < scenario_.events_size(); ++i) {
          if (i < start || i >= start + chunk) *candidate.add_events() = scenario_.events(i);
        }
        if (try_candidate(candidate, tape_)) {
          any = true;  // Same start: the next chunk moved into place.
        } else {
          start += chunk;
        }
      }
      if (chunk == 1) break;
    }
    return any;
  }

  // The shortest prefix that still fails (binary search; not monotonic in general, so it is a
  // heuristic, and the kept result is always a verified failure).
  bool pass_truncate() {
    bool any = false;
    std::size_t lo = 0;
    std::size_t hi = tape_.size();
    while (lo < hi && budget_left()) {
      const std::size_t mid = lo + (hi - lo) / 2;
      std::vector<std::uint64_t> candidate(tape_.begin(), tape_.begin() + mid);
      if (try_candidate(scenario_, candidate)) {
        any = true;
        hi = std::min(mid, tape_.size());
      } else {
        lo = mid + 1;
      }
    }
    return any;
  }

  // Zeroes (or deletes) spans, coarse to fine. Spans that are already all zero are skipped.
  bool pass_spans(bool remove, std::size_t smallest) {
    bool any = false;
    std::size_t block = 1;
    while (block * 2 <= tape_.size() / 2) block *= 2;
    for (; block >= smallest && budget_left(); block /= 2) {
      for (std::size_t start = 0; start < tape_.size() && budget_left();) {
        const std::size_t end = std::min(tape_.size(), start + block);
        const bool all_zero =
            std::all_of(tape_.begin() + start, tape_.begin() + end, [](auto v) { return v == 0; });
        if (all_zero && !remove) {
          start = end;
          continue;
        }
        std::vector<std::uint64_t> candidate = tape_;
        if (remove) {
          candidate.erase(candidate.begin() + start, candidate.begin() + end);
        } else {
          std::fill(candidate.begin() + start, candidate.begin() + end, 0);
        }
        if (try_candidate(scenario_, candidate)) {
          any = true;
          if (!remove) start = end;  // Deleted: the same start now holds what followed.
        } else {
          start = end;
        }
      }
      if (block == 1) break;
    }
    return any;
  }

  // Lowers single non-zero values: to half, then by one.
  bool pass_lower() {
    bool any = false;
    for (std::size_t i = 0; i < tape_.size() && budget_left(); ++i) {
      if (tape_[i] <= 1) continue;  // 1 → 0 is the zero pass's job.
      std::vector<std::uint64_t> candidate = tape_;
      candidate[i] = tape_[i] / 2;
      if (try_candidate(scenario_, candidate)) {
        any = true;
        continue;
      }
      candidate[i] = tape_[i] - 1;
      if (try_candidate(scenario_, candidate)) any = true;
    }
    return any;
  }

  void report(const char* pass) {
    if (options_.progress == nullptr) return;
    *options_.progress << "shrink: " << std::left << pass << " → " << tape_.size() << " choices ("
                       << nonzero(tape_) << " non-zero), " << scenario_.events_size()
                       << " scripted events, " << runs_ << " runs\n";
    options_.progress->flush();
  }

  const System& system_;
  const ShrinkOptions& options_;
  proto::Scenario scenario_;
  std::vector<std::uint64_t> tape_;
  Verdict verdict_ = Verdict::kPass;
  std::string invariant_;
  std::uint64_t runs_ = 0;
  bool exhausted_ = false;
};

}  // namespace

std::vector<TraceEvent> external_events(const System& system,
                                        const std::vector<TraceEvent>& trace) {
  // (actor, action) of the catalog; a trace event matches when its actor (up to '/') is the
  // actor and its verb is the action, the action's first word ("delete" of delete_namespace), or
  // the action with a suffix ("start-reply" of start).
  const std::vector<ActionInfo> catalog = system.actions();
  auto matches = [&](const TraceEvent& event) {
    const std::string actor = event.actor.substr(0, event.actor.find('/'));
    for (const ActionInfo& info : catalog) {
      if (info.actor != actor) continue;
      const std::string& action = info.action;
      const std::string& verb = event.verb;
      if (verb == action) return true;
      if (action.size() > verb.size() && action.compare(0, verb.size(), verb) == 0 &&
          action[verb.size()] == '_') {
        return true;
      }
      if (verb.size() > action.size() && verb.compare(0, action.size(), action) == 0 &&
          verb[action.size()] == '-') {
        return true;
      }
    }
    return false;
  };
  std::vector<TraceEvent> out;
  for (const TraceEvent& event : trace) {
    if (event.result == "scripted") continue;
    if (matches(event)) out.push_back(event);
  }
  return out;
}

std::string render_events(const std::vector<TraceEvent>& events) {
  std::ostringstream out;
  for (const TraceEvent& event : events) {
    out << "  " << std::right << std::setw(14) << format_duration_ms(event.time_ms) << "  "
        << std::left << std::setw(10) << event.actor << " " << std::setw(18) << event.verb << " "
        << event.object << (event.result.empty() ? "" : "  (" + event.result + ")") << "\n";
  }
  return out.str();
}

ShrinkResult shrink_run(const System& system, const proto::Scenario& scenario,
                        const std::vector<std::uint64_t>& tape, const ShrinkOptions& options) {
  ShrinkResult out;
  Shrinker shrinker(system, options);

  // The original run: it must fail with a violation.
  RunOptions first_options;
  first_options.tape = tape;
  first_options.record_choices = true;
  first_options.keep_trace = true;
  first_options.events_max = options.events_max;
  const RunResult first = execute_run(system, scenario, first_options);
  out.runs = 1;
  if ((first.verdict != Verdict::kSafety && first.verdict != Verdict::kLiveness) ||
      !first.violation) {
    out.error = std::string("the run does not fail with a violation (verdict ") +
                verdict_name(first.verdict) + "): nothing to shrink";
    return out;
  }
  out.verdict = first.verdict;
  out.invariant = first.violation->invariant_id;
  shrinker.verdict_ = first.verdict;
  shrinker.invariant_ = out.invariant;
  shrinker.scenario_ = scenario;
  shrinker.tape_ = normalized(tape_of(first.record));
  out.choices_before = shrinker.tape_.size();
  out.nonzero_before = nonzero(shrinker.tape_);
  out.scripted_before = scenario.events_size();
  out.external_before = external_events(system, first.trace).size();

  // Coarse spans first (a 10 000-choice tape would otherwise spend the budget on single
  // choices); finer once the coarse passes stop helping.
  std::size_t granularity = 64;
  bool progress = true;
  while (progress && shrinker.budget_left()) {
    progress = false;
    const auto size_before = std::make_tuple(shrinker.scenario_.events_size(),
                                             shrinker.tape_.size(), nonzero(shrinker.tape_));
    const std::size_t smallest = std::max<std::size_t>(1, shrinker.tape_.size() / granularity);
    if (shrinker.scenario_.events_size() > 0 && shrinker.pass_events()) {
      progress = true;
      shrinker.report("events");
    }
    if (shrinker.pass_truncate()) {
      progress = true;
      shrinker.report("truncate");
    }
    if (shrinker.pass_spans(false, smallest)) {
      progress = true;
      shrinker.report("zero");
    }
    if (shrinker.pass_spans(true, smallest)) {
      progress = true;
      shrinker.report("delete");
    }
    if (!progress && smallest > 1) {
      granularity *= 8;
      progress = true;
      continue;
    }
    if (!progress) {
      // Finest granularity and nothing helped: lower single values once; go on only if that
      // made the run smaller in events, length or non-zero choices (not just lower values).
      if (shrinker.pass_lower()) shrinker.report("lower");
      progress = std::make_tuple(shrinker.scenario_.events_size(), shrinker.tape_.size(),
                                 nonzero(shrinker.tape_)) < size_before;
    }
  }

  RunOptions final_options;
  final_options.tape = shrinker.tape_;
  final_options.record_choices = true;
  final_options.keep_trace = true;
  final_options.events_max = options.events_max;
  out.run = execute_run(system, shrinker.scenario_, final_options);
  out.runs = shrinker.runs_ + 2;
  out.ok = shrinker.same_failure(out.run);
  if (!out.ok) out.error = "the shrunk run no longer fails the same way (nondeterminism?)";
  out.budget_exhausted = shrinker.exhausted_ || !shrinker.budget_left();
  out.scenario = shrinker.scenario_;
  out.tape = shrinker.tape_;
  out.choices_after = shrinker.tape_.size();
  out.nonzero_after = nonzero(shrinker.tape_);
  out.scripted_after = shrinker.scenario_.events_size();
  out.external_after = external_events(system, out.run.trace).size();
  return out;
}

// ---- The scripted form (design.md §6: "rendered as a short readable scenario").

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string dashes_to_underscores(std::string text) {
  std::replace(text.begin(), text.end(), '-', '_');
  return text;
}

// `needle` occurs in `hay` with a boundary ('-', '/', start, end) on both sides.
bool contains_at_boundary(const std::string& hay, const std::string& needle) {
  if (needle.empty()) return false;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) {
    const bool left = at == 0 || hay[at - 1] == '-' || hay[at - 1] == '/';
    const std::size_t end = at + needle.size();
    const bool right = end == hay.size() || hay[end] == '-' || hay[end] == '/';
    if (left && right) return true;
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
    if (entry.second.rfind("on", 0) != 0) continue;  // Off, or a system parameter.
    const bool fired = std::any_of(run.trace.begin(), run.trace.end(), [&](const TraceEvent& e) {
      if (e.detail.find("fault " + name) != std::string::npos) return true;
      return e.result == "lost" && e.detail == "fault" && name == e.actor + ".lost_" + e.verb;
    });
    if (fired) out.push_back(name);
  }
  return out;
}

std::vector<std::string> enabled_faults(const RunResult& run) {
  std::vector<std::string> out;
  for (const auto& [name, value] : run.swarm) {
    if (value.rfind("on", 0) == 0) out.push_back(name);
  }
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

std::vector<proto::ScriptedEvent> scripted_events_of(const System& system,
                                                     const std::vector<TraceEvent>& trace) {
  const std::vector<ActionInfo> catalog = system.actions();
  // Known targets: actor suffixes of catalog actors, and plain objects of exact catalog events.
  std::vector<std::string> targets;
  for (const TraceEvent& event : trace) {
    const std::string actor = catalog_actor(catalog, event.actor);
    if (actor.empty() || event.result == "scripted") continue;
    const std::size_t slash = event.actor.find('/');
    if (slash != std::string::npos) targets.push_back(event.actor.substr(slash + 1));
    const bool exact = std::any_of(catalog.begin(), catalog.end(), [&](const ActionInfo& info) {
      return info.actor == actor && info.action == event.verb;
    });
    if (exact && !event.object.empty() && event.object.find('/') == std::string::npos) {
      targets.push_back(event.object);
    }
  }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());

  std::vector<proto::ScriptedEvent> out;
  for (const TraceEvent& event : trace) {
    if (event.result == "scripted") continue;  // The driver's marker; the action follows.
    const std::string actor = catalog_actor(catalog, event.actor);
    if (actor.empty()) continue;
    const std::string verb = dashes_to_underscores(event.verb);
    const std::string text = lower(event.object + " " + event.detail);
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
      if (score < 0) continue;
      score += word_score(info.action, text);
      const bool better =
          score > best_score || (score == best_score && info.action.size() < best->action.size());
      if (better) {
        best = &info;
        best_score = score;
      }
    }
    if (best == nullptr) continue;
    proto::ScriptedEvent scripted;
    scripted.set_at_ms(event.time_ms);
    scripted.set_actor(best->actor);
    scripted.set_action(best->action);
    const std::size_t slash = event.actor.find('/');
    std::string target;
    if (slash != std::string::npos) {
      target = event.actor.substr(slash + 1);
    } else {
      for (const std::string& known : targets) {
        if (known.size() > target.size() && contains_at_boundary(event.object, known)) {
          target = known;
        }
      }
      if (target.empty()) target = event.object.substr(event.object.rfind('/') + 1);
    }
    scripted.set_target(target);
    out.push_back(std::move(scripted));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.at_ms() < b.at_ms(); });
  return out;
}

std::string scripted_to_text(const proto::Scenario& scenario, const System& system) {
  google::protobuf::TextFormat::Printer line;
  line.SetSingleLineMode(true);
  auto one_line = [&](const google::protobuf::Message& message) {
    std::string text;
    line.PrintToString(message, &text);
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
  return out;
}

bool run_scenario_text(const std::string& text, RunResult& result, std::string& error,
                       std::uint64_t events_max) {
  LoadedScenario loaded;
  if (!parse_scenario(text, "scripted.textproto", loaded, error)) return false;
  if (!validate_scenario(loaded, error)) return false;
  RunOptions options;
  options.events_max = events_max;
  result = execute_run(*loaded.system, loaded.scenario, options);
  return true;
}

namespace {

class ScriptedShrinker {
 public:
  ScriptedShrinker(const System& system, Verdict verdict, std::string invariant,
                   const ScriptedOptions& options)
      : system_(system), verdict_(verdict), invariant_(std::move(invariant)), options_(options) {}

  bool budget_left() const { return runs_ < options_.max_runs; }

  // Runs the candidate through its text form: what a reader's `wsim run --scenario` does.
  bool fails_same(const proto::Scenario& candidate, std::string* what) {
    if (!budget_left()) {
      if (what != nullptr) *what = "not run (budget spent)";
      return false;
    }
    ++runs_;
    RunResult result;
    std::string error;
    if (!run_scenario_text(scripted_to_text(candidate, system_), result, error,
                           options_.events_max)) {
      if (what != nullptr) *what = "does not load: " + error;
      return false;
    }
    if (what != nullptr) *what = outcome(result);
    return same_failure(result, verdict_, invariant_);
  }

  // Drops fault overrides one by one, then events (chunks n/2 ... 1): faults first, so that the
  // story is told by the external actions (a create + terminate under a 5xx storm also ends in
  // gitlab.L1, but it is not the issue a reader knows).
  proto::Scenario shrink(proto::Scenario scenario) {
    for (int i = scenario.faults_size() - 1; i >= 0 && budget_left(); --i) {
      proto::Scenario candidate = scenario;
      candidate.mutable_faults()->DeleteSubrange(i, 1);
      if (fails_same(candidate, nullptr)) scenario = candidate;
    }
    for (int chunk = std::max(1, scenario.events_size() / 2); chunk >= 1 && budget_left();
         chunk /= 2) {
      for (int start = 0; start < scenario.events_size() && budget_left();) {
        proto::Scenario candidate = scenario;
        candidate.clear_events();
        for (int i = 0; i < scenario.events_size(); ++i) {
          if (i < start || i >= start + chunk) *candidate.add_events() = scenario.events(i);
        }
        if (fails_same(candidate, nullptr)) {
          scenario = candidate;
        } else {
          start += chunk;
        }
      }
      if (chunk == 1) break;
    }
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
  scenario = kept;
}

}  // namespace

ScriptedResult render_scripted(const System& system, const proto::Scenario& source,
                               const RunResult& shrunk, Verdict verdict,
                               const std::string& invariant, const ScriptedOptions& options) {
  WSIM_ASSERT(verdict == Verdict::kSafety || verdict == Verdict::kLiveness);
  WSIM_ASSERT(!invariant.empty());
  ScriptedResult out;
  out.invariant = invariant;

  proto::Scenario base = source;
  base.clear_events();
  base.clear_faults();
  base.clear_expect();
  base.set_scripted_only(true);
  base.set_name((source.name().empty() ? std::string("run") : source.name()) + "-scripted");
  for (const proto::ScriptedEvent& event : scripted_events_of(system, shrunk.trace)) {
    *base.add_events() = event;
  }
  drop_refused_events(base);
  proto::Expectation* expect = base.add_expect();
  for (const VersionAxis& axis : system.axes()) {
    std::string value;
    if (config_value(source, system, axis.field, value))
      (*expect->mutable_when())[axis.field] = value;
  }
  expect->set_verdict(to_proto(verdict));
  expect->set_invariant(invariant);
  out.events_rendered = base.events_size();

  auto with_faults = [&](const std::vector<std::string>& names) {
    proto::Scenario scenario = base;
    for (const std::string& name : names) {
      proto::FaultOverride* fault = scenario.add_faults();
      fault->set_name(name);
      fault->set_enabled(true);
    }
    return scenario;
  };
  const std::vector<std::string> fired = fired_faults(shrunk);
  out.faults_rendered = static_cast<int>(fired.size());

  // The variants, most faithful first: the rendered form; every fault the shrunk run had
  // enabled; no faults; events shifted by ±1 s (a reply traced after its request); other seeds.
  std::vector<std::pair<std::string, proto::Scenario>> variants;
  variants.emplace_back("as rendered (seed " + std::to_string(source.seed()) + ")",
                        with_faults(fired));
  const std::vector<std::string> enabled = enabled_faults(shrunk);
  if (enabled.size() > fired.size()) {
    variants.emplace_back("every fault the shrunk run had enabled", with_faults(enabled));
  }
  if (!fired.empty()) variants.emplace_back("no fault overrides", with_faults({}));
  for (const DurationMs shift_ms : {-kSecondMs, kSecondMs}) {
    proto::Scenario shifted = with_faults(fired);
    for (proto::ScriptedEvent& event : *shifted.mutable_events()) {
      event.set_at_ms(std::max<std::int64_t>(0, event.at_ms() + shift_ms));
    }
    variants.emplace_back(std::string("event times ") + (shift_ms < 0 ? "-1s" : "+1s"), shifted);
  }
  for (std::uint64_t seed = source.seed() + 1; seed <= source.seed() + 8; ++seed) {
    proto::Scenario reseeded = with_faults(fired);
    reseeded.set_seed(seed);
    variants.emplace_back("seed " + std::to_string(seed), reseeded);
  }

  ScriptedShrinker shrinker(system, verdict, invariant, options);
  out.scenario = variants.front().second;
  for (auto& [form, scenario] : variants) {
    std::string what;
    const bool same = shrinker.fails_same(scenario, &what);
    out.tried.push_back(form + ": " + what);
    if (options.progress != nullptr)
      *options.progress << "scripted: " << form << ": " << what << "\n";
    if (!same) continue;
    out.form = form;
    out.scenario = shrinker.shrink(scenario);
    break;
  }

  // The final word is a run of the final text: nothing is claimed that was not checked.
  RunResult final_run;
  std::string error;
  ++shrinker.runs_;
  if (run_scenario_text(scripted_to_text(out.scenario, system), final_run, error,
                        options.events_max)) {
    out.verdict = final_run.verdict;
    out.reproduces = same_failure(final_run, verdict, invariant);
    if (!out.reproduces)
      out.invariant = final_run.violation ? final_run.violation->invariant_id : "";
  }
  if (out.reproduces) WSIM_ASSERT(!out.form.empty());
  out.events_kept = out.scenario.events_size();
  out.runs = shrinker.runs_;
  return out;
}

int cmd_shrink(const ShrinkCommand& command, std::ostream& out, std::ostream& err) {
  Bundle bundle;
  std::string error;
  if (!read_bundle(command.bundle, bundle, error) || !validate_scenario(bundle.scenario, error)) {
    err << "wsim shrink: " << error << "\n";
    return kExitUsage;
  }
  const System& system = *bundle.scenario.system;
  ShrinkOptions options;
  options.max_runs = command.max_runs;
  options.events_max = command.events_max;
  options.progress = &err;
  ShrinkResult result =
      shrink_run(system, bundle.scenario.scenario, tape_of(bundle.record), options);
  if (!result.ok) {
    err << "wsim shrink: " << command.bundle << ": " << result.error << "\n";
    return kExitUsage;
  }
  const std::vector<TraceEvent> events = external_events(system, result.run.trace);
  std::ostringstream summary;
  summary << "shrunk " << command.bundle << "\n"
          << "  " << verdict_name(result.verdict) << " " << result.invariant
          << (result.run.violation && !result.run.violation->object.empty()
                  ? " on " + result.run.violation->object
                  : "")
          << (result.run.violation ? ": " + result.run.violation->message : "") << "\n"
          << "  external events " << result.external_before << " -> " << result.external_after
          << ", scripted events " << result.scripted_before << " -> " << result.scripted_after
          << ", choices " << result.choices_before << " -> " << result.choices_after
          << " (non-zero " << result.nonzero_before << " -> " << result.nonzero_after << "), "
          << result.runs << " runs" << (result.budget_exhausted ? " (run budget spent)" : "")
          << "\n"
          << "external events of the shrunk run (" << events.size() << "):\n"
          << render_events(events);
  out << summary.str();

  // The readable form, verified (shrink.h "The short readable scenario").
  ScriptedResult scripted;
  std::string scripted_file_text;
  if (command.scripted_max_runs > 0) {
    ScriptedOptions scripted_options;
    scripted_options.max_runs = command.scripted_max_runs;
    scripted_options.events_max = command.events_max;
    scripted_options.progress = &err;
    scripted = render_scripted(system, bundle.scenario.scenario, result.run, result.verdict,
                               result.invariant, scripted_options);
    std::ostringstream scripted_summary;
    scripted_summary << "scripted form: " << scripted.events_rendered << " events and "
                     << scripted.faults_rendered << " fired faults rendered from the shrunk run -> "
                     << scripted.events_kept << " events, " << scripted.scenario.faults_size()
                     << " fault overrides, " << scripted.runs << " runs\n"
                     << "scripted form reproduces: "
                     << (scripted.reproduces
                             ? "yes (" + scripted.form + ")"
                             : std::string("no: it gives ") + verdict_name(scripted.verdict) +
                                   (scripted.invariant.empty() ? "" : " " + scripted.invariant))
                     << "\n";
    for (const std::string& tried : scripted.tried) scripted_summary << "  tried " << tried << "\n";
    out << scripted_summary.str();
    summary << scripted_summary.str();
  }

  // The shrunk bundle: scenario (scripted events dropped) + the shrunk choice record, so
  // `wsim replay` re-executes it exactly; shrink.txt holds the summary above.
  proto::Scenario scenario = result.scenario;
  scenario.set_name((scenario.name().empty() ? std::string("run") : scenario.name()) + "-shrunk");
  std::string target = command.out;
  if (target.empty()) {
    target = (std::filesystem::path(command.bundle).lexically_normal().string());
    while (!target.empty() && target.back() == '/') target.pop_back();
    target += "-shrunk";
  }
  const std::filesystem::path final_path(target);
  const std::filesystem::path parent =
      final_path.has_parent_path() ? final_path.parent_path() : std::filesystem::path(".");
  const std::string staging = (parent / (".tmp-shrink-" + final_path.filename().string())).string();
  std::error_code ec;
  std::filesystem::remove_all(staging, ec);
  std::string written;
  if (!write_bundle(staging, system, scenario, result.run, written, error)) {
    err << "wsim shrink: cannot write the bundle: " << error << "\n";
    return kExitUsage;
  }
  {
    std::ofstream file(std::filesystem::path(written) / "shrink.txt");
    file << summary.str();
  }
  if (command.scripted_max_runs > 0) {
    const std::string scripted_path =
        (std::filesystem::path(target) / "scripted.textproto").string();
    std::ostringstream text;
    text << "# wsim shrink " << command.bundle << ": the readable form of the shrunk run\n"
         << "# " << verdict_name(result.verdict) << " " << result.invariant << " on "
         << describe_versions(result.scenario, system) << " (bundle seed "
         << bundle.scenario.scenario.seed() << ")\n";
    if (result.run.violation) {
      text << "# " << result.run.violation->object << ": " << result.run.violation->message << "\n";
    }
    text << "# " << scripted.events_rendered << " external events rendered from the shrunk run ("
         << target << "), " << scripted.events_kept << " kept; " << scripted.scenario.faults_size()
         << " fault overrides\n";
    if (scripted.reproduces) {
      text << "# scripted form reproduces: yes (" << scripted.form
           << "; checked by running this text from its seed)\n"
           << "# run it: scripts/wsim run --scenario " << shell_quote(scripted_path) << "\n";
    } else {
      text << "# scripted form reproduces: NO (this text gives " << verdict_name(scripted.verdict)
           << (scripted.invariant.empty() ? "" : " " + scripted.invariant)
           << "): the failure reproduces only through the shrunk bundle's choices.bin:\n"
           << "#   scripts/wsim replay " << shell_quote(target) << "\n";
    }
    scripted_file_text = text.str() + scripted_to_text(scripted.scenario, system);
    std::ofstream file(std::filesystem::path(written) / "scripted.textproto");
    file << scripted_file_text;
  }
  {
    // The scenario's comment names the staging directory: point it at the final one.
    const std::filesystem::path scenario_file =
        std::filesystem::path(written) / "scenario.textproto";
    std::ifstream in(scenario_file);
    std::ostringstream text;
    text << in.rdbuf();
    std::string body = text.str();
    for (std::size_t at = body.find(written); at != std::string::npos;
         at = body.find(written, at + target.size())) {
      body.replace(at, written.size(), target);
    }
    std::ofstream rewritten(scenario_file, std::ios::trunc);
    rewritten << "# shrunk by `wsim shrink " << command.bundle << "`: " << result.external_after
              << " external events (shrink.txt); run it only through its choices.bin\n"
              << body;
  }
  std::filesystem::remove_all(final_path, ec);
  std::filesystem::rename(written, final_path, ec);
  if (ec) {
    err << "wsim shrink: cannot move the bundle to " << target << ": " << ec.message() << "\n";
    return kExitUsage;
  }
  std::filesystem::remove_all(staging, ec);
  out << "bundle " << target << "\n"
      << "reproduce with:\n  scripts/wsim replay " << shell_quote(target) << "\n";
  if (!scripted_file_text.empty()) {
    out << "\n" << target << "/scripted.textproto:\n" << scripted_file_text;
  }
  return exit_code(result.verdict);
}

}  // namespace wsim::run
