// World: what `wsim serve` serves — either a live sim/kube ApiServer (with its cluster and
// event loop), or a read-only snapshot of a replayed run at one moment. The HTTP layer
// (server.h) runs on cpp-httplib's worker threads; World serialises every access to sim/kube
// behind one mutex, so the simulation itself stays single-threaded, and keeps its own bounded
// log of changes for watches (410 Gone below its floor).
//
// Invariants:
//  1. Every call into sim/kube (reads, writes, advance) holds mutex_.
//  2. history_ is in strictly increasing resourceVersion order; floor_rv_ is the
//     resourceVersion of the last change dropped from it (a watch from below it is Gone).
//  3. A snapshot world never changes: writes answer kForbidden and its history ends at its
//     resourceVersion.
//
// Threading: every public method is safe from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/object.h"

namespace wsim::serve {

struct LoggedEvent {
  std::uint64_t resource_version = 0;
  kube::WatchEventType type = kube::WatchEventType::kAdded;
  kube::Object object;  // The new state; for kDeleted the last one.
};

// What wait_events() hands a watch.
struct WatchBatch {
  bool gone = false;    // after_rv is below the history floor: the watch must end with 410.
  bool closed = false;  // The world shuts down: end the watch.
  std::vector<LoggedEvent> events;     // After after_rv, matching kind and namespace.
  std::uint64_t resource_version = 0;  // The world's current resourceVersion (bookmarks).
};

// A read-modify-write of one object (patches): turns the current object into the new one, or
// returns an error status.
using Mutation = std::function<kube::Status(kube::Object& object)>;

class World {
 public:
  // Live: serves `sim`'s `api` with writes through its server_* methods (actor = the request's
  // user agent); keeps the last `history_events` changes for watches.
  World(Sim& sim, kube::ApiServer& api, std::size_t history_events);
  // Snapshot: `objects` as they were at `resource_version`; `history` are the changes before
  // it (oldest first) a watch may start from, `floor_rv` the resourceVersion below them.
  World(std::map<kube::ObjectRef, kube::Object> objects, std::deque<LoggedEvent> history,
        std::uint64_t resource_version, std::uint64_t floor_rv, TimeMs at_ms);
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  bool read_only() const { return api_ == nullptr; }
  std::uint64_t resource_version();

  kube::Result<kube::Object> get(const kube::ObjectRef& ref);
  // Sorted by namespace then name; empty namespace = all. Sets `resource_version` to the
  // world's resourceVersion the list was read at.
  std::vector<kube::Object> list(const std::string& kind, const std::string& namespace_,
                                 std::uint64_t& resource_version);

  kube::Result<kube::Object> create(kube::Object object, const std::string& actor);
  kube::Result<kube::Object> update(kube::Object object, kube::Subresource subresource,
                                    const std::string& actor);
  kube::Result<kube::Object> modify(const kube::ObjectRef& ref, const Mutation& mutation,
                                    kube::Subresource subresource, const std::string& actor);
  kube::Status remove(const kube::ObjectRef& ref, const kube::DeleteOptions& options,
                      const std::string& actor);
  kube::Result<kube::Object> apply(kube::Object object, const std::string& field_manager,
                                   const std::string& actor);

  // Waits up to `wait_ms` of wall time for changes after `after_rv` of `kind` in `namespace_`
  // (empty = all), and returns them (possibly none: then a bookmark may be sent).
  WatchBatch wait_events(const std::string& kind, const std::string& namespace_,
                         std::uint64_t after_rv, std::int64_t wait_ms);

  // Live only: runs the event loop `step_ms` of virtual time forward (controllers, kubelets).
  void advance(DurationMs step_ms);
  // Virtual now (live) or the snapshot's moment; for timestamps.
  TimeMs now_ms();

  // Wakes every waiting watch and makes later waits return `closed`.
  void close();

 private:
  kube::Status refuse_write() const;
  void record(const kube::WatchEvent& event);  // Listener: runs with mutex_ held.

  std::mutex mutex_;
  std::condition_variable changed_;
  Sim* sim_ = nullptr;
  kube::ApiServer* api_ = nullptr;
  std::map<kube::ObjectRef, kube::Object> snapshot_;
  std::uint64_t snapshot_rv_ = 0;
  TimeMs snapshot_ms_ = 0;
  std::deque<LoggedEvent> history_;
  std::size_t history_max_ = 0;
  std::uint64_t floor_rv_ = 0;
  bool closed_ = false;
};

}  // namespace wsim::serve
