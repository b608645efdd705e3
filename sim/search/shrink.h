// Shrinking a failing run (docs/architecture.md §6 "Shrinking"): the smallest run we can find that
// still fails with the SAME invariant id (and, with ShrinkOptions::known, the same label: the same
// known bug, or NEW — so a hunted finding does not drift to another bug of the same invariant).
//
// A run is (scenario, choice tape). Candidates are replayed through the tape backend (values past
// the end of a tape are 0, the least eventful choice), and a candidate is kept only when it fails
// the same way AND is simpler: fewer scripted events, or a shortlex-smaller normalized tape (the
// candidate's own choice record with trailing zeros dropped), or the same tape with a shorter
// fault phase. So every step makes progress and shrinking terminates. The RESULT is the kept run
// with the fewest (scripted events, external events), the latest on ties: external events are
// what a maintainer reads, and a simpler tape can mean more of them (a zeroed choice is often a
// shorter sleep between a user's writes), so the search may pass through bigger runs but never
// returns one bigger than the original. Passes, repeated until none helps or the run budget is
// spent:
//
//   groups   drop whole groups of scripted events (event_groups: all events of one workspace,
//            node or object, then all events of one actor), one group at a time, largest first;
//   events   drop scripted events (halves, quarters, ... single events);
//   mute     mute one external actor of the random workload (a workspace's user, an admin) for
//            good (Scenario.muted_actors), the one that drew the most choices first; the candidate
//            replays every other actor's own choices (a keyed tape), so they act as before;
//   actor    delete spans of one external actor's own choices (halves ... single), the others'
//            kept in place by the keyed tape: a user loses actions, nobody else moves;
//   phase    shorten the fault phase (binary search in seconds): the workload stops earlier;
//   truncate keep only a prefix of the tape (binary search; the rest becomes 0);
//   zero     zero spans of choices, coarse to fine (no fault, shortest delay, no action);
//   delete   delete spans of choices (shifts what follows);
//   lower    halve / decrement single values.
//
// Nothing here knows a system: "external events" are the trace events whose actor is one of the
// system's scripted-action catalog (user, kubectl, admin, link, ...), counted for the report, and
// the groups come from the scenario's own events (their targets and actors), never from names of
// known bugs.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/trace.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/driver.h"
#include "sim/run/system.h"

namespace wsim::run {

struct ShrinkOptions {
  std::uint64_t max_runs = 2000;                 // Candidate runs, at most.
  std::uint64_t events_max = kDefaultEventsMax;  // Event budget of one run.
  std::ostream* progress = nullptr;              // One line per improving pass.
  // Known bugs (signature.h): when set, every run keeps its trace and is labelled, and a candidate
  // is kept only when its label (the known bug's FILE#N, or NEW) is the original run's. Not owned.
  const std::vector<KnownBug>* known = nullptr;
};

struct ShrinkResult {
  bool ok = false;
  std::string error;  // Why nothing could be shrunk (e.g. the run does not fail).
  Verdict verdict = Verdict::kPass;
  std::string invariant;            // The invariant every kept candidate violated.
  bool labelled = false;            // ShrinkOptions::known was set.
  std::string known;                // Then: the label every kept candidate had ("" = NEW).
  proto::Scenario scenario;         // Shrunk scenario (scripted events dropped).
  std::vector<std::uint64_t> tape;  // Shrunk choice tape.
  RunResult run;                    // The shrunk run, with its choice record and trace.

