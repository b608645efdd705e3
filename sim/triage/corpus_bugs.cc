// The corpus's bugs (corpus_bugs.h): every violation expectation of the corpus files, their
// hunting scenarios and signatures (the known bugs), which apply to a run, labelling, and the fix
// switches that tell what fixes a bug.
#include "sim/triage/corpus_bugs.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <utility>

#include "sim/core/assert.h"
#include "sim/core/prng.h"
#include "sim/run/driver.h"
#include "sim/run/verdict.h"
#include "sim/triage/corpus_evidence.h"
#include "sim/triage/labelled_realism.h"

namespace wsim::run {

namespace {

bool is_violation(const proto::Expectation& expect) {
  return expect.verdict() == proto::SAFETY_VIOLATION ||
         expect.verdict() == proto::LIVENESS_VIOLATION;
}

// "agent=A0a rails=R1", keys sorted (the map's own order is unspecified).
std::string describe_when(const proto::Expectation& expect) {
  const std::map<std::string, std::string> sorted(expect.when().begin(), expect.when().end());
  WSIM_ASSERT_EQ(sorted.size(), static_cast<std::size_t>(expect.when_size()));  // Unique keys.
  std::string text;
  for (const auto& [key, value] : sorted) text += (text.empty() ? "" : " ") + key + "=" + value;
  return text;
}

// The expect blocks of a corpus file, in order (KnownBug::expectations).
std::vector<KnownBugExpectation> expectations_of(const proto::Scenario& scenario) {
  std::vector<KnownBugExpectation> out;
  for (const proto::Expectation& expect : scenario.expect()) {
    out.push_back(KnownBugExpectation{
        std::map<std::string, std::string>(expect.when().begin(), expect.when().end()),
        expect.verdict() == proto::PASS});
  }
  WSIM_ASSERT_EQ(out.size(), static_cast<std::size_t>(scenario.expect_size()));  // In order.
  return out;
}

CorpusBug make_bug(const std::string& path, const proto::Scenario& scenario, int index) {
  WSIM_ASSERT_GE(index, 0);
  WSIM_ASSERT_LT(index, scenario.expect_size());
  const proto::Expectation& expect = scenario.expect(index);
  WSIM_ASSERT(is_violation(expect));  // A bug is a violation expectation.
  const std::string stem = std::filesystem::path(path).stem().string();
  return CorpusBug{path,
                   index,
                   stem + "#" + std::to_string(index),
                   expect.invariant(),
                   describe_when(expect),
                   scenario.bug().empty() ? stem : scenario.bug(),
                   expectations_of(scenario)};
}

}  // namespace

// FNV-1a of the hunting scenario's text.
std::string hunting_key(proto::Scenario scenario) {
  scenario.clear_name();
  scenario.clear_description();
  // A hunt draws its own seeds (from --seed-start), whatever seed the file replays with: two
  // files that differ only there (hunted exemplars added from different seeds of one hunt) are
  // one hunt.
  scenario.clear_seed();
  const std::uint64_t hash = fnv1a64(scenario_to_text(scenario));
  char text[17];
  const int written =
      std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  WSIM_ASSERT_EQ(written, 16);
  return text;
}

bool corpus_bugs(const std::string& corpus_dir, std::vector<CorpusBug>& out, std::string& error) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (auto it = std::filesystem::recursive_directory_iterator(corpus_dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".textproto") {
      paths.push_back(it->path().string());
    }
  }
  if (ec) {
    error = corpus_dir + ": " + ec.message();
    return false;
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    LoadedScenario loaded;
    if (!load_scenario_file(path, loaded, error)) return false;
    for (int i = 0; i < loaded.scenario.expect_size(); ++i) {
      if (is_violation(loaded.scenario.expect(i)))
        out.push_back(make_bug(path, loaded.scenario, i));
    }
  }
  return true;
}

