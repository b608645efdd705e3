// The world of a replayed run at one moment, for `wsim replay BUNDLE --serve`: re-executes the
// bundle's choice record (the same run, byte for byte) with a read-only recorder subscribed to
// its ApiServer (run::RunOptions::observe_api), then rebuilds the objects as they were after
// a chosen virtual time or trace event from the recorded changes. The recorder never writes or
// draws choices: the replay's fingerprint is checked against the bundle's.
//
// Threading: single-threaded (runs before the server starts).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "serve/world.h"

namespace wsim::serve {

struct RecordedChange {
  TimeMs at_ms = 0;
  std::uint64_t trace_count = 0;  // Trace events recorded before this change.
  LoggedEvent event;
};

struct ReplayRecording {
  std::vector<RecordedChange> changes;  // Of the run's ApiServer, in order.
  bool has_api_server = false;          // The system has one (run::SystemRun::api_server()).
  bool fingerprint_matches = false;     // The replay reproduced the bundle exactly.
  TimeMs end_ms = 0;
  std::uint64_t trace_events = 0;
  std::string verdict;
};

// Replays the bundle in `bundle_dir`. False with `error` naming the file on a bad bundle.
bool record_replay(const std::string& bundle_dir, ReplayRecording& recording, std::string& error);

// The moment to serve: after every change at or before `at_ms`, or after trace event
// `at_event` (its "i" in trace.jsonl): every change made before trace event at_event + 1 was
// recorded (a scripted action is traced before it acts, a client request after it is applied:
// either way the event's own change is in). Neither = the end of the run.
struct Moment {
  std::optional<TimeMs> at_ms;
  std::optional<std::uint64_t> at_event;
};

// The snapshot World of `recording` at `moment`; `at_ms` is set to the moment's virtual time.
// Keeps up to `history_events` of the changes before it for watches.
std::unique_ptr<World> world_at(const ReplayRecording& recording, const Moment& moment,
                                std::size_t history_events, TimeMs& at_ms);

}  // namespace wsim::serve
