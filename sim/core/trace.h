// The structured trace of a run: one entry per externally meaningful event (an API request and
// its result, a message, a user action, a fault firing, a verdict), with a running 64-bit hash.
// Same scenario + same choices ⇒ same hash, on any build: the hash covers only integers and
// strings, never addresses or floating point.
//
// The hash (FNV-1a 64, offset 0xcbf29ce484222325, prime 0x100000001b3) mixes, per event and in
// this order: time_ms as 8 little-endian bytes; actor, verb, object, result, detail, each followed
// by a 0xff separator byte; the kind as one byte (its enum value); the number of fault names as
// 8 little-endian bytes, then each name followed by 0xff. (The kind and the fault names joined the
// hash in November 2026: every trace hash recorded before that changed once.)
//
// Single-threaded; one Trace per run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/time.h"

namespace wsim {

// What an event is, decided where it is recorded (never re-derived from its strings).
enum class TraceKind : std::uint8_t {
  kAction = 0,     // An actor's step: an API request and its result, a controller action, ...
  kScripted = 1,   // The driver's marker: a scripted scenario event fires now (its action follows).
  kViolation = 2,  // The harness's verdict: an invariant broke (actor "wsim", verb "violation").
};

// "action", "scripted", "violation".
std::string_view trace_kind_name(TraceKind kind);

struct TraceEvent {
  TraceEvent() = default;
  TraceEvent(TimeMs time_ms_in, std::string actor_in, std::string verb_in, std::string object_in,
             std::string result_in, std::string detail_in = {},
             TraceKind kind_in = TraceKind::kAction)
      : time_ms(time_ms_in),
        actor(std::move(actor_in)),
        verb(std::move(verb_in)),
        object(std::move(object_in)),
        result(std::move(result_in)),
        detail(std::move(detail_in)),
        kind(kind_in) {}

  TimeMs time_ms = 0;
  std::string actor;   // Who acted: "user/alice", "agentk", "apiserver", "kubelet/node-1".
  std::string verb;    // "create", "delete", "poll", "terminate", "fault".
  std::string object;  // "Namespace/gl-rd-ns-1" or "ws-1"; may be empty.
  std::string result;  // "ok", "Conflict", "NotFound", "lost", ...
  std::string detail;  // Free text (diffs, payload summaries); part of the hash.
  TraceKind kind = TraceKind::kAction;
  // The fault points (FaultPoint::name) that fired in the same event-loop step before this event
  // was recorded, in firing order without repeats: the faults this event shows. Empty for most.
  std::vector<std::string> faults;
};

class Trace {
 public:
  // Appends an event and mixes it into the hash.
  void record(TraceEvent event);
  void record(TimeMs time_ms, std::string actor, std::string verb, std::string object,
              std::string result, std::string detail = {});
  // The same event from views: hashed in place, and copied into a TraceEvent only when events
  // are kept (a hunt's runs never build one: docs/performance.md §10). Same hash as record().
  void record(TimeMs time_ms, std::string_view actor, std::string_view verb,
              std::string_view object, std::string_view result, std::string_view detail,
              TraceKind kind, std::vector<std::string> faults);

  // When false (hunting), events are hashed and counted but not stored.
  void set_keep_events(bool keep) { keep_events_ = keep; }
  bool keep_events() const { return keep_events_; }

  std::uint64_t hash() const { return hash_; }
  std::uint64_t count() const { return count_; }
  const std::vector<TraceEvent>& events() const { return events_; }

 private:
  // Mixes one event's fields into the hash, in the order the header comment gives.
  void mix_event(TimeMs time_ms, std::string_view actor, std::string_view verb,
                 std::string_view object, std::string_view result, std::string_view detail,
                 TraceKind kind, const std::vector<std::string>& faults);
  void mix(std::string_view bytes);
  void mix(std::uint64_t value);
  void mix_byte(std::uint8_t value);

  bool keep_events_ = true;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
  std::uint64_t count_ = 0;
  std::vector<TraceEvent> events_;
};

}  // namespace wsim
