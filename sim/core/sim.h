// Sim: the deterministic world of one run — event loop, choice source, trace, fault points and
// probes. Everything a run does follows from the choice source; nothing else is read.
// Not copyable or movable: streams and awaitables hold pointers into it.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/core/assert.h"
#include "sim/core/choice.h"
#include "sim/core/event_loop.h"
#include "sim/core/fault.h"
#include "sim/core/probe.h"
#include "sim/core/trace.h"

namespace wsim {

class Sim {
 public:
  // REQUIRES: `choices` fresh (nothing drawn yet): a run is a function of its choices from the
  // first one.
  explicit Sim(ChoiceSource choices) : choices_(std::move(choices)) {
    WSIM_ASSERT_EQ(choices_.consumed(), 0u);
    faults_.set_step_counter([this] { return loop_.events_processed(); });
    faults_.set_clock(loop_.now_ms_clock());
    // A choice's key is the actor that draws it ("-" in callbacks): keyed tapes and key records.
    choices_.set_key_source(
        [this]() -> std::string_view { return loop_.actor_key(loop_.current_actor()); });
    assert_context().seed = choices_.seed();
    assert_context().now_ms = 0;
  }
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  TimeMs now_ms() const { return loop_.now_ms(); }
  EventLoop& loop() { return loop_; }
  ChoiceSource& choices() { return choices_; }
  ChoiceStream stream(std::string_view name) { return choices_.stream(name); }
  Trace& trace() { return trace_; }
  Faults& faults() { return faults_; }
  Probes& probes() { return probes_; }

  // Records an action event at the current virtual time, with the fault points that fired in
  // this event-loop step before it (TraceEvent::faults).
  // Takes views: the fields are hashed in place and copied only when the trace keeps events
  // (docs/performance.md §10).
  void record(std::string_view actor, std::string_view verb, std::string_view object,
              std::string_view result, std::string_view detail = {}) {
    WSIM_ASSERT_MSG(!actor.empty(), "a trace event needs an actor");
    WSIM_ASSERT_MSG(!verb.empty(), "a trace event needs a verb");
    trace_.record(now_ms(), actor, verb, object, result, detail, TraceKind::kAction,
                  faults_.take_fired(loop_.events_processed()));
  }
  // The driver's marker that a scripted scenario event (actor, action, target) fires now.
  void record_scripted(std::string actor, std::string action, std::string target) {
    WSIM_ASSERT_MSG(!actor.empty(), "a scripted event needs an actor");
    WSIM_ASSERT_MSG(!action.empty(), "a scripted event needs an action");
    record_event(TraceEvent(now_ms(), std::move(actor), std::move(action), std::move(target),
                            "scripted", {}, TraceKind::kScripted));
  }
  // The harness's verdict: invariant `invariant_id` broke on `object`.
  void record_violation(std::string object, std::string invariant_id, std::string message) {
    WSIM_ASSERT_MSG(!invariant_id.empty(), "a verdict needs a stable invariant id (STYLE.md §6)");
    record_event(TraceEvent(now_ms(), "wsim", "violation", std::move(object),
                            std::move(invariant_id), std::move(message), TraceKind::kViolation));
  }
  // Records `event` with the fault points fired in this event-loop step (TraceEvent::faults).
  void record_event(TraceEvent event) {
    WSIM_ASSERT_LE(event.time_ms, now_ms());  // Stamped now or before, never in the future.
    event.faults = faults_.take_fired(loop_.events_processed());
    trace_.record(std::move(event));
  }

  // Trace hash combined with the event loop's schedule hash: the run's fingerprint.
  std::uint64_t fingerprint() const {
    return trace_.hash() ^ (loop_.schedule_hash() * 0x9e3779b97f4a7c15ULL);
  }

 private:
  ChoiceSource choices_;
  EventLoop loop_;
  Trace trace_;
  Faults faults_;
  Probes probes_;
};

}  // namespace wsim
