// The run driver (driver.h): one run through its phases (set up, fault, heal and settle,
// liveness), with safety checked after every event, known violations masked, and the result
// collected, signed and labelled.
#include "sim/run/driver.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"

namespace wsim::run {

namespace {

std::string ratio_text(Ratio ratio) {
  WSIM_ASSERT_GT(ratio.den, 0u);
  WSIM_ASSERT_LE(ratio.num, ratio.den);
  return std::to_string(ratio.num) + "/" + std::to_string(ratio.den);
}

// The pin of a pinned override (validate_scenario checked its values).
FaultPin pin_of(const proto::FaultOverride& fault) {
  WSIM_ASSERT(is_pinned(fault));
  WSIM_ASSERT(!fault.name().empty());
  FaultPin pin;
  pin.verb = fault.verb();
  pin.object = fault.object();
  pin.actor = fault.actor();
  pin.occurrence = std::max<std::uint32_t>(fault.occurrence(), 1);
  if (fault.has_from_ms()) pin.from_ms = fault.from_ms();
  if (fault.has_until_ms()) pin.until_ms = fault.until_ms();
  return pin;
}

// Forces the scenario's fault overrides (names were checked by validate_scenario): the whole-run
// ones first, then the pins, so a pinned point is off elsewhere unless a whole-run override of
// the same name says otherwise (sim/core/fault.h).
void apply_fault_overrides(Sim& sim, const proto::Scenario& scenario) {
  WSIM_ASSERT_EQ(sim.now_ms(), 0);  // Before the run starts: no event has run yet.
  for (const proto::FaultOverride& fault : scenario.faults()) {
    FaultId id = 0;
    if (is_pinned(fault) || !sim.faults().find(fault.name(), id)) continue;
    if (fault.fire_den() != 0) {
      sim.faults().force(id, fault.enabled(), Ratio{fault.fire_num(), fault.fire_den()});
    } else {
      sim.faults().force(id, fault.enabled());
    }
  }
  for (const proto::FaultOverride& fault : scenario.faults()) {
    FaultId id = 0;
    if (is_pinned(fault) && sim.faults().find(fault.name(), id))
      sim.faults().pin(id, pin_of(fault));
  }
}

// Share of the runs that draw incidents (correlated fault bursts, sim/core/fault.h).
constexpr Ratio kIncidentsEnable{1, 3};
// Share of the runs that break ties by priorities (PCT, sim/core/event_loop.h) instead of FIFO,
// and their number of change points.
constexpr Ratio kPriorityTiesEnable{1, 4};
constexpr std::int64_t kChangePointsMax = 3;

// Draws the tie-breaking of the run on the "scheduler" stream: FIFO, or priorities with 1 to
// kChangePointsMax change points in the fault phase. Returns the swarm line.
std::string draw_scheduler(Sim& sim, const proto::Scenario& scenario) {
  WSIM_ASSERT_EQ(sim.now_ms(), 0);
  const bool eligible = !scenario.scripted_only() || scenario.priority_ties();
  if (!eligible) return "fifo";
  ChoiceStream stream = sim.stream("scheduler");
  const bool on =
      scenario.has_priority_ties() ? scenario.priority_ties() : stream.chance(kPriorityTiesEnable);
  if (!on) return "fifo";
  const std::int64_t phase_ms = std::max<std::int64_t>(scenario.fault_phase_ms(), 1);
  std::vector<TimeMs> points;
  const std::int64_t count = stream.range(1, kChangePointsMax);
  for (std::int64_t i = 0; i < count; ++i) points.push_back(stream.range(0, phase_ms - 1));
  std::sort(points.begin(), points.end());
  WSIM_ASSERT_GE(points.size(), 1u);
  WSIM_ASSERT_LE(points.size(), static_cast<std::size_t>(kChangePointsMax));
  WSIM_ASSERT_LT(points.back(), phase_ms);  // Change points fall in the fault phase.
  std::string line = "priorities, change points";
  for (TimeMs point : points) line += " " + format_duration_ms(point);
  sim.loop().use_priority_ties(sim.stream("scheduler.ranks"), std::move(points));
  return line;
}

// Every fault point in name order with its drawn state, the incidents, the scheduler, then the
// system's own parameters.
std::vector<std::pair<std::string, std::string>> swarm_of(Sim& sim, const SystemRun& run,
                                                          const std::string& scheduler) {
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, FaultId> by_name;
  const Faults& faults = sim.faults();
  for (std::size_t i = 0; i < faults.size(); ++i) {
    by_name.emplace(faults.point(static_cast<FaultId>(i)).name, static_cast<FaultId>(i));
  }
  WSIM_ASSERT_EQ(by_name.size(), faults.size());  // Fault point names are unique (Faults::declare).
  for (const auto& [name, id] : by_name) {
    const FaultPoint& point = faults.point(id);
    std::string value = point.enabled ? "on" : "off";
    if (point.forced) value += " (forced)";
    if (point.enabled) value += " fire " + ratio_text(point.fire);
    if (const std::size_t pins = faults.pin_count(id); pins > 0) {
      value += ", " + std::to_string(pins) + (pins == 1 ? " pin" : " pins");
    }
    out.emplace_back(name, value);
  }
  out.emplace_back("incidents", faults.describe_incidents());
  out.emplace_back("scheduler", scheduler);
  for (auto& parameter : run.swarm_parameters()) out.push_back(parameter);
  WSIM_ASSERT_GE(out.size(), by_name.size() + 2);  // Every point, the incidents, the scheduler.
  return out;
}

void print_violation(std::ostream& log, const Violation& violation) {
  WSIM_ASSERT(!violation.invariant_id.empty());  // Paired with Sim::record_violation.
  log << "  invariant " << violation.invariant_id;
  if (!violation.object.empty()) log << " on " << violation.object;
  log << ": " << violation.message << "\n";
}

}  // namespace

std::vector<std::uint64_t> tape_of(const std::vector<Choice>& record) {
  std::vector<std::uint64_t> tape;
  tape.reserve(record.size());
  for (const Choice& choice : record) {
    WSIM_ASSERT_LT(choice.value, choice.bound);  // A replayed value must be drawable again.
    tape.push_back(choice.value);
  }
  WSIM_ASSERT_EQ(tape.size(), record.size());
  return tape;
}

namespace {

ChoiceSource make_choices(const proto::Scenario& scenario, const RunOptions& options) {
  ChoiceSource choices =
      options.keyed_tape          ? ChoiceSource::from_keyed_tape(*options.keyed_tape)
      : options.tape              ? ChoiceSource::from_tape(*options.tape)
      : options.bytes             ? ChoiceSource::from_bytes(*options.bytes, options.bytes_tail)
      : scenario.has_swarm_seed() ? ChoiceSource::from_seed(scenario.seed(), scenario.swarm_seed())
                                  : ChoiceSource::from_seed(scenario.seed());
  choices.set_recording(options.record_choices);
  choices.set_recording_keys(options.record_choices && options.record_choice_actors);
  WSIM_ASSERT_EQ(choices.consumed(), 0u);  // Recording starts before the first draw.
  return choices;
}

// One run through its phases. Members in order of construction: the Sim first, the SystemRun
// after it, so the run (and its actors) is destroyed before the Sim it points into.
class RunDriver {
 public:
  RunDriver(const System& system, const proto::Scenario& scenario, const RunOptions& options)
      : system_(system),
        scenario_(scenario),
        options_(options),
        sim_(make_choices(scenario, options)),
        externals_(external_actors_of(system)) {
    WSIM_ASSERT_GT(options.events_max, 0u);
    // The event budget is a bound; a run never starts over it.
    WSIM_ASSERT_EQ(sim_.loop().events_processed(), 0u);
  }

