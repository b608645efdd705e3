// Shrinking a failing run (design.md §6 "Shrinking"): the smallest run we can find that still
// fails with the SAME invariant id.
//
// A run is (scenario, choice tape). Candidates are replayed through the tape backend (values past
// the end of a tape are 0, the least eventful choice), and a candidate is kept only when it fails
// with the same invariant AND is simpler: fewer scripted events, or a shortlex-smaller normalized
// tape (the candidate's own choice record with trailing zeros dropped). So every step makes
// progress and shrinking terminates. Passes, repeated until none helps or the run budget is spent:
//
//   events     drop scripted events (halves, quarters, ... single events);
//   truncate   keep only a prefix of the tape (binary search; the rest becomes 0);
//   zero       zero spans of choices, coarse to fine (no fault, shortest delay, no action);
//   delete     delete spans of choices (shifts what follows);
//   lower      halve / decrement single values.
//
// Nothing here knows a system: "external events" are the trace events whose actor is one of the
// system's scripted-action catalog (user, kubectl, admin, link, ...), counted for the report.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/trace.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/driver.h"
#include "sim/run/system.h"

namespace wsim::run {

struct ShrinkOptions {
  std::uint64_t max_runs = 2000;                // Candidate runs, at most.
  std::uint64_t events_max = kDefaultEventsMax;  // Event budget of one run.
  std::ostream* progress = nullptr;              // One line per improving pass.
};

struct ShrinkResult {
  bool ok = false;
  std::string error;           // Why nothing could be shrunk (e.g. the run does not fail).
  Verdict verdict = Verdict::kPass;
  std::string invariant;       // The invariant every kept candidate violated.
  proto::Scenario scenario;    // Shrunk scenario (scripted events dropped).
  std::vector<std::uint64_t> tape;  // Shrunk choice tape.
  RunResult run;               // The shrunk run, with its choice record and trace.

  std::uint64_t runs = 0;      // Candidates tried.
  bool budget_exhausted = false;
  std::size_t choices_before = 0, choices_after = 0;   // Normalized tape length.
  std::size_t nonzero_before = 0, nonzero_after = 0;   // Non-zero choices.
  int scripted_before = 0, scripted_after = 0;
  std::size_t external_before = 0, external_after = 0;
};

// Shrinks the failing run (scenario, tape) of `system`; the scenario must be validated.
ShrinkResult shrink_run(const System& system, const proto::Scenario& scenario,
                        const std::vector<std::uint64_t>& tape, const ShrinkOptions& options);

// The external events of a trace: those whose actor (up to the first '/') and verb match an entry
// of the system's scripted-action catalog (verb = action, its first word, or action-suffix); the
// driver's own "scripted" marker of a scripted event is not counted twice. A heuristic for the
// report: it needs no help from the system.
std::vector<TraceEvent> external_events(const System& system,
                                        const std::vector<TraceEvent>& trace);

// "  2m00.000s  kubectl  delete  Namespace/gl-rd-ws-0  ok" lines.
std::string render_events(const std::vector<TraceEvent>& events);

// `wsim shrink BUNDLE [-o DIR] [--max-runs N]`: shrinks a failure bundle, prints the summary and
// the external events of the shrunk run, and writes the shrunk bundle (scenario + choices.bin +
// trace + shrink.txt) to DIR (default BUNDLE-shrunk), atomically. Exit code: the verdict's.
struct ShrinkCommand {
  std::string bundle;
  std::string out;
  std::uint64_t max_runs = 2000;
  std::uint64_t events_max = kDefaultEventsMax;
};
int cmd_shrink(const ShrinkCommand& command, std::ostream& out, std::ostream& err);

}  // namespace wsim::run