bool parse_corpus_bug(const std::string& spec, CorpusBug& out, std::string& error) {
  const std::size_t hash = spec.rfind('#');
  const std::string path = hash == std::string::npos ? spec : spec.substr(0, hash);
  LoadedScenario loaded;
  if (!load_scenario_file(path, loaded, error)) return false;
  const proto::Scenario& scenario = loaded.scenario;
  if (hash == std::string::npos) {
    for (int i = 0; i < scenario.expect_size(); ++i) {
      if (is_violation(scenario.expect(i))) {
        out = make_bug(path, scenario, i);
        return true;
      }
    }
    error = path + ": no expectation with a violation verdict (a bug needs one)";
    return false;
  }
  const std::string digits = spec.substr(hash + 1);
  if (digits.empty() || digits.size() > 4 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    error = spec + ": '#' must be followed by the index of an expect block (0, 1, ...)";
    return false;
  }
  const int index = std::stoi(digits);
  WSIM_ASSERT_GE(index, 0);  // Digits only, at most four.
  if (index >= scenario.expect_size()) {
    error = path + ": has " + std::to_string(scenario.expect_size()) + " expect blocks; #" +
            digits + " does not exist";
    return false;
  }
  if (!is_violation(scenario.expect(index))) {
    error = path + ": expect block #" + digits + " is a PASS, not a bug";
    return false;
  }
  out = make_bug(path, scenario, index);
  return true;
}

bool corpus_bug_scenario(const CorpusBug& bug, LoadedScenario& loaded, std::string& error) {
  WSIM_ASSERT_GE(bug.expect_index, 0);
  if (!load_scenario_file(bug.path, loaded, error)) return false;
  const System* system = selected_system(loaded, error);
  if (system == nullptr) return false;
  proto::Scenario& scenario = loaded.scenario;
  WSIM_ASSERT(bug.expect_index < scenario.expect_size());
  const proto::Expectation expect = scenario.expect(bug.expect_index);
  const std::string origin = bug.path + " (bug " + bug.name + ")";
  loaded.hunted_invariant = bug.invariant;
  scenario.set_name("bug-" + bug.name);
  scenario.set_description("corpus bug " + bug.name + " (" + bug.invariant + " when " + bug.when +
                           "), random workload instead of the file's script");
  // Operator one-offs (an upgrade) stay: no random workload or fault point invents them.
  google::protobuf::RepeatedPtrField<proto::ScriptedEvent> kept;
  for (const proto::ScriptedEvent& event : scenario.events()) {
    if (event.actor() == kOperatorActor) *kept.Add() = event;
  }
  scenario.mutable_events()->Swap(&kept);
  scenario.clear_expect();
  scenario.clear_bug();  // Which bug the file pins is not part of the hunt (hunting_key).
  scenario.set_scripted_only(false);
  scenario.set_fault_phase_ms(0);
  scenario.set_settle_ms(0);
  // The targets' short phases; a config field the file sets itself (e.g. a 10 s Rails clock or
  // a full-sync interval the bug depends on) keeps the file's value.
  for (const auto& [field, value] : system->fast_phase_fields()) {
    std::string current;
    if (config_value(scenario, *system, field, current) && current != "0") continue;
    if (!set_field(loaded, field, value, origin, error)) return false;
  }
  const std::map<std::string, std::string> when(expect.when().begin(), expect.when().end());
  for (const auto& [key, value] : when) {
    if (!set_field(loaded, key, value, origin + " when " + key, error)) return false;
  }
  return validate_scenario(loaded, error);
}

bool load_bug_script(const CorpusBug& bug, LoadedScenario& loaded, std::string& error) {
  WSIM_ASSERT_GE(bug.expect_index, 0);
  if (!load_scenario_file(bug.path, loaded, error)) return false;
  if (selected_system(loaded, error) == nullptr) return false;
  WSIM_ASSERT_LT(bug.expect_index, loaded.scenario.expect_size());
  const proto::Expectation expect = loaded.scenario.expect(bug.expect_index);
  const std::map<std::string, std::string> when(expect.when().begin(), expect.when().end());
  const std::string origin = bug.path + " expect #" + std::to_string(bug.expect_index);
  for (const auto& [key, value] : when) {
    if (!set_field(loaded, key, value, origin + " when " + key, error)) return false;
  }
  return validate_scenario(loaded, error);
}