  RunResult run() {
    set_up();
    print_banner();
    install_safety_checks();
    enter(RunPhase::kFault);
    run_->start();
    schedule_scripted_events();
    check_safety(true);  // A violation right at the start (before any event).
    if (!stopped_) sim_.loop().run_until(scenario_.fault_phase_ms());
    if (!stopped_) heal_and_settle();
    if (!stopped_) check_liveness();
    sim_.loop().set_after_event(nullptr);
    if (!stopped_ && !result_.masked.empty()) adopt_first_masked();
    collect();
    sign_and_label();
    check_result();
    print_verdict();
    return std::move(result_);
  }

 private:
  void set_up();
  void observe_api();
  void print_banner();
  void install_safety_checks();
  void enter(RunPhase phase) {
    // Phases only advance: fault, settle, liveness (driver.h).
    WSIM_ASSERT_GE(static_cast<int>(phase), static_cast<int>(result_.phase));
    result_.phase = phase;
  }
  void schedule_scripted_events();
  void heal_and_settle();
  void check_liveness();
  void adopt_first_masked();
  void collect();
  void sign_and_label();
  void check_result() const;
  void print_verdict();

  void stop(Verdict verdict) {
    WSIM_ASSERT(!stopped_);  // A run stops once: every caller checks stopped_ first.
    WSIM_ASSERT(verdict != Verdict::kPass);
    result_.verdict = verdict;
    stopped_ = true;
    sim_.loop().request_stop();
  }
  void stop_with_violation(Violation violation, Verdict verdict, bool culprit);
  bool mask(const Violation& violation);
  std::optional<std::string> known_name_of(const Violation& violation,
                                           const Signature& signature) const;
  void check_safety(bool culprit) {
    WSIM_ASSERT(!stopped_);
    WSIM_ASSERT(run_ != nullptr);
    while (std::optional<Violation> violation = run_->check_safety()) {
      if (mask(*violation)) continue;
      stop_with_violation(std::move(*violation), Verdict::kSafety, culprit);
      return;
    }
  }