  std::uint64_t runs = 0;  // Candidates tried.
  bool budget_exhausted = false;
  std::size_t choices_before = 0, choices_after = 0;  // Normalized tape length.
  std::size_t nonzero_before = 0, nonzero_after = 0;  // Non-zero choices.
  int scripted_before = 0, scripted_after = 0;
  std::vector<std::string> muted;  // The shrunk scenario's muted actors.
  std::size_t external_before = 0, external_after = 0;
};

// Shrinks the failing run (scenario, tape) of `system`; the scenario must be validated.
ShrinkResult shrink_run(const System& system, const proto::Scenario& scenario,
                        const std::vector<std::uint64_t>& tape, const ShrinkOptions& options);

// The external events of a trace: those whose actor (up to the first '/') and verb match an entry
// of the system's scripted-action catalog (verb = action, its first word, or action-suffix); the
// driver's own "scripted" marker of a scripted event is not counted twice. A heuristic for the
// report: it needs no help from the system.
std::vector<TraceEvent> external_events(const System& system, const std::vector<TraceEvent>& trace);

// The groups of a scenario's scripted events that shrinking tries to drop whole before single
// events (delta debugging over the scenario's structure, coarse to fine), each a sorted list of
// event indices, in the order to try:
//   1. by subject: the events of one target (a workspace, a node, an object), an object whose
//      name holds another target at a '-'/'/' boundary counting as that target's ("Pod/ws-alice-1"
//      with "alice"; the longest such target wins), largest group first;
//   2. by actor: all events of one actor (user, kubectl, api, ...), largest first.
// A group holding every event is left out (dropping all events is the single-events pass's first
// step). Ties are broken by the key, so the order is deterministic.
std::vector<std::vector<int>> event_groups(const proto::Scenario& scenario);

// `scenario` without the events whose indices are in `drop` (sorted).
proto::Scenario without_events(const proto::Scenario& scenario, const std::vector<int>& drop);

// One delta-debugging round over the groups of event_groups(scenario), computed once: each group
// in order, without the events an earlier removal already took, is dropped when
// `still_fails(candidate)` says the candidate fails the same way (the caller runs it; it may
// change the candidate, e.g. its seed, and the changed candidate is the one kept). A group that
// could not go is not tried again in the round. Returns the scenario left.
proto::Scenario drop_event_groups(const proto::Scenario& scenario,
                                  const std::function<bool(proto::Scenario&)>& still_fails);

// "  2m00.000s  kubectl  delete  Namespace/gl-rd-ws-0  ok" lines.
std::string render_events(const std::vector<TraceEvent>& events);

// The short readable scenario of a shrunk run (docs/architecture.md §6: "the result is rendered as
// a short readable scenario"): a scripted_only scenario whose events are the run's external
// actions, at their virtual times, in the scripted-action catalog's terms, plus FaultOverride
// entries for the fault points that fired. Rendering reads only the trace and the catalog (sim/
// knows no system):
//
//   action   a trace event of a catalog actor ("user", "user/ws0", "agentk" for "agent") whose verb
//            is the action, its first word, or the action with a suffix ("start-reply" → start;
//            '-' reads as '_'; "stop"/"start" also read as "down"/"up"). Ties between actions are
//            broken by the words of the action found in the object and detail ("delete
//            Namespace/..." → delete_namespace; "IMMEDIATELY" → stop_immediate).
//   target   the actor's "/suffix", else the longest known target (actor suffixes, plain objects of
//            catalog events) found at a '-'/'/' boundary in the object, else the object's last
//            path component.
//   fault    a fault point of the run's swarm that fired: named in a trace event's fault set
//            (TraceEvent::faults, the points fired in the step that recorded the event).
//
// Known limitations: the mapping is a heuristic (an action the system does not trace at the time
// it happens, e.g. a Gitpod start traced only by its reply, is rendered at the trace time; a
// random fault the system applies without tracing it is missed). So a rendered scenario is never
// trusted: verify_scripted runs it (from its own seed, as `wsim run --scenario` would, through
// its text form) and tries a few variants; the first form that fails with the same invariant is
// then shrunk again: whole groups of events (event_groups), then single events, then fault
// overrides, then single events again. `reproduces` is set only from a checked run.
struct ScriptedOptions {
  std::uint64_t max_runs = 300;                  // Verification + variants + event shrinking.
  std::uint64_t events_max = kDefaultEventsMax;  // Event budget of one run.
  std::ostream* progress = nullptr;
  // Known bugs (ShrinkOptions::known): when set, a variant or a shrunk form is kept only when its
  // run is labelled with the same bug id as `known_label` (the shrunk run's label; "" = NEW), not
  // only the same invariant. Not owned.
  const std::vector<KnownBug>* known = nullptr;
  std::string known_label;
  // The scenario before shrinking (the bundle's), when it differs from render_scripted's
  // `source`: if it is scripted, its own events, fault overrides and phases are the first variant
  // (a corpus script is its own best rendering). Null = `source`. Not owned.
  const proto::Scenario* original = nullptr;
};

struct ScriptedResult {
  proto::Scenario scenario;  // The scripted scenario (the reproducing form, if any).
  bool reproduces = false;   // Checked: the scenario's text, run from its seed, fails the same.
  std::string form;          // Which variant reproduced ("as rendered", "seed 4", ...).
  std::vector<std::string> tried;  // Every variant tried, with what it gave.
  int events_rendered = 0;         // Events rendered from the trace (before shrinking them).
  int faults_rendered = 0;
  int faults_pinned = 0;  // Pinned overrides derived from the shrunk run's trace (§6).
  int events_kept = 0;    // Events of `scenario`.
  std::uint64_t runs = 0;
  Verdict verdict = Verdict::kPass;  // What the final `scenario` gives (checked).
  std::string invariant;
};

// Where an event's target comes from when its trace actor has a "/suffix" and its object names
// another known target ("kubelet/node-1 reject Pod/gitpod/ws-ws1-1": the node or the workspace?).
// The catalog does not say which the action wants, so render_scripted tries both.
enum class TargetFrom {
  kActorFirst,   // The actor's suffix ("node-1").
  kObjectFirst,  // The longest known target the object names ("ws1").
};

// The scripted events of a trace (see above), sorted by time. Events the system's dry run refuses
// are not filtered here (render_scripted does that).
std::vector<proto::ScriptedEvent> scripted_events_of(
    const System& system, const std::vector<TraceEvent>& trace,
    TargetFrom target_from = TargetFrom::kActorFirst);

// Renders the shrunk run `shrunk` of `source` (the bundle's scenario: versions, phases, seed) as a
// scripted_only scenario expecting (verdict, invariant), verifies it and shrinks its events.
// REQUIRES: verdict is kSafety or kLiveness; shrunk.trace was kept.
ScriptedResult render_scripted(const System& system, const proto::Scenario& source,
                               const RunResult& shrunk, Verdict verdict,
                               const std::string& invariant, const ScriptedOptions& options);

// The text of a scripted scenario as a reader wants it (the corpus style): scalars, the system's
// config on one line (version axes and non-default values only), then one line per fault
// override, event and expectation. Parses back to the same run.
std::string scripted_to_text(const proto::Scenario& scenario, const System& system);

// Runs a scenario the way `wsim run --scenario FILE` does: its text is parsed and validated, then
// run from its seed (labelled against `known` when not null). Returns false with `error` when the
// text does not load.
bool run_scenario_text(const std::string& text, RunResult& result, std::string& error,
                       std::uint64_t events_max = kDefaultEventsMax,
                       const std::vector<KnownBug>* known = nullptr);

// `wsim shrink BUNDLE [-o DIR] [--max-runs N]`: shrinks a failure bundle, prints the summary and
// the external events of the shrunk run, and writes the shrunk bundle (scenario + choices.bin +
// trace + shrink.txt + scripted.textproto, the verified readable form) to DIR (default
// BUNDLE-shrunk), atomically, then prints scripted.textproto. Exit code: the verdict's.
struct ShrinkCommand {
  std::string bundle;
  std::string out;
  std::uint64_t max_runs = 2000;
  std::uint64_t events_max = kDefaultEventsMax;
  std::uint64_t scripted_max_runs = 300;  // --scripted-max-runs; 0 = no scripted form.
  // --known DIR: keep the finding's label (ShrinkOptions::known) against this corpus's bugs that
  // may be present on the bundle's versions (corpus_bugs.h applicable_known_bugs). Empty = off.
  std::string known;
  // Applied to the bundle's scenario before the candidates run, so that the shrunk bundle
  // records what they ran (an external run's COMMAND and clock: cli/commands/shrink.cc). Null =
  // the bundle's scenario as it is.
  std::function<void(proto::Scenario&)> prepare_scenario;
};
int cmd_shrink(const ShrinkCommand& command, std::ostream& out, std::ostream& err);

}  // namespace wsim::run
