// Sim: the deterministic world of one run — event loop, choice source, trace, fault points and
// probes. Everything a run does follows from the choice source; nothing else is read.
// Not copyable or movable: streams and awaitables hold pointers into it.
#pragma once

#include <cstdint>

#include "sim/core/assert.h"
#include "sim/core/choice.h"
#include "sim/core/event_loop.h"
#include "sim/core/fault.h"
#include "sim/core/probe.h"
#include "sim/core/trace.h"

namespace wsim {

class Sim {
 public:
  explicit Sim(ChoiceSource choices) : choices_(std::move(choices)) {
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

  // Convenience: records a trace event at the current virtual time.
  void record(std::string actor, std::string verb, std::string object, std::string result,
              std::string detail = {}) {
    trace_.record(now_ms(), std::move(actor), std::move(verb), std::move(object), std::move(result),
                  std::move(detail));
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
