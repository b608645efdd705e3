// Finding signatures (issue #12 item 1; docs/signatures.md): a name for the bug behind a
// violation, not for the seed that hit it, so a hunt can tell a known bug of the corpus from a
// NEW one.
//
// A signature is computed from a run's trace (RunOptions::keep_trace) and one violation:
//   invariant  the violated invariant id ("gitpod.S5");
//   culprit    for a safety violation, the event after which it was seen (the harness's own
//              events skipped), normalised (below): "ws-manager create Pod ok"; empty for
//              liveness (judged at the end, no culprit);
//   path       the mechanism on the failing object's causal path: every fault event
//              (timeline_html.h is_fault_event) but Conflicts (routine optimistic concurrency,
//              there or not by seed), and every external action (user, kubectl, admin: the user
//              lane; as "actor verb", without its result), that touches the object (explain.h
//              names_object) or names no object (a lost response concerns every workspace),
//              normalised, sorted and deduplicated.
// Normalising an event keeps what names the mechanism and drops what names the seed: the actor
// up to its first '/' ("ws-daemon/node-2" → "ws-daemon"), the verb, the object's kind when it is
// a Kubernetes object ("Pod/gitpod/ws-ws0-1" → "Pod"; a bare workspace name → nothing) and the
// result's class (ok; NotFound, Gone, AlreadyExists, Forbidden, Conflict; any other failure —
// lost, timeout, throttled, 5xx — is "fail").
//
// Matching (match_known) is nearest-known with a floor: a finding carries known bug K's
// signature when the invariants are equal, the culprits are equal (when both have one), and the
// finding's path covers at least kPathCoverageNum/kPathCoverageDen of K's path; among several,
// the highest coverage wins, then the larger shared path, then the earlier bug (corpus order).
// A finding that matches no known bug is NEW. Nothing here knows a system or a bug: the known
// signatures come from running the corpus's own scripts (corpus_bugs.h known_bugs).
//
// Pure functions over the trace; single-threaded; deterministic (sorted vectors only).
// Not modelled: causality proper (events are related to the object by name, as `wsim explain`
// does), and probes (they count per run, not per object, so they would name the seed's swarm).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/trace.h"
#include "sim/run/system.h"

namespace wsim::run {

struct Signature {
  std::string invariant;
  std::string culprit;            // Normalised culprit event; empty for liveness.
  std::vector<std::string> path;  // Normalised path features, sorted, unique.

  // One line: "gitpod.S5 @ ws-manager create Pod ok | kubelet reject Pod error; user stop".
  std::string text() const;
  bool operator==(const Signature& other) const = default;
};

// A known bug: a corpus expectation (corpus_bugs.h) and the signature its script produces.
struct KnownBug {
  std::string name;  // "FILE#N" as `wsim hunt --bug` takes it (the file path and the index).
  Signature signature;
};

// The normalised form of one trace event ("ws-daemon backup ok", "api-client patch Workspace
// error"): see the file comment.
std::string normalize_event(const TraceEvent& event);

// The actors whose events count as external actions of `system` (user, kubectl, admin and the
// actors of its scripted actions).
std::set<std::string, std::less<>> external_actors_of(const System& system);

// The signature of `violation`, seen in `trace` (the events recorded so far; the run may go on).
// REQUIRES: culprit, when set, indexes `trace`.
Signature compute_signature(const std::set<std::string, std::less<>>& external_actors,
                            const std::vector<TraceEvent>& trace,
                            std::optional<std::size_t> culprit, const Violation& violation);

inline constexpr std::size_t kPathCoverageNum = 2;
inline constexpr std::size_t kPathCoverageDen = 3;  // Measured: docs/signatures.md.

// The known bug whose signature `finding` carries (see the file comment), or null: NEW.
// The returned pointer points into `known`.
const KnownBug* match_known(const Signature& finding, const std::vector<KnownBug>& known);

// "known: FILE#N" or "NEW".
std::string known_label(const KnownBug* known);

}  // namespace wsim::run
