// The scripted form of a shrunk run (shrink.h: scripted_events_of, scripted_to_text,
// render_scripted, run_scenario_text).
#include "sim/search/shrink.h"

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
      return std::find(e.faults.begin(), e.faults.end(), name) != e.faults.end();
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
    if (actor.empty() || is_scripted_marker(event)) continue;
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
    if (is_scripted_marker(event)) continue;  // The driver's marker; the action follows.
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

namespace {

// The rendered scenario without fault overrides: `source`'s config, phases and seed, scripted
// only, the shrunk run's external actions that the system accepts, expecting (verdict,
// invariant) on `source`'s versions.
proto::Scenario scripted_base(const System& system, const proto::Scenario& source,
                              const RunResult& shrunk, Verdict verdict,
                              const std::string& invariant) {
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
    proto::FaultOverride* fault = scenario.add_faults();
    fault->set_name(name);
    fault->set_enabled(true);
  }
  return scenario;
}

// The variants, most faithful first: the rendered form; every fault the shrunk run had
// enabled; no faults; events shifted by ±1 s (a reply traced after its request); other seeds.
std::vector<std::pair<std::string, proto::Scenario>> scripted_variants(
    const proto::Scenario& base, std::uint64_t seed, const std::vector<std::string>& fired,
    const std::vector<std::string>& enabled) {
  std::vector<std::pair<std::string, proto::Scenario>> variants;
  variants.emplace_back("as rendered (seed " + std::to_string(seed) + ")",
                        with_faults(base, fired));
  if (enabled.size() > fired.size()) {
    variants.emplace_back("every fault the shrunk run had enabled", with_faults(base, enabled));
  }
  if (!fired.empty()) variants.emplace_back("no fault overrides", with_faults(base, {}));
  for (const DurationMs shift_ms : {-kSecondMs, kSecondMs}) {
    proto::Scenario shifted = with_faults(base, fired);
    for (proto::ScriptedEvent& event : *shifted.mutable_events()) {
      event.set_at_ms(std::max<std::int64_t>(0, event.at_ms() + shift_ms));
    }
    variants.emplace_back(std::string("event times ") + (shift_ms < 0 ? "-1s" : "+1s"), shifted);
  }
  for (std::uint64_t other = seed + 1; other <= seed + 8; ++other) {
    proto::Scenario reseeded = with_faults(base, fired);
    reseeded.set_seed(other);
    variants.emplace_back("seed " + std::to_string(other), reseeded);
  }
  return variants;
}

}  // namespace

ScriptedResult render_scripted(const System& system, const proto::Scenario& source,
                               const RunResult& shrunk, Verdict verdict,
                               const std::string& invariant, const ScriptedOptions& options) {
  WSIM_ASSERT(verdict == Verdict::kSafety || verdict == Verdict::kLiveness);
  WSIM_ASSERT(!invariant.empty());
  ScriptedResult out;
  out.invariant = invariant;
  const proto::Scenario base = scripted_base(system, source, shrunk, verdict, invariant);
  out.events_rendered = base.events_size();
  const std::vector<std::string> fired = fired_faults(shrunk);
  out.faults_rendered = static_cast<int>(fired.size());
  std::vector<std::pair<std::string, proto::Scenario>> variants =
      scripted_variants(base, source.seed(), fired, enabled_faults(shrunk));

  ScriptedShrinker shrinker(system, verdict, invariant, options);
  out.scenario = variants.front().second;
  for (auto& [form, scenario] : variants) {
    std::string what;
    const bool same = shrinker.fails_same(scenario, &what);
    out.tried.push_back(form + ": " + what);
    if (options.progress != nullptr) {
      *options.progress << "scripted: " << form << ": " << what << "\n";
    }
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
    if (!out.reproduces) {
      out.invariant = final_run.violation ? final_run.violation->invariant_id : "";
    }
  }
  if (out.reproduces) WSIM_ASSERT(!out.form.empty());
  out.events_kept = out.scenario.events_size();
  out.runs = shrinker.runs_;
  return out;
}

}  // namespace wsim::run
