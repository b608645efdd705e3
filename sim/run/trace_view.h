// Reading a trace: the one place that says what a TraceEvent is for the views (explain, the
// timeline, shrink, the report, signatures) and how its text is cut to fit a column.
// Pure functions of their arguments; single-threaded like the rest of sim/run.
//
// Invariants:
//  1. clip() never cuts a UTF-8 sequence in half and never returns more than `width` bytes
//     (the "~" that marks a cut counts as one).
//  2. The kind of an event (scripted marker, violation) is read from TraceEvent::kind, which the
//     recorder set; nothing here matches actor/verb strings to find it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/trace.h"

namespace wsim::run {

// The part of an actor name before the first '/': "user/alice" -> "user".
std::string_view actor_prefix(std::string_view actor);

// The harness's own verdict event (TraceKind::kViolation).
bool is_violation(const TraceEvent& event);
// The driver's marker that a scripted event fires (TraceKind::kScripted); the action follows.
bool is_scripted_marker(const TraceEvent& event);
// True when trace[i] is a scripted marker whose action is recorded right after it: the next
// event has the same time, the same actor prefix, and a verb that is a prefix of the marker's
// action or has it as a prefix ("delete" of "delete_namespace", "start-reply" of "start"). A view
// shows only the action.
bool redundant_scripted(const std::vector<TraceEvent>& trace, std::size_t i);

// A fault point fired in the step that recorded the event (TraceEvent::faults is not empty).
bool fired_fault(const TraceEvent& event);
// A fault or failure worth a reader's eye: a fault point fired (fired_fault), or the event's
// result is the symptom of one a model reports without a fault point of its own — a lost
// request/response, Conflict, Timeout, 5xx, "failed", "gave up", Gone, "refused", a crash, an
// outage or a rejection.
bool is_fault_event(const TraceEvent& event);
// The symptom half of is_fault_event, read from the strings alone (no fault names). Finding
// signatures use it: their corpus of known bugs was calibrated on it, and a label must not move
// because a fault now shows by name (signature.h).
bool is_fault_symptom(const TraceEvent& event);
// "a,b" of the event's fault names, empty when none fired.
std::string fault_names(const TraceEvent& event);

// Text with '\n', '\r' and '\t' replaced by spaces.
std::string one_line(std::string_view text);
// Text with '\n' written as the two characters "\n", '\r' and '\t' as spaces (trace.txt).
std::string one_line_escaped(std::string_view text);
// Text cut to at most `width` bytes (width >= 1), a cut marked "~", UTF-8 sequences kept whole.
std::string clip(std::string_view text, std::size_t width);

// Whether `object` names `name` at word boundaries (the characters around it are not
// letters or digits).
bool names_object(std::string_view object, std::string_view name);

}  // namespace wsim::run
