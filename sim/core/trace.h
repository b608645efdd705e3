// The structured trace of a run: one entry per externally meaningful event (an API request and
// its result, a message, a user action, a fault firing, a verdict), with a running 64-bit hash.
// Same scenario + same choices ⇒ same hash, on any build (design.md §2): the hash covers only
// integers and strings, never addresses or floating point.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace wsim {

struct TraceEvent {
  TimeMs time_ms = 0;
  std::string actor;   // Who acted: "user/alice", "agentk", "apiserver", "kubelet/node-1".
  std::string verb;    // "create", "delete", "poll", "terminate", "fault".
  std::string object;  // "Namespace/gl-rd-ns-1" or "ws-1"; may be empty.
  std::string result;  // "ok", "Conflict", "NotFound", "lost", ...
  std::string detail;  // Free text (diffs, payload summaries); part of the hash.
};

class Trace {
 public:
  // Appends an event and mixes it into the hash.
  void record(TraceEvent event);
  void record(TimeMs time_ms, std::string actor, std::string verb, std::string object,
              std::string result, std::string detail = {});

  // When false (hunting), events are hashed and counted but not stored.
  void set_keep_events(bool keep) { keep_events_ = keep; }
  bool keep_events() const { return keep_events_; }

  std::uint64_t hash() const { return hash_; }
  std::uint64_t count() const { return count_; }
  const std::vector<TraceEvent>& events() const { return events_; }

 private:
  void mix(std::string_view bytes);
  void mix(std::uint64_t value);

  bool keep_events_ = true;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
  std::uint64_t count_ = 0;
  std::vector<TraceEvent> events_;
};

}  // namespace wsim