  const System& system_;
  const proto::Scenario& scenario_;
  const RunOptions& options_;
  RunResult result_;
  Sim sim_;
  std::unique_ptr<SystemRun> run_;
  const std::set<std::string, std::less<>> externals_;
  bool stopped_ = false;
  std::uint64_t trace_count_before_event_ = 0;
  // issue #12 item 2: a known safety violation is recorded and the run goes on. A system whose
  // check_safety() reports a standing violation again after every event is told apart by
  // (invariant, object): each is recorded once.
  bool masking_ = false;
  std::set<std::pair<std::string, std::string>> masked_seen_;
  // The scenario's go_past entries (a bundle of such a run) go past without signatures.
  std::map<std::pair<std::string, std::string>, std::string> go_past_;
};

// RunOptions::observe_api: the recorder sees the server before anything is stored in it.
void RunDriver::observe_api() {
  kube::ApiServer* api = run_->api_server();
  if (api == nullptr) return;
  WSIM_ASSERT_EQ(api->current_resource_version(), 0u);
  WSIM_ASSERT_EQ(sim_.now_ms(), 0);
  options_.observe_api(*api);
  WSIM_ASSERT_EQ(api->current_resource_version(), 0u);  // The recorder wrote nothing.
}

void RunDriver::set_up() {
  WSIM_ASSERT(run_ == nullptr);  // Once per driver.
  WSIM_ASSERT_EQ(sim_.now_ms(), 0);
  result_.seed = scenario_.seed();
  assert_context().seed = scenario_.seed();
  assert_context().scenario = system_.name() + " " + describe_config(scenario_, system_);
  sim_.trace().set_keep_events(options_.keep_trace);
  // Choice keys per spawned actor, for a keyed replay or record (shrinking's muting).
  if (sim_.choices().keys_needed()) sim_.loop().set_numbered_keys(true);
  if (scenario_.muted_actors_size() > 0) {
    sim_.loop().set_muted({scenario_.muted_actors().begin(), scenario_.muted_actors().end()});
  }
  const std::string scheduler = draw_scheduler(sim_, scenario_);
  run_ = system_.create(sim_, scenario_);
  WSIM_ASSERT(run_ != nullptr);
  if (options_.observe_api) observe_api();
  apply_fault_overrides(sim_, scenario_);
  if (!scenario_.scripted_only())
    sim_.faults().draw_swarm(sim_.stream("swarm"), sim_.stream("swarm2"));
  if (!scenario_.scripted_only() || scenario_.incidents()) {
    std::optional<bool> force;
    if (scenario_.has_incidents()) force = scenario_.incidents();
    sim_.faults().draw_incidents(sim_.stream("incidents"), scenario_.fault_phase_ms(),
                                 kIncidentsEnable, force);
  }
  result_.swarm = swarm_of(sim_, *run_, scheduler);
  WSIM_ASSERT_EQ(sim_.now_ms(), 0);  // Setting up ran no event.
  masking_ = options_.known != nullptr && options_.keep_trace && options_.go_past_known;
  for (const proto::KnownViolation& entry : scenario_.go_past()) {
    go_past_.emplace(std::make_pair(entry.invariant(), entry.object()), entry.known());
  }
}

void RunDriver::print_banner() {
  std::ostream* log = options_.log;
  if (log == nullptr) return;
  WSIM_ASSERT(!result_.swarm.empty());  // set_up() drew the swarm first.
  *log << "SEED=" << scenario_.seed();
  if (scenario_.has_swarm_seed()) *log << " (swarm from seed " << scenario_.swarm_seed() << ")";
  *log << (options_.tape || options_.keyed_tape ? " (replaying a choice record)"
           : options_.bytes                     ? " (choices from a fuzzer input)"
                                                : "")
       << "\n";
  *log << "system " << system_.name() << ": " << describe_config(scenario_, system_) << "\n";
  *log << "phases: fault " << format_duration_ms(scenario_.fault_phase_ms()) << ", settle "
       << format_duration_ms(scenario_.settle_ms())
       << (scenario_.scripted_only() ? ", scripted events only" : "") << "\n";
  std::size_t width = 0;
  for (const auto& [name, value] : result_.swarm) width = std::max(width, name.size());
  for (const auto& [name, value] : result_.swarm) {
    *log << "swarm " << std::left << std::setw(static_cast<int>(width)) << name << "  " << value
         << "\n";
  }
  log->flush();
}

// Safety after every event; the event budget.
void RunDriver::install_safety_checks() {
  WSIM_ASSERT(run_ != nullptr);
  sim_.loop().set_after_event([this] {
    EventLoop& loop = sim_.loop();
    // The trace only grows: the culprit test in stop_with_violation relies on it (O(1)).
    WSIM_ASSERT_GE(sim_.trace().count(), trace_count_before_event_);
    if (stopped_) return;
    check_safety(true);
    if (stopped_) return;
    if (loop.events_processed() >= options_.events_max) {
      result_.harness_error = "event budget of " + std::to_string(options_.events_max) +
                              " events exhausted at " + format_duration_ms(loop.now_ms()) +
                              " (a livelock, or raise --max-events)";
      stop(Verdict::kHarnessError);
      return;
    }
    trace_count_before_event_ = sim_.trace().count();
  });
}

// `culprit`: the trace events of the current loop event caused it (safety); liveness has none.
void RunDriver::stop_with_violation(Violation violation, Verdict verdict, bool culprit) {
  WSIM_ASSERT(verdict == Verdict::kSafety || verdict == Verdict::kLiveness);
  WSIM_ASSERT(!result_.violation.has_value());  // The first violation decides; the run stops.
  if (culprit && sim_.trace().count() > trace_count_before_event_ && options_.keep_trace) {
    result_.culprit_event = sim_.trace().events().size() - 1;
  }
  sim_.record_violation(violation.object, violation.invariant_id, violation.message);
  if (options_.keep_trace) result_.violation_event = sim_.trace().events().size() - 1;
  // The culprit precedes the harness's own violation marker.
  if (result_.culprit_event) WSIM_ASSERT_LT(*result_.culprit_event, *result_.violation_event);
  result_.violation = std::move(violation);
  stop(verdict);
}

// The known bug a safety violation just seen is taken for, if any: the scenario's go_past entry,
// the bug that already broke the same object or one of its Violation::related objects (a later
// violation is its consequence), or the bug whose signature matches.
std::optional<std::string> RunDriver::known_name_of(const Violation& violation,
                                                    const Signature& signature) const {
  const auto listed = go_past_.find(std::make_pair(violation.invariant_id, violation.object));
  if (listed != go_past_.end()) return listed->second;
  const auto broken =
      std::find_if(result_.masked.begin(), result_.masked.end(), [&](const MaskedViolation& m) {
        return m.violation.object == violation.object ||
               std::find(violation.related.begin(), violation.related.end(), m.violation.object) !=
                   violation.related.end();
      });
  if (broken != result_.masked.end()) return broken->known;
  WSIM_ASSERT(options_.known != nullptr);  // Only masking_ (known bugs given) gets this far.
  const KnownBug* known = match_known(signature, *options_.known);
  if (known == nullptr) return std::nullopt;
  return known->name;
}

// True when `violation` (a safety violation just seen) is known and was recorded.
bool RunDriver::mask(const Violation& violation) {
  WSIM_ASSERT(!stopped_);
  WSIM_ASSERT(!violation.invariant_id.empty());
  const auto key = std::make_pair(violation.invariant_id, violation.object);
  if (masked_seen_.count(key) > 0) return true;
  if (options_.go_past_every_safety) {
    masked_seen_.insert(key);
    sim_.record("wsim", "known-violation", violation.object, violation.invariant_id,
                "any (go_past_every_safety): " + violation.message);
    result_.masked.push_back(MaskedViolation{violation, Signature{}, "any", std::nullopt});
    return true;
  }
  if (!masking_ && go_past_.count(key) == 0) return false;
  const bool keep = sim_.trace().keep_events();
  std::optional<std::size_t> culprit;
  if (keep && sim_.trace().count() > trace_count_before_event_) {
    culprit = sim_.trace().events().size() - 1;
  }
  Signature signature;
  if (keep) signature = compute_signature(externals_, sim_.trace().events(), culprit, violation);
  std::optional<std::string> known_name = known_name_of(violation, signature);
  if (!known_name) return false;
  masked_seen_.insert(key);
  sim_.record("wsim", "known-violation", violation.object, violation.invariant_id,
              *known_name + ": " + violation.message);
  result_.masked.push_back(
      MaskedViolation{violation, std::move(signature), std::move(*known_name), culprit});
  // Each (invariant, object) is masked once.
  WSIM_ASSERT_EQ(result_.masked.size(), masked_seen_.size());
  return true;
}

// Scripted events at their times (after the actors start(), so an event at 0 runs after their
// first step).
void RunDriver::schedule_scripted_events() {
  // Scheduled at time 0, so each event's delay is its time.
  WSIM_ASSERT_EQ(sim_.now_ms(), 0);
  for (const proto::ScriptedEvent& event : scenario_.events()) {
    WSIM_ASSERT_GE(event.at_ms(), 0);  // validate_scenario rejects a negative time.
    sim_.loop().schedule(event.at_ms(), [this, event] {
      WSIM_ASSERT_EQ(sim_.now_ms(), event.at_ms());
      if (stopped_) return;
      sim_.record_scripted(event.actor(), event.action(), event.target());
      std::string error;
      if (!run_->perform(event, error)) {
        result_.harness_error = "scripted event " + event.actor() + " " + event.action() + " " +
                                event.target() + " failed: " + error;
        stop(Verdict::kHarnessError);
      }
    });
  }
}

void RunDriver::heal_and_settle() {
  WSIM_ASSERT(!stopped_);
  // run_until() moved the clock to the end of the fault phase.
  WSIM_ASSERT_EQ(sim_.now_ms(), scenario_.fault_phase_ms());
  enter(RunPhase::kSettle);
  sim_.record(
      "wsim", "heal", "", "ok",
      "faults and external actions stop; settle " + format_duration_ms(scenario_.settle_ms()));
  sim_.faults().heal();
  run_->heal();
  trace_count_before_event_ = sim_.trace().count();
  check_safety(false);
  if (!stopped_) sim_.loop().run_until(scenario_.fault_phase_ms() + scenario_.settle_ms());
}

void RunDriver::check_liveness() {
  WSIM_ASSERT(!stopped_);
  WSIM_ASSERT_EQ(sim_.now_ms(), scenario_.fault_phase_ms() + scenario_.settle_ms());
  enter(RunPhase::kLiveness);
  result_.liveness = run_->check_liveness();
  if (result_.liveness.empty()) return;
  stop_with_violation(result_.liveness.front(), Verdict::kLiveness, false);
  WSIM_ASSERT(result_.verdict == Verdict::kLiveness);
  for (std::size_t i = 1; i < result_.liveness.size(); ++i) {
    const Violation& v = result_.liveness[i];
    sim_.record_violation(v.object, v.invariant_id, v.message);
  }
}

// Only known safety violations: the first of them is the run's verdict.
void RunDriver::adopt_first_masked() {
  WSIM_ASSERT(!result_.masked.empty());
  WSIM_ASSERT(result_.verdict == Verdict::kPass);  // Not stopped: no unknown violation.
  WSIM_ASSERT(!result_.violation.has_value());
  const MaskedViolation& first = result_.masked.front();
  result_.verdict = Verdict::kSafety;
  result_.violation = first.violation;
  result_.culprit_event = first.culprit_event;
  if (options_.keep_trace) result_.signature = first.signature;
  result_.known = first.known;
  result_.labelled = true;
}

void RunDriver::collect() {
  result_.fingerprint = sim_.fingerprint();
  result_.trace_hash = sim_.trace().hash();
  result_.events = sim_.loop().events_processed();
  result_.trace_events = sim_.trace().count();
  result_.choices = sim_.choices().consumed();
  result_.tape_exhausted = sim_.choices().exhausted();
  result_.end_ms = sim_.now_ms();
  result_.state = run_->describe_state();
  result_.probes = sim_.probes();
  if (options_.record_choices) result_.record = sim_.choices().record();
  if (options_.record_choices && options_.record_choice_actors) {
    result_.record_actors = sim_.choices().record_keys();
    result_.record_actor_names = sim_.choices().key_names();
  }
  if (options_.keep_trace) result_.trace = sim_.trace().events();
  // Recording started before the first draw (make_choices): the record is every choice.
  if (options_.record_choices) WSIM_ASSERT_EQ(result_.record.size(), result_.choices);
  WSIM_ASSERT_LE(result_.trace.size(), result_.trace_events);
}

void RunDriver::sign_and_label() {
  if (options_.keep_trace && result_.violation && !result_.signature) {
    const std::optional<std::size_t> culprit =
        result_.verdict == Verdict::kSafety ? result_.culprit_event : std::nullopt;
    // A liveness violation's final state names its mechanism (signature.h).
    const std::string_view state =
        result_.verdict == Verdict::kLiveness ? std::string_view(result_.state) : "";
    result_.signature =
        compute_signature(externals_, result_.trace, culprit, *result_.violation, state);
    if (options_.known != nullptr) {
      const KnownBug* known = match_known(*result_.signature, *options_.known);
      if (known != nullptr) result_.known = known->name;
      // A liveness verdict of a run that went past a known safety violation is judged on a world
      // that bug already broke (a leak keeps the protocol busy, a lost object is never
      // converged): it is taken for that bug's consequence, as a later safety violation of the
      // same object is.
      if (known == nullptr && result_.verdict == Verdict::kLiveness && !result_.masked.empty()) {
        result_.known = result_.masked.front().known;
      }
    }
  }
  result_.labelled =
      result_.labelled || (options_.known != nullptr && result_.signature.has_value());
  if (result_.signature) WSIM_ASSERT(result_.violation.has_value());  // It signs a violation.
  if (!result_.known.empty()) WSIM_ASSERT(result_.violation.has_value());
}

// The verdict and its evidence agree (a failed verdict has its violation, a pass has none).
void RunDriver::check_result() const {
  const bool violated =
      result_.verdict == Verdict::kSafety || result_.verdict == Verdict::kLiveness;
  WSIM_ASSERT_EQ(violated, result_.violation.has_value());
  if (result_.verdict == Verdict::kHarnessError) WSIM_ASSERT(!result_.harness_error.empty());
  if (result_.verdict == Verdict::kLiveness) WSIM_ASSERT(!result_.liveness.empty());
  WSIM_ASSERT_LE(result_.end_ms, scenario_.fault_phase_ms() + scenario_.settle_ms());
  WSIM_ASSERT_EQ(result_.seed, scenario_.seed());
}

void RunDriver::print_verdict() {
  std::ostream* log = options_.log;
  if (log == nullptr) return;
  *log << "verdict " << verdict_name(result_.verdict) << " at "
       << format_duration_ms(result_.end_ms) << " (" << run_phase_name(result_.phase) << " phase), "
       << result_.events << " events, " << result_.trace_events << " trace events, fingerprint "
       << format_hash(result_.fingerprint) << "\n";
  if (result_.verdict == Verdict::kHarnessError) *log << "  " << result_.harness_error << "\n";
  if (result_.verdict == Verdict::kSafety && result_.violation) {
    print_violation(*log, *result_.violation);
  }
  for (const Violation& violation : result_.liveness) print_violation(*log, violation);
  for (const MaskedViolation& masked : result_.masked) {
    *log << "  known safety violation passed (known: " << masked.known << ")\n";
    print_violation(*log, masked.violation);
  }
  if (result_.signature) {
    *log << "signature " << result_.signature->text() << "\n";
    if (result_.labelled) {
      *log << (result_.known.empty() ? "NEW" : "known: " + result_.known) << "\n";
    }
  }
  log->flush();
}

}  // namespace

std::string_view run_phase_name(RunPhase phase) {
  switch (phase) {
    case RunPhase::kFault:
      return "fault";
    case RunPhase::kSettle:
      return "settle";
    case RunPhase::kLiveness:
      return "liveness";
  }
  WSIM_ASSERT(false);
  return "fault";
}

RunResult execute_run(const System& system, const proto::Scenario& scenario,
                      const RunOptions& options) {
  return RunDriver(system, scenario, options).run();
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
