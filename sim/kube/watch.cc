// The watch hub of the fake API server (watch_hub.h): changes, server-side listeners and client
// watches.
//
// Every committed write is one Change with its own resourceVersion. Changes are dispatched in
// resourceVersion order: a write made by a listener while a change is being dispatched is queued
// behind it. Each watch gets each change that concerns it scheduled with a latency drawn from the
// "kube.watch" stream, never earlier than its previous delivery (per-watch order). A bounded
// history lets a watch start from an older resourceVersion; before the window (the shared history
// or its kind's watch-cache window) it gets 410 Gone. A watch ends with 410 (kube.watch.expire,
// expire_watches, a restart) or without (kube.watch.drop: a dropped connection).
#include <algorithm>
#include <string>

#include "sim/core/log.h"
#include "sim/kube/watch_hub.h"

namespace wsim::kube {

namespace {

bool in_scope(const std::string& namespace_, const LabelSelector& selector, const Object& object) {
  WSIM_ASSERT(!object.kind.empty());
  if (!namespace_.empty() && object.meta.namespace_ != namespace_) return false;
  return selector.matches(object.meta.labels);
}

}  // namespace

void WatchHub::set_draws(WatchDraws draws) {
  WSIM_ASSERT(!draws_set_);  // Declared once, by the ApiServer's constructor.
  WSIM_ASSERT_EQ(resource_version_, 0u);
  draws_ = std::move(draws);
  draws_set_ = true;
}

void WatchHub::emit(WatchEventType type, std::shared_ptr<const Object> object,
                    std::shared_ptr<const Object> old) {
  WSIM_ASSERT(draws_set_);
  WSIM_ASSERT(object != nullptr);
  if (type == WatchEventType::kAdded) WSIM_ASSERT(old == nullptr);
  if (type != WatchEventType::kAdded) WSIM_ASSERT(old != nullptr);
  // Every write is the next resourceVersion (paired with the store's write assertion, store.cc
  // commit()).
  WSIM_ASSERT_GT(object->meta.resource_version, resource_version_);
  resource_version_ = object->meta.resource_version;
  // The store just changed (commit()/erase()): the inside-write listeners see it now, in write
  // order.
  listeners_.notify_inside_write(WatchEvent{type, *object, old.get()});
  Change change{object->meta.resource_version, type, std::move(object), std::move(old)};
  record_history(change);
  undispatched_.push_back(std::move(change));
  if (dispatching_) return;  // A listener wrote: delivered after the current change.
  dispatching_ = true;
  while (!undispatched_.empty()) {
    Change next = std::move(undispatched_.front());
    undispatched_.pop_front();
    dispatch(next);
  }
  dispatching_ = false;
  WSIM_ASSERT_EQ(last_dispatched_rv_, resource_version_);  // Nothing left behind.
}

void WatchHub::record_history(const Change& change) {
  // Watch history ascending (paired with the store's write assertion, store.cc commit()).
  WSIM_ASSERT_EQ(change.resource_version, resource_version_);
  if (!history_.empty()) WSIM_ASSERT_LT(history_.back().resource_version, change.resource_version);
  WSIM_ASSERT_LT(history_floor_rv_, change.resource_version);
  history_.push_back(change);
  while (history_.size() > options_.watch_history_events && !history_.empty()) {
    history_floor_rv_ = history_.front().resource_version;
    history_.pop_front();
  }
  const std::size_t history_cap = std::max<std::size_t>(options_.watch_history_events, 1);
  WSIM_ASSERT_LE(history_.size(), history_cap);  // (std::max of a temporary would dangle here.)
}

void WatchHub::dispatch(const Change& change) {
  // Dispatched in strictly ascending resourceVersion: a listener's write waits its turn.
  WSIM_ASSERT_GT(change.resource_version, last_dispatched_rv_);
  WSIM_ASSERT_LE(change.resource_version, resource_version_);
  last_dispatched_rv_ = change.resource_version;
  for (auto& [id, watcher] : watchers_) {
    if (!watcher.closed) offer(watcher, change, /*may_expire=*/true);
  }
  if (!listeners_.has_in_order()) return;
  // A view of the committed object: `change` holds it for the whole dispatch.
  listeners_.notify_in_order(WatchEvent{change.type, *change.object, change.old.get()});
}

void WatchHub::offer(Watcher& watcher, const Change& change, bool may_expire) {
  WSIM_ASSERT(!watcher.closed);
  WSIM_ASSERT(change.object != nullptr);
  if (!watcher.kind.empty() && watcher.kind != change.object->kind) return;
  WatchEventType type = change.type;
  if (change.type == WatchEventType::kModified) {
    const bool now_in = in_scope(watcher.namespace_, watcher.selector, *change.object);
    const bool was_in = change.old && in_scope(watcher.namespace_, watcher.selector, *change.old);
    if (!now_in && !was_in) return;
    if (!was_in) type = WatchEventType::kAdded;
    if (!now_in) type = WatchEventType::kDeleted;
  } else if (!in_scope(watcher.namespace_, watcher.selector, *change.object)) {
    return;
  }
  if (may_expire && fault_ends(watcher, change)) return;
  const TimeMs now = sim_.now_ms();
  const TimeMs due = std::max(
      now + draws_.latency.range(options_.watch_min_latency_ms, options_.watch_max_latency_ms),
      watcher.last_due_ms);
  WSIM_ASSERT_GE(due, now);
  watcher.last_due_ms = due;
  // Each watch is offered each change once, in ascending resourceVersion (replay, then live).
  WSIM_ASSERT_GT(change.resource_version, watcher.last_offered_rv);
  watcher.last_offered_rv = change.resource_version;
  WatchDelivery delivery{false, type, change.object, change.resource_version};
  const std::uint64_t id = watcher.id;
  sim_.loop().schedule(due - now, [this, id, delivery]() { deliver(id, delivery); });
}

bool WatchHub::fault_ends(Watcher& watcher, const Change& change) {
  WSIM_ASSERT(!watcher.closed);
  if (sim_.faults().fires(draws_.expire, draws_.faults)) {
    sim_.record(watcher.identity, "watch", change.object->kind, "Gone",
                std::string("fault ") + kFaultWatchExpire);
    close_gone(watcher);
    WSIM_ASSERT(watcher.closed);
    return true;
  }
  if (sim_.faults().fires(draws_.drop, draws_.drops)) {
    sim_.record(watcher.identity, "watch", change.object->kind, "dropped",
                std::string("fault ") + kFaultWatchDrop);
    close_dropped(watcher);
    WSIM_ASSERT(watcher.closed);
    return true;
  }
  return false;
}

void WatchHub::close_gone(Watcher& watcher) {
  WSIM_ASSERT_EQ(watchers_.count(watcher.id), 1u);  // Only a registered watch closes.
  if (watcher.closed) return;
  WSIM_LOG_DEBUG("apiserver: watch " << watcher.id << " of " << watcher.identity << " ("
                                     << watcher.kind << ") ends with 410 Gone at rv "
                                     << resource_version_);
  WatchDelivery delivery;
  delivery.gone = true;
  end_watch(watcher, delivery);
}

void WatchHub::close_dropped(Watcher& watcher) {
  WSIM_ASSERT_EQ(watchers_.count(watcher.id), 1u);
  WatchDelivery delivery;
  delivery.dropped = true;
  end_watch(watcher, delivery);
}

void WatchHub::end_watch(Watcher& watcher, WatchDelivery delivery) {
  WSIM_ASSERT_NE(watcher.id, 0u);
  WSIM_ASSERT_NE(delivery.gone, delivery.dropped);  // Exactly one way to end.
  if (watcher.closed) return;
  watcher.closed = true;
  const TimeMs now = sim_.now_ms();
  const TimeMs due = std::max(now, watcher.last_due_ms);
  WSIM_ASSERT_GE(due, now);
  watcher.last_due_ms = due;
  delivery.resource_version = resource_version_;
  const std::uint64_t id = watcher.id;
  sim_.loop().schedule(due - now, [this, id, delivery]() { deliver(id, delivery); });
}

void WatchHub::deliver(std::uint64_t watcher_id, const WatchDelivery& delivery) {
  auto it = watchers_.find(watcher_id);
  if (it == watchers_.end()) return;
  // Delivered in the order offered: strictly ascending resourceVersion (paired with offer()).
  if (!delivery.gone && !delivery.dropped) {
    WSIM_ASSERT(delivery.object != nullptr);
    WSIM_ASSERT_GT(delivery.resource_version, it->second.last_delivered_rv);
    WSIM_ASSERT_LE(delivery.resource_version, it->second.last_offered_rv);
    it->second.last_delivered_rv = delivery.resource_version;
  } else {
    // The end of a watch comes after every event offered to it.
    WSIM_ASSERT(it->second.closed);
    WSIM_ASSERT_GE(delivery.resource_version, it->second.last_offered_rv);
  }
  // Copy the sink: it may close (erase) this very watcher.
  WatchSink sink = it->second.sink;
  const bool keep = sink(delivery);
  if (!keep || delivery.gone || delivery.dropped) close_watch(watcher_id);
}

std::uint64_t WatchHub::watch_floor(const std::string& kind) const {
  WSIM_ASSERT_LE(history_floor_rv_, resource_version_);
  const std::size_t window = options_.watch_cache_events_per_kind;
  // Only in runs that draw kube.watch.drop (the per-run decision, healed or not): a run without
  // it replays as before the window existed (a 429'd re-watch can start from an old version too).
  const bool drawn = sim_.faults().point(draws_.drop).enabled;
  if (kind.empty() || window == 0 || !drawn) return history_floor_rv_;
  std::size_t newer = 0;  // Changes of `kind` newer than `it`.
  for (auto it = history_.rbegin(); it != history_.rend(); ++it) {
    if (it->object->kind != kind) continue;
    if (newer == window) return std::max(history_floor_rv_, it->resource_version);
    ++newer;
  }
  WSIM_ASSERT_LE(newer, window);
  return history_floor_rv_;
}

Response WatchHub::start_watch(const std::string& identity, Request& request) {
  WSIM_ASSERT(request.verb == Verb::kWatch);
  WSIM_ASSERT(request.watch_sink != nullptr);
  Response response;
  const std::uint64_t from = request.watch_from_rv;
  // watch_cache.go getAllEventsSinceLocked: "too old resource version" (410) when the window no
  // longer holds every change after `from`.
  const std::uint64_t floor = watch_floor(request.ref.kind);
  if (from < floor) {
    response.status =
        Status::Error(Code::kGone, "too old resource version: " + std::to_string(from) + " (" +
                                       std::to_string(floor + 1) + ")");
    return response;
  }
  WSIM_ASSERT_LE(from, resource_version_);
  const std::uint64_t id = next_watcher_id_++;
  WSIM_ASSERT_EQ(watchers_.count(id), 0u);
  Watcher& watcher = watchers_[id];
  watcher.id = id;
  watcher.identity = identity;
  watcher.kind = request.ref.kind;
  watcher.namespace_ = request.ref.namespace_;
  watcher.selector = request.selector;
  watcher.sink = std::move(request.watch_sink);
  watcher.last_due_ms = sim_.now_ms();
  // Replay what happened since `from`: what the window still holds, above the floor.
  const std::uint64_t replay_after = std::max(from, floor);
  auto it = history_.begin();
  while (it != history_.end() && it->resource_version <= replay_after) ++it;
  for (; it != history_.end() && !watcher.closed; ++it) offer(watcher, *it, /*may_expire=*/false);
  // The replay offered nothing past the present.
  WSIM_ASSERT_LE(watcher.last_offered_rv, resource_version_);
  response.watcher_id = id;
  response.resource_version = resource_version_;
  return response;
}

void WatchHub::close_watch(std::uint64_t watcher_id) {
  WSIM_ASSERT_NE(watcher_id, 0u);
  WSIM_ASSERT_LT(watcher_id, next_watcher_id_);  // Only ids this hub handed out.
  watchers_.erase(watcher_id);
}

void WatchHub::expire_all(const std::string& identity) {
  for (auto& [id, watcher] : watchers_) {
    if (identity.empty() || watcher.identity == identity) close_gone(watcher);
    if (identity.empty()) WSIM_ASSERT(watcher.closed);
  }
}

void WatchHub::drop_all(const std::string& identity) {
  for (auto& [id, watcher] : watchers_) {
    if (identity.empty() || watcher.identity == identity) close_dropped(watcher);
    if (identity.empty()) WSIM_ASSERT(watcher.closed);
  }
}

std::size_t WatchHub::open_count() const {
  std::size_t open = 0;
  for (const auto& [id, watcher] : watchers_) {
    if (!watcher.closed) ++open;
  }
  WSIM_ASSERT_LE(open, watchers_.size());
  return open;
}

}  // namespace wsim::kube
