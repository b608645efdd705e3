#include "sim/run/driver.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>

#include "sim/core/sim.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"

namespace wsim::run {

namespace {

std::string ratio_text(Ratio ratio) {
  return std::to_string(ratio.num) + "/" + std::to_string(ratio.den);
}

// Forces the scenario's fault overrides (names were checked by validate_scenario).
void apply_fault_overrides(Sim& sim, const proto::Scenario& scenario) {
  for (const proto::FaultOverride& fault : scenario.faults()) {
    FaultId id = 0;
    if (!sim.faults().find(fault.name(), id)) continue;
    if (fault.fire_den() != 0) {
      sim.faults().force(id, fault.enabled(), Ratio{fault.fire_num(), fault.fire_den()});
    } else {
      sim.faults().force(id, fault.enabled());
    }
  }
}

// Every fault point in name order with its drawn state, then the system's own parameters.
// Share of the runs that draw incidents (correlated fault bursts, sim/core/fault.h).
constexpr Ratio kIncidentsEnable{1, 3};

std::vector<std::pair<std::string, std::string>> swarm_of(Sim& sim, const SystemRun& run) {
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, FaultId> by_name;
  const Faults& faults = sim.faults();
  for (std::size_t i = 0; i < faults.size(); ++i) {
    by_name.emplace(faults.point(static_cast<FaultId>(i)).name, static_cast<FaultId>(i));
  }
  for (const auto& [name, id] : by_name) {
    const FaultPoint& point = faults.point(id);
    std::string value = point.enabled ? "on" : "off";
    if (point.forced) value += " (forced)";
    if (point.enabled) value += " fire " + ratio_text(point.fire);
    out.emplace_back(name, value);
  }
  out.emplace_back("incidents", faults.describe_incidents());
  for (auto& parameter : run.swarm_parameters()) out.push_back(parameter);
  return out;
}

void print_violation(std::ostream& log, const Violation& violation) {
  log << "  invariant " << violation.invariant_id;
  if (!violation.object.empty()) log << " on " << violation.object;
  log << ": " << violation.message << "\n";
}

}  // namespace

std::vector<std::uint64_t> tape_of(const std::vector<Choice>& record) {
  std::vector<std::uint64_t> tape;
  tape.reserve(record.size());
  for (const Choice& choice : record) tape.push_back(choice.value);
  return tape;
}

RunResult execute_run(const System& system, const proto::Scenario& scenario,
                      const RunOptions& options) {
  RunResult result;
  result.seed = scenario.seed();
  ChoiceSource choices = options.tape ? ChoiceSource::from_tape(*options.tape)
                         : options.bytes
                             ? ChoiceSource::from_bytes(*options.bytes, options.bytes_tail)
                             : ChoiceSource::from_seed(scenario.seed());
  choices.set_recording(options.record_choices);
  Sim sim(std::move(choices));
  assert_context().seed = scenario.seed();
  assert_context().scenario = system.name() + " " + describe_config(scenario, system);
  sim.trace().set_keep_events(options.keep_trace);

  std::unique_ptr<SystemRun> run = system.create(sim, scenario);
  WSIM_ASSERT(run != nullptr);
  apply_fault_overrides(sim, scenario);
  if (!scenario.scripted_only()) sim.faults().draw_swarm(sim.stream("swarm"));
  if (!scenario.scripted_only() || scenario.incidents()) {
    std::optional<bool> force;
    if (scenario.has_incidents()) force = scenario.incidents();
    sim.faults().draw_incidents(sim.stream("incidents"), scenario.fault_phase_ms(),
                                kIncidentsEnable, sim.loop().now_ms_clock(), force);
  }
  result.swarm = swarm_of(sim, *run);

  std::ostream* log = options.log;
  if (log != nullptr) {
    *log << "SEED=" << scenario.seed()
         << (options.tape    ? " (replaying a choice record)"
             : options.bytes ? " (choices from a fuzzer input)"
                             : "")
         << "\n";
    *log << "system " << system.name() << ": " << describe_config(scenario, system) << "\n";
    *log << "phases: fault " << format_duration_ms(scenario.fault_phase_ms()) << ", settle "
         << format_duration_ms(scenario.settle_ms())
         << (scenario.scripted_only() ? ", scripted events only" : "") << "\n";
    std::size_t width = 0;
    for (const auto& [name, value] : result.swarm) width = std::max(width, name.size());
    for (const auto& [name, value] : result.swarm) {
      *log << "swarm " << std::left << std::setw(static_cast<int>(width)) << name << "  " << value
           << "\n";
    }
    log->flush();
  }

  // Safety after every event; the event budget.
  EventLoop& loop = sim.loop();
  std::uint64_t trace_count_before_event = 0;
  bool stopped = false;
  // `culprit`: the trace events of the current loop event caused it (safety); liveness has none.
  auto stop_with_violation = [&](Violation violation, Verdict verdict, bool culprit) {
    if (culprit && sim.trace().count() > trace_count_before_event && options.keep_trace) {
      result.culprit_event = sim.trace().events().size() - 1;
    }
    sim.record("wsim", "violation", violation.object, violation.invariant_id, violation.message);
    if (options.keep_trace) result.violation_event = sim.trace().events().size() - 1;
    result.verdict = verdict;
    result.violation = std::move(violation);
    stopped = true;
    loop.request_stop();
  };
  // issue #12 item 2: a known safety violation is recorded and the run goes on. A system whose
  // check_safety() reports a standing violation again after every event is told apart by
  // (invariant, object): each is recorded once.
  const bool masking = options.known != nullptr && options.keep_trace && options.go_past_known;
  const std::set<std::string, std::less<>> externals = external_actors_of(system);
  std::set<std::pair<std::string, std::string>> masked_seen;
  // True when `violation` (a safety violation just seen) is known and was recorded.
  // The scenario's go_past entries (a bundle of such a run) go past without signatures.
  std::map<std::pair<std::string, std::string>, std::string> go_past;
  for (const proto::KnownViolation& entry : scenario.go_past()) {
    go_past.emplace(std::make_pair(entry.invariant(), entry.object()), entry.known());
  }
  auto mask = [&](const Violation& violation) {
    const auto key = std::make_pair(violation.invariant_id, violation.object);
    if (masked_seen.count(key) > 0) return true;
    const auto listed = go_past.find(key);
    if (!masking && listed == go_past.end()) return false;
    // A later violation of an object a known bug already broke is taken for its consequence.
    const auto broken =
        std::find_if(result.masked.begin(), result.masked.end(), [&](const MaskedViolation& m) {
          return m.violation.object == violation.object ||
                 std::find(violation.related.begin(), violation.related.end(),
                           m.violation.object) != violation.related.end();
        });
    const bool keep = sim.trace().keep_events();
    std::optional<std::size_t> culprit;
    if (keep && sim.trace().count() > trace_count_before_event) {
      culprit = sim.trace().events().size() - 1;
    }
    Signature signature;
    if (keep) signature = compute_signature(externals, sim.trace().events(), culprit, violation);
    std::string known_name;
    if (listed != go_past.end()) {
      known_name = listed->second;
    } else if (broken != result.masked.end()) {
      known_name = broken->known;
    } else {
      const KnownBug* known = match_known(signature, *options.known);
      if (known == nullptr) return false;
      known_name = known->name;
    }
    masked_seen.insert(key);
    sim.record("wsim", "known-violation", violation.object, violation.invariant_id,
               known_name + ": " + violation.message);
    result.masked.push_back(MaskedViolation{violation, std::move(signature), known_name, culprit});
    return true;
  };
  auto check_safety = [&](bool culprit) {
    while (std::optional<Violation> violation = run->check_safety()) {
      if (mask(*violation)) continue;
      stop_with_violation(std::move(*violation), Verdict::kSafety, culprit);
      return;
    }
  };
  loop.set_after_event([&] {
    if (stopped) return;
    check_safety(true);
    if (stopped) return;
    if (loop.events_processed() >= options.events_max) {
      result.verdict = Verdict::kHarnessError;
      result.harness_error = "event budget of " + std::to_string(options.events_max) +
                             " events exhausted at " + format_duration_ms(loop.now_ms()) +
                             " (a livelock, or raise --max-events)";
      stopped = true;
      loop.request_stop();
      return;
    }
    trace_count_before_event = sim.trace().count();
  });

  result.phase = "fault";
  run->start();
  // Scripted events at their times (after the actors start(), so an event at 0 runs after
  // their first step).
  for (const proto::ScriptedEvent& event : scenario.events()) {
    loop.schedule(event.at_ms(), [&, event] {
      if (stopped) return;
      sim.record(event.actor(), event.action(), event.target(), "scripted");
      std::string error;
      if (!run->perform(event, error)) {
        result.verdict = Verdict::kHarnessError;
        result.harness_error = "scripted event " + event.actor() + " " + event.action() + " " +
                               event.target() + " failed: " + error;
        stopped = true;
        loop.request_stop();
      }
    });
  }

  // A violation right at the start (before any event).
  check_safety(true);
  if (!stopped) loop.run_until(scenario.fault_phase_ms());
  if (!stopped) {
    result.phase = "settle";
    sim.record(
        "wsim", "heal", "", "ok",
        "faults and external actions stop; settle " + format_duration_ms(scenario.settle_ms()));
    sim.faults().heal();
    run->heal();
    trace_count_before_event = sim.trace().count();
    check_safety(false);
  }
  if (!stopped) loop.run_until(scenario.fault_phase_ms() + scenario.settle_ms());
  if (!stopped) {
    result.phase = "liveness";
    result.liveness = run->check_liveness();
    if (!result.liveness.empty()) {
      stop_with_violation(result.liveness.front(), Verdict::kLiveness, false);
      for (std::size_t i = 1; i < result.liveness.size(); ++i) {
        const Violation& v = result.liveness[i];
        sim.record("wsim", "violation", v.object, v.invariant_id, v.message);
      }
    }
  }
  loop.set_after_event(nullptr);
  if (!stopped && !result.masked.empty()) {
    // Only known safety violations: the first of them is the run's verdict.
    const MaskedViolation& first = result.masked.front();
    result.verdict = Verdict::kSafety;
    result.violation = first.violation;
    result.culprit_event = first.culprit_event;
    if (options.keep_trace) result.signature = first.signature;
    result.known = first.known;
    result.labelled = true;
  }

  result.fingerprint = sim.fingerprint();
  result.trace_hash = sim.trace().hash();
  result.events = loop.events_processed();
  result.trace_events = sim.trace().count();
  result.choices = sim.choices().consumed();
  result.tape_exhausted = sim.choices().exhausted();
  result.end_ms = sim.now_ms();
  result.state = run->describe_state();
  result.probes = sim.probes();
  if (options.record_choices) result.record = sim.choices().record();
  if (options.keep_trace) result.trace = sim.trace().events();
  if (options.keep_trace && result.violation && !result.signature) {
    const std::optional<std::size_t> culprit =
        result.verdict == Verdict::kSafety ? result.culprit_event : std::nullopt;
    // A liveness violation's final state names its mechanism (signature.h).
    const std::string_view state =
        result.verdict == Verdict::kLiveness ? std::string_view(result.state) : "";
    result.signature =
        compute_signature(externals, result.trace, culprit, *result.violation, state);
    if (options.known != nullptr) {
      const KnownBug* known = match_known(*result.signature, *options.known);
      if (known != nullptr) result.known = known->name;
      // A liveness verdict of a run that went past a known safety violation is judged on a world
      // that bug already broke (a leak keeps the protocol busy, a lost object is never
      // converged): it is taken for that bug's consequence, as a later safety violation of the
      // same object is.
      if (known == nullptr && result.verdict == Verdict::kLiveness && !result.masked.empty()) {
        result.known = result.masked.front().known;
      }
    }
  }
  result.labelled = result.labelled || (options.known != nullptr && result.signature.has_value());

  if (log != nullptr) {
    *log << "verdict " << verdict_name(result.verdict) << " at "
         << format_duration_ms(result.end_ms) << " (" << result.phase << " phase), "
         << result.events << " events, " << result.trace_events << " trace events, fingerprint "
         << format_hash(result.fingerprint) << "\n";
    if (result.verdict == Verdict::kHarnessError) *log << "  " << result.harness_error << "\n";
    if (result.verdict == Verdict::kSafety && result.violation) {
      print_violation(*log, *result.violation);
    }
    for (const Violation& violation : result.liveness) print_violation(*log, violation);
    for (const MaskedViolation& masked : result.masked) {
      *log << "  known safety violation passed (known: " << masked.known << ")\n";
      print_violation(*log, masked.violation);
    }
    if (result.signature) {
      *log << "signature " << result.signature->text() << "\n";
      if (result.labelled)
        *log << (result.known.empty() ? "NEW" : "known: " + result.known) << "\n";
    }
    log->flush();
  }
  // The run (and its actors) must go before the Sim they point into: `run` is destroyed first
  // (declared after `sim`).
  return result;
}

}  // namespace wsim::run

namespace wsim::run {

namespace {

bool has_known_invariant(const RunResult& result, const std::vector<KnownBug>& known) {
  if (!result.violation) return false;
  for (const KnownBug& bug : known) {
    if (bug.signature.invariant == result.violation->invariant_id) return true;
  }
  return false;
}

}  // namespace

RunResult execute_run_with_known(const System& system, const proto::Scenario& scenario,
                                 const RunOptions& options, const std::vector<KnownBug>& known) {
  WSIM_ASSERT(options.known == nullptr);
  WSIM_ASSERT(options.log == nullptr);
  WSIM_ASSERT(!options.keep_trace);
  RunResult fast = execute_run(system, scenario, options);
  if (!has_known_invariant(fast, known)) return fast;
  RunOptions labelled = options;
  labelled.keep_trace = true;
  labelled.known = &known;
  labelled.go_past_known = true;
  RunResult result = execute_run(system, scenario, labelled);
  result.trace.clear();  // The caller asked for no trace; the labels are kept.
  result.trace.shrink_to_fit();
  return result;
}

}  // namespace wsim::run
