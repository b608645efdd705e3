// WatchHub: the changes of the fake API server on their way out — the bounded history, the
// server-side listeners (listeners.h) and the client watches. sim/kube internal: the ApiServer
// (api_server_impl.h) owns one; the store (object_store.h) emits every committed write into it.
//
// Single-threaded, runs on the event loop.
//
// Invariants (asserted):
//  1. Changes arrive (emit) with strictly increasing resourceVersions, each the store's current
//     one, and are dispatched in that order: a write made by a listener while a change is being
//     dispatched is queued behind it.
//  2. Each watch is offered each change that concerns it once, in ascending resourceVersion
//     (replay, then live), and delivered in that order, never earlier than its previous delivery.
//  3. The history holds at most options.watch_history_events changes, ascending; a watch from at
//     or below its floor (or its kind's watch-cache window) is answered 410 Gone.
//  4. A closed watch gets nothing scheduled after its end (410 or dropped).
//
// Not modelled: bookmarks, watch-list streaming, the 75 s growth of the watch cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "sim/core/fault.h"
#include "sim/core/sim.h"
#include "sim/kube/api_request.h"
#include "sim/kube/listeners.h"

namespace wsim::kube {

// The choice streams and fault points of the watches, declared by the ApiServer in its fixed
// order (api_server.cc).
struct WatchDraws {
  ChoiceStream latency;  // "kube.watch"
  ChoiceStream faults;   // "kube.watch.faults"
  FaultId expire = 0;    // kube.watch.expire
  ChoiceStream drops;    // "kube.watch.drop": kube.watch.drop's own draws.
  FaultId drop = 0;      // kube.watch.drop
};

class WatchHub {
 public:
  WatchHub(Sim& sim, const ApiServerOptions& options) : sim_(sim), options_(options) {}
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;
  // REQUIRES: called once, before the first change (the ApiServer's constructor).
  void set_draws(WatchDraws draws);

  // One committed write (the store's commit/erase): tells the inside-write listeners at once,
  // records it in the history, then dispatches it (watches, in-order listeners) unless a
  // dispatch is already running. REQUIRES: object's resourceVersion is the next one.
  void emit(WatchEventType type, std::shared_ptr<const Object> object,
            std::shared_ptr<const Object> old);
  void subscribe(const std::string& kind, ApiServer::Listener listener, ListenAt at) {
    WSIM_ASSERT(listener != nullptr);
    const std::size_t before = listeners_.size();
    listeners_.add(kind, std::move(listener), at);
    WSIM_ASSERT_EQ(listeners_.size(), before + 1);
  }

  // Registers a watch from request.watch_from_rv (replaying the history), or answers Gone.
  Response start_watch(const std::string& identity, Request& request);
  void close_watch(std::uint64_t watcher_id);
  // Ends every open watch of `identity` (empty = all) with 410 Gone / without 410, after the
  // events already on their way.
  void expire_all(const std::string& identity);
  void drop_all(const std::string& identity);
  std::size_t open_count() const;
  // The resourceVersion of the last change emitted (the store's current one).
  std::uint64_t resource_version() const { return resource_version_; }

 private:
  struct Watcher {
    std::uint64_t id = 0;
    std::string identity;
    std::string kind;
    std::string namespace_;
    LabelSelector selector;
    WatchSink sink;
    TimeMs last_due_ms = 0;  // Deliveries are never earlier than the previous one (order).
    // The resourceVersion of the last change offered (scheduled) and delivered: both strictly
    // increase (asserted in offer() and deliver(), paired with the store's write assertion).
    std::uint64_t last_offered_rv = 0;
    std::uint64_t last_delivered_rv = 0;
    bool closed = false;  // No further events are scheduled (a 410 may still be in flight).
  };

  void record_history(const Change& change);
  void dispatch(const Change& change);
  // Schedules `change` to `watcher` if it concerns it (label-selector transitions become
  // ADDED / DELETED); `may_expire` evaluates the kube.watch.expire and kube.watch.drop faults.
  void offer(Watcher& watcher, const Change& change, bool may_expire);
  // The fault that ends `watcher` instead of delivering `change`, if one fires; true when it did.
  bool fault_ends(Watcher& watcher, const Change& change);
  void close_gone(Watcher& watcher);
  // Ends `watcher` without 410 (kube.watch.drop), after the events already on their way.
  void close_dropped(Watcher& watcher);
  // Both ends: marks `watcher` closed and delivers `delivery` (its resource_version set to the
  // current one) after every event already offered to it. No-op when already closed.
  void end_watch(Watcher& watcher, WatchDelivery delivery);
  // The resourceVersion at or below which a watch of `kind` can no longer be served: the shared
  // history's floor, or the newest change of `kind` beyond its watch-cache window, the higher.
  std::uint64_t watch_floor(const std::string& kind) const;
  void deliver(std::uint64_t watcher_id, const WatchDelivery& delivery);

  Sim& sim_;
  const ApiServerOptions& options_;
  WatchDraws draws_;
  bool draws_set_ = false;
  std::uint64_t resource_version_ = 0;
  std::deque<Change> history_;
  std::uint64_t history_floor_rv_ = 0;  // Changes with rv <= this are no longer in history.
  std::deque<Change> undispatched_;
  std::uint64_t last_dispatched_rv_ = 0;  // Changes are dispatched in strictly ascending rv.
  bool dispatching_ = false;
  Listeners listeners_;
  std::map<std::uint64_t, Watcher> watchers_;
  std::uint64_t next_watcher_id_ = 1;
};

}  // namespace wsim::kube
