// Changes, server-side listeners and client watches of the fake API server.
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
#include "sim/kube/api_server_impl.h"

namespace wsim::kube {

namespace {

bool in_scope(const Watcher& watcher, const Object& object) {
  WSIM_ASSERT(!object.kind.empty());
  if (!watcher.namespace_.empty() && object.meta.namespace_ != watcher.namespace_) return false;
  return watcher.selector.matches(object.meta.labels);
}

}  // namespace

void ApiServer::Impl::emit(WatchEventType type, std::shared_ptr<const Object> object,
                           std::shared_ptr<const Object> old) {
  WSIM_ASSERT(object != nullptr);
  if (type == WatchEventType::kAdded) WSIM_ASSERT(old == nullptr);
  if (type != WatchEventType::kAdded) WSIM_ASSERT(old != nullptr);
  // The store just changed (commit()/erase()): its observers see it now, in write order.
  for (const auto& [kind, observer] : store_observers) {
    if (kind != object->kind) continue;
    observer(type == WatchEventType::kAdded ? nullptr : old.get(),
             type == WatchEventType::kDeleted ? nullptr : object.get());
  }
  for (const ChangeObserver& observer : change_observers) observer(type, *object, old.get());
  Change change{object->meta.resource_version, type, std::move(object), std::move(old)};
  // Watch history ascending (paired with the store's write assertion, store.cc commit()).
  WSIM_ASSERT_EQ(change.resource_version, resource_version);
  if (!history.empty()) WSIM_ASSERT_LT(history.back().resource_version, change.resource_version);
  WSIM_ASSERT_LT(history_floor_rv, change.resource_version);
  history.push_back(change);
  while (history.size() > options.watch_history_events && !history.empty()) {
    history_floor_rv = history.front().resource_version;
    history.pop_front();
  }
  const std::size_t history_cap = std::max<std::size_t>(options.watch_history_events, 1);
  WSIM_ASSERT_LE(history.size(), history_cap);  // (std::max of a temporary would dangle here.)
  undispatched.push_back(std::move(change));
  if (dispatching) return;  // A listener wrote: delivered after the current change.
  dispatching = true;
  while (!undispatched.empty()) {
    Change next = std::move(undispatched.front());
    undispatched.pop_front();
    dispatch(next);
  }
  dispatching = false;
}

void ApiServer::Impl::dispatch(const Change& change) {
  // Dispatched in strictly ascending resourceVersion: a listener's write waits its turn.
  WSIM_ASSERT_GT(change.resource_version, last_dispatched_rv);
  last_dispatched_rv = change.resource_version;
  for (auto& [id, watcher] : watchers) {
    if (!watcher.closed) offer(watcher, change, /*may_expire=*/true);
  }
  if (listeners.empty()) return;
  // A view of the committed object: `change` holds it for the whole dispatch.
  const WatchEvent event{change.type, *change.object};
  // Index loop: a listener may subscribe another listener.
  for (std::size_t i = 0; i < listeners.size(); ++i) {
    if (!listeners[i].first.empty() && listeners[i].first != change.object->kind) continue;
    std::shared_ptr<const Listener> listener = listeners[i].second;  // The vector may grow.
    (*listener)(event);
  }
}

void ApiServer::Impl::offer(Watcher& watcher, const Change& change, bool may_expire) {
  WSIM_ASSERT(!watcher.closed);
  WSIM_ASSERT(change.object != nullptr);
  if (!watcher.kind.empty() && watcher.kind != change.object->kind) return;
  WatchEventType type = change.type;
  if (change.type == WatchEventType::kModified) {
    const bool now_in = in_scope(watcher, *change.object);
    const bool was_in = change.old && in_scope(watcher, *change.old);
    if (!now_in && !was_in) return;
    if (!was_in) type = WatchEventType::kAdded;
    if (!now_in) type = WatchEventType::kDeleted;
  } else if (!in_scope(watcher, *change.object)) {
    return;
  }
  if (may_expire && sim.faults().fires(fault_watch_expire, watch_faults)) {
    sim.record(watcher.identity, "watch", change.object->kind, "Gone",
               std::string("fault ") + kFaultWatchExpire);
    close_gone(watcher);
    return;
  }
  if (may_expire && sim.faults().fires(fault_watch_drop, watch_drops)) {
    sim.record(watcher.identity, "watch", change.object->kind, "dropped",
               std::string("fault ") + kFaultWatchDrop);
    close_dropped(watcher);
    return;
  }
  const TimeMs now = sim.now_ms();
  const TimeMs due = std::max(
      now + watch_latency.range(options.watch_min_latency_ms, options.watch_max_latency_ms),
      watcher.last_due_ms);
  WSIM_ASSERT_GE(due, now);
  watcher.last_due_ms = due;
  // Each watch is offered each change once, in ascending resourceVersion (replay, then live).
  WSIM_ASSERT_GT(change.resource_version, watcher.last_offered_rv);
  watcher.last_offered_rv = change.resource_version;
  WatchDelivery delivery{false, type, change.object, change.resource_version};
  const std::uint64_t id = watcher.id;
  sim.loop().schedule(due - now, [this, id, delivery]() { deliver(id, delivery); });
}

void ApiServer::Impl::close_gone(Watcher& watcher) {
  WSIM_ASSERT_EQ(watchers.count(watcher.id), 1u);  // Only a registered watch closes.
  if (watcher.closed) return;
  WSIM_LOG_DEBUG("apiserver: watch " << watcher.id << " of " << watcher.identity << " ("
                                     << watcher.kind << ") ends with 410 Gone at rv "
                                     << resource_version);
  WatchDelivery delivery;
  delivery.gone = true;
  end_watch(watcher, delivery);
}

void ApiServer::Impl::close_dropped(Watcher& watcher) {
  WSIM_ASSERT_EQ(watchers.count(watcher.id), 1u);
  WatchDelivery delivery;
  delivery.dropped = true;
  end_watch(watcher, delivery);
}

void ApiServer::Impl::end_watch(Watcher& watcher, WatchDelivery delivery) {
  WSIM_ASSERT_NE(watcher.id, 0u);
  if (watcher.closed) return;
  watcher.closed = true;
  const TimeMs now = sim.now_ms();
  const TimeMs due = std::max(now, watcher.last_due_ms);
  WSIM_ASSERT_GE(due, now);
  watcher.last_due_ms = due;
  delivery.resource_version = resource_version;
  const std::uint64_t id = watcher.id;
  sim.loop().schedule(due - now, [this, id, delivery]() { deliver(id, delivery); });
}

void ApiServer::Impl::deliver(std::uint64_t watcher_id, const WatchDelivery& delivery) {
  auto it = watchers.find(watcher_id);
  if (it == watchers.end()) return;
  // Delivered in the order offered: strictly ascending resourceVersion (paired with offer()).
  if (!delivery.gone && !delivery.dropped) {
    WSIM_ASSERT(delivery.object != nullptr);
    WSIM_ASSERT_GT(delivery.resource_version, it->second.last_delivered_rv);
    WSIM_ASSERT_LE(delivery.resource_version, it->second.last_offered_rv);
    it->second.last_delivered_rv = delivery.resource_version;
  }
  // Copy the sink: it may close (erase) this very watcher.
  WatchSink sink = it->second.sink;
  const bool keep = sink(delivery);
  if (!keep || delivery.gone || delivery.dropped) close_watch(watcher_id);
}

std::uint64_t ApiServer::Impl::watch_floor(const std::string& kind) const {
  WSIM_ASSERT_LE(history_floor_rv, resource_version);
  const std::size_t window = options.watch_cache_events_per_kind;
  // Only in runs that draw kube.watch.drop (the per-run decision, healed or not): a run without
  // it replays as before the window existed (a 429'd re-watch can start from an old version too).
  const bool drawn = sim.faults().point(fault_watch_drop).enabled;
  if (kind.empty() || window == 0 || !drawn) return history_floor_rv;
  std::size_t newer = 0;  // Changes of `kind` newer than `it`.
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (it->object->kind != kind) continue;
    if (newer == window) return std::max(history_floor_rv, it->resource_version);
    ++newer;
  }
  return history_floor_rv;
}

