#include "sim/run/driver.h"

#include <iomanip>
#include <map>

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
  ChoiceSource choices = options.tape    ? ChoiceSource::from_tape(*options.tape)
                         : options.bytes ? ChoiceSource::from_bytes(*options.bytes,
                                                                    options.bytes_tail)
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
      *log << "swarm " << std::left << std::setw(static_cast<int>(width)) << name << "  "
           << value << "\n";
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
  loop.set_after_event([&] {
    if (stopped) return;
    if (std::optional<Violation> violation = run->check_safety()) {
      stop_with_violation(std::move(*violation), Verdict::kSafety, true);
      return;
    }
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
  if (std::optional<Violation> violation = run->check_safety()) {
    stop_with_violation(std::move(*violation), Verdict::kSafety, true);
  }
  if (!stopped) loop.run_until(scenario.fault_phase_ms());
  if (!stopped) {
    result.phase = "settle";
    sim.record("wsim", "heal", "", "ok", "faults and external actions stop; settle " +
                                             format_duration_ms(scenario.settle_ms()));
    sim.faults().heal();
    run->heal();
    trace_count_before_event = sim.trace().count();
    if (std::optional<Violation> violation = run->check_safety()) {
      stop_with_violation(std::move(*violation), Verdict::kSafety, false);
    }
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
    log->flush();
  }
  // The run (and its actors) must go before the Sim they point into: `run` is destroyed first
  // (declared after `sim`).
  return result;
}

}  // namespace wsim::run
