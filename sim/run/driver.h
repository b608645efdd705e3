// The run driver: one run of a validated scenario, through the phases of docs/architecture.md §5.
//
//   build the Sim (from the scenario's seed, or from a recorded choice tape), recording on if
//   asked → create the SystemRun (declares fault points and probes) → apply the scenario's fault
//   overrides → draw the fault swarm on stream "swarm" (skipped for scripted_only scenarios) →
//   print the seed and every swarm parameter → start → fault phase (workload, faults, scripted
//   events at their times) → heal (faults off, SystemRun::heal) → settle → liveness check.
//
// Safety invariants are checked after every event; a violation stops the run at once, unless
// RunOptions::known and go_past_known are set, keep_trace is on and the violation's signature
// (signature.h) matches a known bug: then it is recorded in RunResult::masked (with a "wsim
// known-violation" trace event) and the run goes on, so a later, different violation is still
// seen (issue #12 item 2; liveness is judged at the end as usual). A later safety violation of an
// object a known bug already broke — as its object or one of its Violation::related objects, e.g.
// the two live instances of one workspace id — is taken for a consequence of that bug and goes
// past too (a different bug on the same object is hidden: the price of not drowning in
// cascades). Likewise a liveness verdict of a run that went past a known safety violation is
// labelled with that bug. The run also stops (as a harness error) when it exceeds its event
// budget: a livelock at one instant of virtual time must not hang a hunt.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/choice.h"
#include "sim/core/probe.h"
#include "sim/core/trace.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/realism.h"
#include "sim/run/signature.h"
#include "sim/run/system.h"
#include "sim/run/verdict.h"

namespace wsim::run {

inline constexpr std::uint64_t kDefaultEventsMax = 50'000'000;

struct RunOptions {
  // Replays these choices (a recorded run) instead of drawing from the scenario's seed.
  std::optional<std::vector<std::uint64_t>> tape;
  // Or replays each actor's own recorded choices (ChoiceSource::from_keyed_tape; shrinking, to
  // drop a muted actor's choices without shifting the others'). Takes precedence over `tape`.
  std::optional<ChoiceSource::KeyedTape> keyed_tape;
  // Or draws every choice from these bytes (a libFuzzer input: ChoiceSource::from_bytes; past
  // the end every choice is 0, or random with BytesTail::kRandom). Ignored when `tape` is set.
  std::optional<std::vector<std::uint8_t>> bytes;
  ChoiceSource::BytesTail bytes_tail = ChoiceSource::BytesTail::kZeros;
  bool record_choices = false;  // Keep the choice record (choices.bin of a bundle).
  // With record_choices: also which actor drew each choice (RunResult::record_actors).
  bool record_choice_actors = false;
  bool keep_trace = false;      // Keep the trace events (not only their hash).
  std::ostream* log = nullptr;  // Banner (seed, swarm), phases and verdict; null = quiet.
  std::uint64_t events_max = kDefaultEventsMax;
  // Known bugs: with keep_trace, label the run's violation (RunResult::signature, ::known) and,
  // with go_past_known, let a known safety violation pass (see the file comment). Not owned;
  // null = no labels.
  const std::vector<KnownBug>* known = nullptr;
  bool go_past_known = false;
  // Measurement only (tests/bench/bench_scale.cc, docs/performance.md): every safety violation,
  // known or not, is recorded in RunResult::masked (no signature, known = "any") and the run goes
  // on, so a run at scale costs its full length. Never set by hunts, replays or the CLI.
  bool go_past_every_safety = false;
  // A read-only recorder of the run's API server (serve/replay_world.cc, `wsim replay --serve`):
  // called once with SystemRun::api_server() after the system's run is built and before it
  // starts, so it sees every change from the first. It may subscribe(); it must not write, draw
  // choices or trace, so that an observed run is the same run. Null = none; not called for a
  // system without an API server.
  std::function<void(kube::ApiServer&)> observe_api;
};

// The phases of a run, in order (the file comment above): faults and external actions, then
// heal and settle, then the liveness check.
enum class RunPhase { kFault, kSettle, kLiveness };
// "fault", "settle", "liveness" (verdict.json's "phase", the reports' "(... phase)").
std::string_view run_phase_name(RunPhase phase);

// A safety violation that matched a known bug and did not stop the run.
struct MaskedViolation {
  Violation violation;
  Signature signature;
  std::string known;                         // KnownBug::name.
  std::optional<std::size_t> culprit_event;  // Index in RunResult::trace.
};

struct RunResult {
  Verdict verdict = Verdict::kPass;
  std::optional<Violation> violation;  // The violation that decided the verdict.
  std::vector<Violation> liveness;     // Every liveness violation (the first is `violation`).
  std::string harness_error;           // For Verdict::kHarnessError.
  RunPhase phase = RunPhase::kFault;   // Where the run ended.

  std::uint64_t seed = 0;
  std::uint64_t fingerprint = 0;  // Sim::fingerprint(): trace hash ⊕ schedule hash.
  std::uint64_t trace_hash = 0;
  std::uint64_t events = 0;  // Event-loop events run.
  std::uint64_t trace_events = 0;
  std::uint64_t choices = 0;    // Choices consumed.
  bool tape_exhausted = false;  // A replay ran past the end of its tape.
  TimeMs end_ms = 0;

  // The swarm: every fault point ("on"/"off", "forced on"...) then the system's own parameters.
  std::vector<std::pair<std::string, std::string>> swarm;
  std::string state;  // SystemRun::describe_state() at the end.
  Probes probes;

  std::vector<Choice> record;  // With record_choices.
  // With record_choice_actors: record_actor_names[record_actors[i]] drew record[i] ("-" outside
  // any actor); keyed_tape_of(record, record_actors, record_actor_names) replays it per actor.
  std::vector<std::uint32_t> record_actors;
  std::vector<std::string> record_actor_names;
  std::vector<TraceEvent> trace;  // With keep_trace.
  // Index in `trace` of the event after which the violation was seen (the culprit), if any, and
  // of the harness's own "violation" marker event.
  std::optional<std::size_t> culprit_event;
  std::optional<std::size_t> violation_event;

  // With keep_trace: the signature of `violation`; with RunOptions::known also its label, the
  // matching KnownBug::name or empty (NEW).
  std::optional<Signature> signature;
  bool labelled = false;
  std::string known;
  // Known safety violations the run went past (RunOptions::known with keep_trace), in order. A run
  // whose only violations are these ends with the first of them as `violation` (kSafety), its
  // label in `known` and its culprit in `culprit_event`.
  std::vector<MaskedViolation> masked;
  // Set by the caller that checked it (realism.h: a hunt's re-run, `wsim run`), for
  // verdict.json; absent: verdict_record derives it without re-runs (unchecked_realism).
  std::optional<Realism> realism;
};

// Runs `scenario` (validated and normalized: see validate_scenario) of `system`.
RunResult execute_run(const System& system, const proto::Scenario& scenario,
                      const RunOptions& options);

// Runs `scenario` as execute_run does, without the trace first (fast); when that run violates an
// invariant some bug of `known` has, runs it again with the trace and `known` (labels, masking).
// The result is the one execute_run(…, options with keep_trace and known) would give whenever a
// violation could be known (go_past_known on). For hunts and fuzzing: REQUIRES options.known and
// options.log are null and options.keep_trace is off.
RunResult execute_run_with_known(const System& system, const proto::Scenario& scenario,
                                 const RunOptions& options, const std::vector<KnownBug>& known);

// The choice values of a record, for RunOptions::tape.
std::vector<std::uint64_t> tape_of(const std::vector<Choice>& record);

}  // namespace wsim::run