// The values of KnownBug::fixed_by (defined with fix_switches below).
bool fixing_values(const CorpusBug& bug, std::map<std::string, std::vector<std::string>>& out,
                   std::string& error);

bool corpus_bug_signature(const CorpusBug& bug, Signature& out, std::string& error) {
  WSIM_ASSERT(!bug.invariant.empty());  // make_bug: a violation expectation names it.
  LoadedScenario loaded;
  if (!load_bug_script(bug, loaded, error)) return false;
  const std::string origin = bug.path + " expect #" + std::to_string(bug.expect_index);
  RunOptions options;
  options.keep_trace = true;
  const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  if (result.violation && result.violation->invariant_id == bug.invariant) {
    WSIM_ASSERT(result.signature.has_value());
    out = *result.signature;
    return true;
  }
  // A liveness expectation may name a later violation of the list than the first.
  for (const Violation& violation : result.liveness) {
    if (violation.invariant_id != bug.invariant) continue;
    out = compute_signature(external_actors_of(*loaded.system), result.trace, std::nullopt,
                            violation, result.state);
    return true;
  }
  error = origin + ": field expect.invariant: its script does not violate " + bug.invariant +
          " (verdict " + verdict_name(result.verdict) + " " +
          (result.violation ? result.violation->invariant_id : "") + ")";
  return false;
}

bool known_bugs(const std::string& corpus_dir, const std::string& system_name,
                std::vector<KnownBug>& out, std::string& error,
                std::vector<std::string>* not_reproduced) {
  std::vector<CorpusBug> bugs;
  if (!corpus_bugs(corpus_dir, bugs, error)) return false;
  for (const CorpusBug& bug : bugs) {
    // Invariant ids are "<system>.<id>": a bug of another system cannot match.
    if (!system_name.empty() && bug.invariant.rfind(system_name + ".", 0) != 0) continue;
    KnownBug known;
    known.name = bug.path + "#" + std::to_string(bug.expect_index);
    known.bug = bug.bug;
    known.expectations = bug.expectations;
    if (!corpus_bug_signature(bug, known.signature, error)) {
      const bool stale = error.find("its script does not violate") != std::string::npos;
      if (!stale || not_reproduced == nullptr) return false;
      not_reproduced->push_back(error);
      error.clear();
      continue;
    }
    if (!fixing_values(bug, known.fixed_by, error)) return false;
    // "FILE#N": has_fix reads the expectation's index back from it.
    WSIM_ASSERT_NE(known.name.rfind('#'), std::string::npos);
    out.push_back(std::move(known));
  }
  return true;
}

namespace {

// "a,b,c" → {"a", "b", "c"}; "" → {}.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  for (const std::string& item : out) WSIM_ASSERT(!item.empty());  // Empty items are skipped.
  return out;
}

// The `latest` value of `system`'s version axis `field` ("" when it is not an axis).
std::string axis_latest(const System& system, const std::string& field) {
  for (const VersionAxis& axis : system.axes()) {
    if (axis.field == field) return axis.latest;
  }
  return "";
}

// Whether a repeated axis's value list has every value: empty, or naming the axis's `latest`.
bool has_every_value(const std::vector<std::string>& list, const std::string& latest) {
  return list.empty() || std::find(list.begin(), list.end(), latest) != list.end();
}

// Whether `run` matches the `when` of `expect`.
bool matches_when(const KnownBugExpectation& expect, const proto::Scenario& run,
                  const System& system) {
  return std::all_of(expect.when.begin(), expect.when.end(), [&](const auto& entry) {
    std::string value;
    return config_value(run, system, entry.first, value) && value == entry.second;
  });
}

