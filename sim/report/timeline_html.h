// timeline.html of a failure bundle (docs/architecture.md §8): ONE self-contained page (inline CSS,
// inline SVG, a few lines of inline JS; nothing fetched) with a sequence diagram of the run.
//
//   lanes     user (user, kubectl, admin) · control plane (Rails / ws-manager) · agent (agentk) ·
//             API server · kube controllers · kubelet · ws-daemon · storage · other · wsim
//             (actors are mapped to lanes by name prefix; unknown actors go to "other")
//   marks     one per event on its actor's lane; faults red, scripted events hollow, the culprit
//             and the violation on highlighted rows with "<-- violates <id>"
//   arrows    where an event is clearly a message between components: client → API server for
//             API requests (get, create, apply, patch, delete, ...), API server → client for
//             watch notifications, agent → Rails for reconcile polls, user → control plane for
//             user actions and back for replies, ws-daemon → storage for backups
//   bands     per workspace, the desired state derived from user actions (create/start →
//             running, stop → stopped, terminate → terminated); the trace has no actual-state
//             events, so the final state (SystemRun::describe_state) is printed below instead
//   gaps      a marker where no event happened for more than kGapMs of virtual time
//   repeats   runs of >= 3 identical consecutive events (actor, verb, object, result) are one row
//   story     a run with a violation on an object opens on its story: one open section at the
//             top with the lanes of that object's events and the events that touched it
//             (explain.h key_events: external actions, faults, decisions about it), the
//             culprit, the violation and the first culprit `wsim explain` names
//             (first_disturbing_event), marked "first culprit"; at most kStoryRowsMax rows
//   sections  rows come in sections of kSectionRows; with a story all of them start folded
//             (one click away), otherwise the first, last and marked ones are open
//   cap       at most kRowsMax rows are drawn: the first and last rows, the marked rows, then
//             external actions and faults; the rest are elided with a note saying how many
//
// Deterministic: the same run renders byte-identical HTML.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sim/core/time.h"
#include "sim/core/trace.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/driver.h"
#include "sim/run/lanes.h"
#include "sim/run/system.h"
#include "sim/run/trace_view.h"

namespace wsim::run {

inline constexpr DurationMs kTimelineGapMs = 5 * 60 * 1000;
inline constexpr std::size_t kTimelineSectionRows = 250;
inline constexpr std::size_t kTimelineRowsMax = 3000;
inline constexpr std::size_t kTimelineStoryRowsMax = 120;

// The whole page. `result` must have been run with keep_trace.
std::string render_timeline_html(const System& system, const proto::Scenario& scenario,
                                 const RunResult& result);

}  // namespace wsim::run
