// `wsim explain BUNDLE [--html FILE] [--verbose]` (docs/architecture.md §6, §8): a short plain-text
// story of a failure bundle.
//
//   1. the invariant (id, kind, its one-line description and real-world reference from the
//      System's InvariantInfo), what was seen, the run (system, versions, seed, sizes);
//   2. the few events that matter: those touching the violating object (boundary-aware name
//      match: "ws-0" matches "Namespace/gl-rd-ns-ws-0", not "ws-01") that are external actions
//      (user, kubectl, admin, ...), faults, or writes by the control plane, the agent and the kube
//      controllers' deletions; runs of the same actor/verb/result are folded into one line;
//   3. the state before and after: SystemRun::describe_state() just before the first
//      disturbing event (the first fault or non-creating external action on the object, else
//      the culprit) — found by replaying the choice record with a shrinking event budget — and
//      at the end of the run (verdict.json's "state").
//
// The bundle is re-executed from its choice record (`wsim replay` semantics); when a shrunk run
// exists next to it (BUNDLE-shrunk/, written by `wsim shrink`) that one is explained instead.
// --html FILE writes the timeline (timeline_html.h) to FILE; --verbose appends the whole trace,
// one event per line with every column unclipped and the detail in full below it. A line
// "signature: ..." then "known: FILE#N" or "NEW" (against --known DIR, default
// corpus/regressions, when it exists) names the bug (signature.h).
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/choice.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/driver.h"
#include "sim/run/system.h"
#include "sim/run/trace_view.h"

namespace wsim::run {

inline constexpr std::size_t kExplainEventLinesMax = 14;

// The indices of the trace events that matter for `object` (see above), in order.
std::vector<std::size_t> key_events(const System& system, const RunResult& result,
                                    const std::string& object);

// Key events folded for reading: consecutive events (of `keys`) of one actor, verb and result at
// most kFoldGapMs apart form one group; a violation is never folded. Groups in trace order.
inline constexpr TimeMs kFoldGapMs = 10'000;
struct EventGroup {
  std::size_t first = 0;             // The group's first trace index.
  std::vector<std::size_t> members;  // Every trace index of the group, `first` included.
};
std::vector<EventGroup> fold_key_events(const RunResult& result,
                                        const std::vector<std::size_t>& keys);

// The first disturbing event among `keys` (key_events): the first fault, or the first external
// action after an earlier one (the first creates, the next disturbs), else the culprit. The
// event `wsim explain` shows the state before, and the timeline marks "first culprit".
std::optional<std::size_t> first_disturbing_event(const System& system, const RunResult& result,
                                                  const std::vector<std::size_t>& keys);

struct StateSnapshot {
  TimeMs time_ms = 0;
  std::string state;
};
// describe_state() after the largest number of loop events whose trace has at most
// `trace_index` events, i.e. just before trace event `trace_index` happened. Replays `tape`.
std::optional<StateSnapshot> state_before(const System& system, const proto::Scenario& scenario,
                                          const std::vector<std::uint64_t>& tape,
                                          const RunResult& result, std::size_t trace_index);

// The story. `source` names where the run came from (bundle or shrunk bundle directory).
std::string explain_run(const System& system, const proto::Scenario& scenario,
                        const std::vector<std::uint64_t>& tape, const RunResult& result,
                        const std::string& source);

// The whole trace, verbose: every column unclipped, the detail in full (a multi-line detail,
// e.g. an object diff, indented under its event).
std::string render_trace_verbose(const RunResult& result);

}  // namespace wsim::run