// Whether `run`, on the versions of `bug`'s own expectation, has one of the values that fix it
// (KnownBug::fixed_by); an empty list or the axis's `latest` has every value. A run on other
// versions (an mk1 era, whose runs ignore mk2's fixes) is one the file says nothing about.
bool has_fix(const KnownBug& bug, const proto::Scenario& run, const System& system) {
  const std::size_t hash = bug.name.rfind('#');
  WSIM_ASSERT(hash != std::string::npos);
  const std::size_t index = std::stoul(bug.name.substr(hash + 1));
  if (bug.fixed_by.empty() || index >= bug.expectations.size() ||
      !matches_when(bug.expectations[index], run, system)) {
    return false;
  }
  for (const auto& [field, values] : bug.fixed_by) {
    std::string current;
    if (!config_value(run, system, field, current)) continue;
    const std::vector<std::string> list = split_list(current);
    if (has_every_value(list, axis_latest(system, field))) return true;
    for (const std::string& value : values) {
      if (std::find(list.begin(), list.end(), value) != list.end()) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<KnownBug> applicable_known_bugs(const std::vector<KnownBug>& known,
                                            const proto::Scenario& run, const System& system,
                                            bool by_fixes) {
  std::vector<KnownBug> out;
  for (const KnownBug& bug : known) {
    bool fixed = false;
    for (const KnownBugExpectation& expect : bug.expectations) {
      if (!matches_when(expect, run, system)) continue;
      fixed = expect.pass;
      break;
    }
    if (!fixed && by_fixes) fixed = has_fix(bug, run, system);
    if (!fixed) out.push_back(bug);
  }
  WSIM_ASSERT_LE(out.size(), known.size());
  return out;
}

bool label_with_corpus(const System& system, const proto::Scenario& run,
                       const std::string& corpus_dir, RunResult& result, std::string& error,
                       std::vector<KnownBug>* applicable) {
  if (applicable != nullptr) applicable->clear();
  if (!result.violation || !result.signature) return true;
  std::error_code ec;
  if (corpus_dir.empty() || !std::filesystem::is_directory(corpus_dir, ec)) return true;
  std::vector<KnownBug> known;
  if (!applicable_corpus_bugs(system, run, corpus_dir, known, error)) return false;
  label_with_known(known, result);
  WSIM_ASSERT(result.labelled);  // A signed violation always gets a label (NEW or a bug).
  if (applicable != nullptr) *applicable = std::move(known);
  return true;
}

void label_with_known(const std::vector<KnownBug>& known, RunResult& result) {
  if (!result.violation || !result.signature) return;
  const KnownBug* match = match_known(*result.signature, known);
  if (match != nullptr) WSIM_ASSERT_EQ(match->signature.invariant, result.signature->invariant);
  result.labelled = true;
  result.known = match == nullptr ? "" : match->name;
}

namespace {

bool violates(const RunResult& result, const std::string& invariant) {
  WSIM_ASSERT(!invariant.empty());
  if (result.violation && result.violation->invariant_id == invariant) return true;
  return std::any_of(result.liveness.begin(), result.liveness.end(),
                     [&](const Violation& v) { return v.invariant_id == invariant; });
}

// The repeated version axes of `system` (FixSwitch: a list of fixes).
std::vector<VersionAxis> repeated_axes(const proto::Scenario& scenario, const System& system) {
  std::vector<VersionAxis> out;
  const google::protobuf::Message* config = config_of(scenario, system);
  if (config == nullptr) return out;
  for (const VersionAxis& axis : system.axes()) {
    const google::protobuf::FieldDescriptor* field =
        config->GetDescriptor()->FindFieldByName(axis.field);
    if (field != nullptr && field->is_repeated()) out.push_back(axis);
  }
  WSIM_ASSERT_LE(out.size(), system.axes().size());
  return out;
}

// The candidate switches of `bug` (FixSwitch), given its validated script; with `added_only`,
// only the values added to a repeated axis.
std::vector<FixSwitch> candidate_switches(const CorpusBug& bug, const LoadedScenario& script,
                                          bool added_only = false) {
  WSIM_ASSERT(script.system != nullptr);  // A validated script.
  const System& system = *script.system;
  std::vector<FixSwitch> out;
  auto add = [&](FixSwitch fix) {
    const std::string text = fix.text();
    if (fix.changes.empty()) return;
    if (std::any_of(out.begin(), out.end(), [&](const FixSwitch& f) { return f.text() == text; })) {
      return;
    }
    out.push_back(std::move(fix));
  };
  for (const KnownBugExpectation& expect : bug.expectations) {
    if (!expect.pass || added_only) continue;
    FixSwitch fix;
    bool readable = true;
    const std::vector<VersionAxis> axes = system.axes();
    for (const auto& [when_field, value] : expect.when) {
      const std::string& field = when_field;  // A structured binding cannot be captured (C++20
                                              // before clang 16).
      std::string current;
      readable = readable && config_value(script.scenario, system, field, current);
      if (!readable || current == value) continue;
      const bool setting = std::none_of(
          axes.begin(), axes.end(), [&](const VersionAxis& axis) { return axis.field == field; });
      fix.changes.push_back(FixChange{field, value, false, current, setting});
    }
    const std::vector<std::string> fixes = system.counterfactual_fix_fields();
    fix.precondition = std::any_of(fix.changes.begin(), fix.changes.end(), [&](const FixChange& c) {
      return c.setting && std::find(fixes.begin(), fixes.end(), c.field) == fixes.end();
    });
    if (readable) add(std::move(fix));
  }
  for (const VersionAxis& axis : repeated_axes(script.scenario, system)) {
    std::string current;
    if (!config_value(script.scenario, system, axis.field, current)) continue;
    const std::vector<std::string> list = split_list(current);
    if (has_every_value(list, axis.latest)) continue;
    for (const std::string& value : axis.values) {
      if (std::find(list.begin(), list.end(), value) != list.end()) continue;
      add(FixSwitch{{FixChange{axis.field, value, true, ""}}});
    }
  }
  // The narrowest switch first: a counterfactual code fix changes one rule where a version
  // changes many (System::counterfactual_fix_fields); otherwise the file's order.
  std::stable_partition(out.begin(), out.end(), [](const FixSwitch& fix) {
    return !fix.precondition && std::all_of(fix.changes.begin(), fix.changes.end(),
                                            [](const FixChange& c) { return c.setting; });
  });
  for (const FixSwitch& fix : out) WSIM_ASSERT(!fix.changes.empty());  // add() drops empty ones.
  return out;
}

// Applies one change to `loaded` (apply_fix_switch); false in `applies` when it does not apply.
bool apply_change(LoadedScenario& loaded, const FixChange& change, bool& applies,
                  std::string& error) {
  WSIM_ASSERT(loaded.system != nullptr);
  WSIM_ASSERT(!change.field.empty());
  const System& system = *loaded.system;
  std::string current;
  applies = config_value(loaded.scenario, system, change.field, current);
  if (!applies) return true;
  std::string next = change.value;
  if (change.add) {
    std::vector<std::string> list = split_list(current);
    applies = !has_every_value(list, axis_latest(system, change.field)) &&
              std::find(list.begin(), list.end(), change.value) == list.end();
    if (!applies) return true;
    list.push_back(change.value);
    next.clear();
    for (const std::string& value : list) next += (next.empty() ? "" : ",") + value;
  } else {
    applies = (change.setting || current == change.from) && current != change.value;
    if (!applies) return true;
  }
  return set_field(loaded, change.field, next, "fix switch " + change.field, error);
}

}  // namespace

std::string FixSwitch::text() const {
  std::string out;
  for (const FixChange& change : changes) {
    WSIM_ASSERT(!change.field.empty());
    out += (out.empty() ? "" : " ") + change.field + (change.add ? "+" : "=") + change.value;
  }
  return out;
}

bool apply_fix_switch(LoadedScenario& loaded, const FixSwitch& fix, bool& applied,
                      std::string& error) {
  WSIM_ASSERT(loaded.system != nullptr);
  WSIM_ASSERT(!fix.changes.empty());
  applied = false;
  LoadedScenario next = loaded;
  for (const FixChange& change : fix.changes) {
    bool applies = false;
    if (!apply_change(next, change, applies, error)) return false;
    if (!applies) return true;
  }
  if (!validate_scenario(next, error)) return false;
  loaded = std::move(next);
  applied = true;
  return true;
}

namespace {

// fix_switches, of all candidates or (added_only) of the values added to a repeated axis.
bool verified_switches(const CorpusBug& bug, bool added_only, std::vector<FixSwitch>& out,
                       std::vector<FixSwitch>* placebos, std::string& error) {
  LoadedScenario script;
  if (!load_bug_script(bug, script, error)) return false;
  for (FixSwitch& fix : candidate_switches(bug, script, added_only)) {
    LoadedScenario fixed = script;
    bool applied = false;
    if (!apply_fix_switch(fixed, fix, applied, error)) return false;
    WSIM_ASSERT(applied);  // A candidate changes the script's own versions.
    const RunResult result = execute_run(*fixed.system, fixed.scenario, RunOptions{});
    if (!violates(result, bug.invariant)) {
      out.push_back(std::move(fix));
    } else if (placebos != nullptr) {
      placebos->push_back(std::move(fix));
    }
  }
  return true;
}

}  // namespace

bool fix_switches(const CorpusBug& bug, std::vector<FixSwitch>& out, std::string& error,
                  std::vector<FixSwitch>* placebos) {
  return verified_switches(bug, false, out, placebos, error);
}

bool fixing_values(const CorpusBug& bug, std::map<std::string, std::vector<std::string>>& out,
                   std::string& error) {
  std::vector<FixSwitch> switches;
  if (!verified_switches(bug, true, switches, nullptr, error)) return false;
  for (const FixSwitch& fix : switches) {
    for (const FixChange& change : fix.changes) {
      WSIM_ASSERT(change.add);
      out[change.field].push_back(change.value);
    }
  }
  return true;
}

bool fix_spares(const CorpusBug& other, const FixSwitch& fix, bool& spares, std::string& error) {
  spares = false;
  LoadedScenario script;
  if (!load_bug_script(other, script, error)) return false;
  WSIM_ASSERT(script.system != nullptr);
  const System& system = *script.system;
  bool changed = false;
  for (const FixChange& change : fix.changes) {
    std::string current;
    if (!config_value(script.scenario, system, change.field, current)) return true;
    if (!change.add && current == change.value) continue;  // Already the switch's value.
    bool applies = false;
    if (!apply_change(script, change, applies, error)) return false;
    if (applies) {
      changed = true;
    } else if (!change.add) {
      return true;  // A third value: unknown.
    }
  }
  if (changed && !validate_scenario(script, error)) return false;
  spares = violates(execute_run(system, script.scenario, RunOptions{}), other.invariant);
  return true;
}

bool fix_applies_to_script(const CorpusBug& other, const FixSwitch& fix, bool& applies,
                           std::string& error) {
  applies = false;
  LoadedScenario script;
  return load_bug_script(other, script, error) && apply_fix_switch(script, fix, applies, error);
}

bool fix_is_inert(const CorpusBug& other, const FixSwitch& fix, bool& inert, std::string& error) {
  inert = false;
  LoadedScenario script;
  if (!load_bug_script(other, script, error)) return false;
  LoadedScenario switched = script;
  bool applied = false;
  if (!apply_fix_switch(switched, fix, applied, error)) return false;
  if (!applied) return true;
  WSIM_ASSERT(switched.system == script.system);  // A fix switch changes versions, not systems.
  const RunResult base = execute_run(*script.system, script.scenario, RunOptions{});
  const RunResult with = execute_run(*switched.system, switched.scenario, RunOptions{});
  inert = base.fingerprint == with.fingerprint;
  return true;
}

Counterfactual counterfactual_outcome(const RunResult& result, const std::string& invariant,
                                      const std::string& mechanism) {
  WSIM_ASSERT(!invariant.empty());
  if (violates(result, invariant)) {
    if (mechanism.empty()) return Counterfactual::kPersists;
    const auto same = [&](const Violation& v) {
      return v.invariant_id == invariant && normalize_text(v.message, v.object) == mechanism;
    };
    const bool persists = (result.violation && same(*result.violation)) ||
                          std::any_of(result.liveness.begin(), result.liveness.end(), same);
    return persists ? Counterfactual::kPersists : Counterfactual::kChanged;
  }
  if (result.verdict == Verdict::kPass || result.verdict == Verdict::kLiveness) {
    return Counterfactual::kGone;
  }
  return Counterfactual::kMasked;
}

std::string_view counterfactual_name(Counterfactual outcome) {
  switch (outcome) {
    case Counterfactual::kNotApplicable:
      return "n/a";
    case Counterfactual::kGone:
      return "gone";
    case Counterfactual::kPersists:
      return "persists";
    case Counterfactual::kMasked:
      return "masked";
    case Counterfactual::kChanged:
      return "changed";
  }
  WSIM_ASSERT_MSG(false, "unknown counterfactual " << static_cast<int>(outcome));
  return "?";
}

int cmd_corpus_bugs(const std::string& corpus_dir, std::ostream& out, std::ostream& err) {
  std::vector<CorpusBug> bugs;
  std::string error;
  if (!corpus_bugs(corpus_dir, bugs, error)) {
    err << "wsim corpus bugs: " << error << "\n";
    return kExitUsage;
  }
  std::map<std::string, BugEvidence> evidence;
  if (!corpus_evidence(corpus_dir, evidence, error)) {
    err << "wsim corpus bugs: " << error << "\n";
    return kExitUsage;
  }
  for (const CorpusBug& bug : bugs) {
    WSIM_ASSERT_NE(bug.name.rfind('#'), std::string::npos);  // make_bug: "STEM#N".
    LoadedScenario loaded;
    if (!corpus_bug_scenario(bug, loaded, error)) {
      err << "wsim corpus bugs: " << bug.name << ": " << error << "\n";
      return kExitUsage;
    }
    out << bug.name << " " << bug.invariant << " " << bug.path << "#" << bug.expect_index << " "
        << hunting_key(loaded.scenario) << " " << (bug.when.empty() ? "-" : bug.when) << "\n";
    if (bug.bug != bug.name.substr(0, bug.name.rfind('#'))) out << "  bug: " << bug.bug << "\n";
    out << "  evidence: " << evidence[bug.bug].summary() << "\n";  // docs/evidence.md
    Signature signature;
    if (!corpus_bug_signature(bug, signature, error)) {
      err << "wsim corpus bugs: " << bug.name << ": " << error << "\n";
      return kExitUsage;
    }
    out << "  signature: " << signature.text();
    if (!signature.contexts.empty()) out << " || " << signature.contexts_text();
    out << "\n";
  }
  return 0;
}

std::vector<std::string> labels_naming_bug(const CorpusBug& hunted,
                                           const std::vector<KnownBug>& known) {
  WSIM_ASSERT(!hunted.bug.empty());
  std::vector<std::string> names;
  for (const KnownBug& bug : known) {
    if (bug.bug == hunted.bug) names.push_back(bug.name);
  }
  return names;
}

}  // namespace wsim::run
