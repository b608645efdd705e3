// One watch request's stream: the events of a World, filtered by kind, namespace and selector,
// as Kubernetes' watch wire format — one JSON object per line, {"type": ADDED | MODIFIED |
// DELETED | BOOKMARK | ERROR, "object": ...}, sent as HTTP chunks.
//
// A watch without resourceVersion (or "0") starts with an ADDED event per matching object; one
// from resourceVersion N sends the changes after N, or a single ERROR event with a 410 Expired
// Status when N is below the world's history floor. As the API server's watch cache does, each
// change is judged by the object's state before and after it (LoggedEvent::previous): ADDED when
// it enters the selector (or is created), MODIFIED while it stays, DELETED when it leaves (with
// its previous content) or is deleted. With allowWatchBookmarks, a BOOKMARK every
// bookmark_interval_ms and one 2 s before the deadline. Bounded: the stream ends at its
// deadline, when the world closes or the client goes away.
//
// Threading: next() is called by one stream thread of the HTTP server at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <set>
#include <string>

#include "serve/resources.h"
#include "serve/selector.h"
#include "serve/world.h"

namespace wsim::serve {

struct WatchRequest {
  const Resource* resource = nullptr;
  std::string namespace_;
  Selector selector;
  bool from_now = true;  // No resourceVersion (or "0"): synthetic ADDED events first.
  std::uint64_t resource_version = 0;
  bool bookmarks = false;
  std::int64_t duration_ms = 0;  // Wall-clock lifetime of the stream.
  std::int64_t bookmark_interval_ms = 5000;
  std::int64_t epoch_wall_ms = 0;
  bool table = false;  // Accept: as=Table: every object as a one-row meta.k8s.io/v1 Table.
};

class WatchStream {
 public:
  WatchStream(World& world, WatchRequest request);
  ~WatchStream();
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  // Appends the next lines to `out` (possibly none), waiting up to a second for changes.
  // Returns false once the stream has ended (after `out` is written).
  bool next(std::string& out);

 private:
  void start(std::string& out);
  void send(const char* type, const kube::Object& object, std::string& out);
  void schedule_bookmark();
  bool in_scope_before(const LoggedEvent& event) const;

  World& world_;
  WatchRequest request_;
  bool started_ = false;
  bool ended_ = false;
  std::uint64_t after_rv_ = 0;
  std::uint64_t watch_id_ = 0;          // World::open_watch() in lockstep, else 0.
  std::set<kube::ObjectRef> in_scope_;  // Stands in for unknown previous states.
  bool bookmark_due_ = false;           // A bookmark is scheduled at next_bookmark_.
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point next_bookmark_;
};

}  // namespace wsim::serve