Response ApiServer::Impl::start_watch(const std::string& identity, Request& request) {
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
  WSIM_ASSERT_LE(from, resource_version);
  const std::uint64_t id = next_watcher_id++;
  WSIM_ASSERT_EQ(watchers.count(id), 0u);
  Watcher& watcher = watchers[id];
  watcher.id = id;
  watcher.identity = identity;
  watcher.kind = request.ref.kind;
  watcher.namespace_ = request.ref.namespace_;
  watcher.selector = request.selector;
  watcher.sink = std::move(request.watch_sink);
  watcher.last_due_ms = sim.now_ms();
  // Replay what happened since `from`: what the window still holds, above the floor.
  const std::uint64_t replay_after = std::max(from, floor);
  auto it = history.begin();
  while (it != history.end() && it->resource_version <= replay_after) ++it;
  for (; it != history.end() && !watcher.closed; ++it) offer(watcher, *it, /*may_expire=*/false);
  // The replay offered nothing past the present.
  WSIM_ASSERT_LE(watcher.last_offered_rv, resource_version);
  response.watcher_id = id;
  response.resource_version = resource_version;
  return response;
}

void ApiServer::Impl::close_watch(std::uint64_t watcher_id) {
  WSIM_ASSERT_NE(watcher_id, 0u);
  watchers.erase(watcher_id);
}

void ApiServer::subscribe(const std::string& kind, Listener listener) {
  WSIM_ASSERT(listener != nullptr);
  impl_->listeners.emplace_back(kind, std::make_shared<const Listener>(std::move(listener)));
}

void ApiServer::observe_store(const std::string& kind, StoreObserver observer) {
  WSIM_ASSERT(!kind.empty());
  WSIM_ASSERT(observer != nullptr);
  impl_->store_observers.emplace_back(kind, std::move(observer));
}

void ApiServer::observe_changes(ChangeObserver observer) {
  WSIM_ASSERT(observer != nullptr);
  impl_->change_observers.push_back(std::move(observer));
}

std::vector<ApiServer::InformerCacheView> ApiServer::informer_caches() const {
  std::vector<InformerCacheView> out;
  for (const auto& [id, view] : impl_->informers->views) {
    std::optional<InformerCacheView> one = view();
    if (one) out.push_back(std::move(*one));
  }
  return out;
}

void ApiServer::expire_watches(const std::string& identity) {
  for (auto& [id, watcher] : impl_->watchers) {
    if (identity.empty() || watcher.identity == identity) impl_->close_gone(watcher);
  }
}

void ApiServer::drop_watches(const std::string& identity) {
  for (auto& [id, watcher] : impl_->watchers) {
    if (identity.empty() || watcher.identity == identity) impl_->close_dropped(watcher);
  }
}

std::size_t ApiServer::watch_count() const {
  std::size_t open = 0;
  for (const auto& [id, watcher] : impl_->watchers) {
    if (!watcher.closed) ++open;
  }
  WSIM_ASSERT_LE(open, impl_->watchers.size());
  return open;
}

}  // namespace wsim::kube
