// Informer: list + watch actor filling a lagging cache (client-go reflector + indexer).
//
// The actor lists (a client request: latency, faults, RBAC), replaces the cache, then watches
// from the list's resourceVersion. Watch events reach the cache in order, each after its own
// latency (watch.cc). A 410 Gone (kube.watch.expire, expire_watches(), or a watch from before
// the history window) makes it relist: the events in between are never seen one by one, only
// their net result (coalescing: Sieve's unobserved state). The relist and every retry wait
// client-go's reflector backoff (run_informer). The cache holds shared immutable snapshots (the
// server's committed objects, never copied on the way in); list()/get() return deep copies, the
// *_shared reads const views.
#include "sim/kube/informer.h"

#include <algorithm>
#include <set>

#include "sim/core/log.h"
#include "sim/core/sync.h"
#include "sim/kube/api_server_impl.h"
#include "sim/kube/backoff_manager.h"

namespace wsim::kube {

namespace {

struct InformerCore {
  InformerCore(Sim& s, ApiServer::Impl* srv, InformerOptions o)
      : sim(s), server(srv), options(std::move(o)), changed(s.loop()) {
    WSIM_ASSERT(server != nullptr);
    trace_actor = options.identity + "/informer";
    cluster_scoped = is_cluster_scoped(options.kind);
  }

  Sim& sim;
  ApiServer::Impl* server;
  InformerOptions options;
  std::string trace_actor;
  bool cluster_scoped = false;  // The kind's objects have no namespace (reads ignore theirs).
  // Ordered like std::map<ObjectRef, ...> (ObjectRefLess is ObjectRef's order, transparent):
  // reads look up an ObjectRefView, no key strings built (docs/performance.md §13.1).
  using Cache = std::map<ObjectRef, std::shared_ptr<const Object>, ObjectRefLess>;
  Cache cache;
  // Shared so that notify() holds a handler without copying it while the vector may grow.
  std::vector<std::shared_ptr<const std::function<void(const Object&, bool)>>> handlers;
  struct Index {
    Informer::IndexFunc values_of;
    std::map<std::string, std::set<ObjectRef>> refs;  // Index value -> cached objects.
  };
  std::map<std::string, Index> indexes;
  Signal changed;  // Synced, or the current watch ended.
  ActorId actor = kNoActor;
  bool started = false;
  bool stopped = false;
  bool synced = false;
  std::uint64_t session = 0;  // Current watch; deliveries of older watches are refused.
  bool watch_gone = false;
  bool watch_dropped = false;      // The current watch ended without 410 (kube.watch.drop).
  std::uint64_t watch_events = 0;  // Events the current watch delivered.
  std::uint64_t watcher_id = 0;
  std::uint64_t last_rv = 0;
  std::uint64_t lists = 0;

  void notify(const Object& object, bool deleted) {
    WSIM_ASSERT(!object.kind.empty());
    // Index loop over a snapshot count: a handler may add handlers.
    const std::size_t n = handlers.size();
    for (std::size_t i = 0; i < n; ++i) {
      std::shared_ptr<const std::function<void(const Object&, bool)>> handler = handlers[i];
      (*handler)(object, deleted);
    }
  }

  // Adds (sign true) or removes `object`, cached at `ref`, from every index.
  void index(const ObjectRef& ref, const Object& object, bool add) {
    for (auto& [name, idx] : indexes) {
      for (const std::string& value : idx.values_of(object)) {
        if (add) {
          idx.refs[value].insert(ref);
          continue;
        }
        auto it = idx.refs.find(value);
        WSIM_ASSERT_MSG(it != idx.refs.end(), "index " << name << " lost value " << value);
        WSIM_ASSERT_EQ(it->second.erase(ref), 1u);
        if (it->second.empty()) idx.refs.erase(it);
      }
    }
  }

  void reindex() {
    for (auto& [name, idx] : indexes) idx.refs.clear();
    for (const auto& [ref, object] : cache) {
      WSIM_ASSERT(object != nullptr);
      index(ref, *object, true);
    }
  }

  void trace(const Object& object, const char* what, const char* how) {
    WSIM_ASSERT(what != nullptr);
    if (!options.trace_changes) return;
    // ObjectRef::of(object).to_string() and the detail, each built in one string
    // (docs/performance.md §10).
    std::string path;
    path.reserve(object.kind.size() + object.meta.namespace_.size() + object.meta.name.size() + 2);
    path += object.kind;
    path += '/';
    if (!object.meta.namespace_.empty()) {
      path += object.meta.namespace_;
      path += '/';
    }
    path += object.meta.name;
    std::string detail = how;
    detail += "rv ";
    detail += std::to_string(object.meta.resource_version);
    sim.record(trace_actor, "watch", path, what, detail);
  }

  // A delivery of the current watch. The watch started from last_rv and the server delivers
  // each watch's changes once, in ascending resourceVersion (watch.cc offer()/deliver()), so an
  // old or repeated event here is a harness bug, not something to skip.
  void apply_event(const WatchDelivery& delivery) {
    WSIM_ASSERT(!delivery.gone);
    WSIM_ASSERT(delivery.object != nullptr);
    WSIM_ASSERT_GT(delivery.resource_version, last_rv);
    WSIM_ASSERT_EQ(delivery.object->kind, options.kind);
    last_rv = delivery.resource_version;
    ++watch_events;
    const ObjectRef ref = ObjectRef::of(*delivery.object);
    auto it = cache.find(ref);
    if (delivery.type == WatchEventType::kDeleted) {
      if (it == cache.end()) return;
      if (!indexes.empty()) index(ref, *it->second, false);
      cache.erase(it);
      trace(*delivery.object, "deleted", "");
      notify(*delivery.object, true);
      return;
    }
    const bool added = it == cache.end();
    if (added) {
      cache.emplace(ref, delivery.object);
    } else {
      if (!indexes.empty()) index(ref, *it->second, false);
      it->second = delivery.object;
    }
    if (!indexes.empty()) index(ref, *delivery.object, true);
    trace(*delivery.object, added ? "added" : "modified", "");
    notify(*delivery.object, false);
  }

  void replace(std::vector<std::shared_ptr<const Object>> items, std::uint64_t list_rv) {
    // A relist never goes back in time: its resourceVersion is the server's at the list.
    WSIM_ASSERT_GE(list_rv, last_rv);
    ++lists;
    WSIM_LOG_DEBUG(trace_actor << ": " << (lists == 1 ? "list " : "relist ") << options.kind << ": "
                               << items.size() << " objects at rv " << list_rv);
    Cache fresh;
    for (std::shared_ptr<const Object>& item : items) {
      WSIM_ASSERT(item != nullptr);
      WSIM_ASSERT_LE(item->meta.resource_version, list_rv);
      ObjectRef ref = ObjectRef::of(*item);
      fresh.emplace(std::move(ref), std::move(item));
    }
    Cache old = std::move(cache);
    cache = fresh;
    reindex();
    last_rv = std::max(last_rv, list_rv);
    const char* how = lists == 1 ? "list, " : "relist, ";
    for (const auto& [ref, object] : old) {
      if (fresh.count(ref) == 0) {
        trace(*object, "deleted", how);
        notify(*object, true);
      }
    }
    for (const auto& [ref, object] : fresh) {
      auto it = old.find(ref);
      if (it == old.end()) {
        trace(*object, "added", how);
        notify(*object, false);
      } else if (it->second->meta.resource_version != object->meta.resource_version) {
        trace(*object, "modified", how);
        notify(*object, false);
      }
    }
    synced = true;
    changed.notify_all();
  }
};

void schedule_resync(const std::shared_ptr<InformerCore>& core) {
  WSIM_ASSERT(core != nullptr);
  if (core->options.resync_ms <= 0) return;
  std::weak_ptr<InformerCore> weak = core;
  core->sim.loop().schedule(core->options.resync_ms, [weak]() {
    auto c = weak.lock();
    if (!c || c->stopped) return;
    // Snapshot first: handlers may not change the cache, but stay safe.
    std::vector<std::shared_ptr<const Object>> objects;
    objects.reserve(c->cache.size());
    for (const auto& [ref, object] : c->cache) objects.push_back(object);
    for (const auto& object : objects) c->notify(*object, false);
    schedule_resync(c);
  });
}

// The list request of a (re)list.
std::shared_ptr<Request> list_request(const InformerCore& core) {
  WSIM_ASSERT(!core.options.kind.empty());  // An informer watches one kind.
  auto list = std::make_shared<Request>();
  list->verb = Verb::kList;
  list->ref = ObjectRef{core.options.kind, core.options.namespace_, ""};
  list->selector = core.options.selector;
  return list;
}

// A watch from the cache's resourceVersion whose deliveries reach `core` while `session` is its
// current watch.
std::shared_ptr<Request> watch_request(const std::shared_ptr<InformerCore>& core,
                                       std::uint64_t session) {
  auto watch = std::make_shared<Request>();
  watch->verb = Verb::kWatch;
  watch->ref = ObjectRef{core->options.kind, core->options.namespace_, ""};
  watch->selector = core->options.selector;
  watch->watch_from_rv = core->last_rv;
  std::weak_ptr<InformerCore> weak = core;
  watch->watch_sink = [weak, session](const WatchDelivery& delivery) -> bool {
    auto c = weak.lock();
    if (!c || c->stopped || c->session != session) return false;
    if (delivery.gone || delivery.dropped) {
      (delivery.gone ? c->watch_gone : c->watch_dropped) = true;
      c->changed.notify_all();
      return false;
    }
    WSIM_ASSERT_EQ(c->watch_gone, false);
    WSIM_ASSERT_EQ(c->watch_dropped, false);
    c->apply_event(delivery);
    return true;
  };
  return watch;
}

// The reflector's loop, after client-go tools/cache/reflector.go (v0.32.0): Run repeats
// ListAndWatch under wait.BackoffUntil (sliding: a backoff after every return); ListAndWatch lists
// (an error returns) and then watches from the list's resourceVersion (Reflector.watch). A watch
// that cannot start is retried after a backoff only for 429 (isWatchErrorRetriable; connection
// refused is not modelled); any other error, 410 Gone included, returns to Run, which backs off
// and relists. A watch that ends with 410 Gone (handleWatch's expired error) returns too; one that
// ends cleanly (kube.watch.drop) is re-opened from the last resourceVersion seen, so a resume
// from before the server's window gets 410 at its start and relists. So
// after a 410 the cache stays as it was, blind, for 0.8 s or more before the relist
// (backoff_manager.h). One coroutine (no awaited sub-task) so that stop() can cancel it.
Task<void> run_informer(std::shared_ptr<InformerCore> core) {
  WSIM_ASSERT(core != nullptr);
  WSIM_ASSERT(!core->options.kind.empty());
  EventLoop& loop = core->sim.loop();
  ChoiceStream jitter = core->sim.stream("kube.reflector.backoff");
  BackoffManager backoff(BackoffManagerOptions{}, loop.now_ms());
  bool first = true;
  while (!core->stopped) {
    if (!first) co_await loop.sleep(backoff.next(loop.now_ms(), jitter));  // BackoffUntil.
    first = false;
    Response listed = co_await core->server->send(core->options.identity, list_request(*core));
    if (!listed.status.ok()) continue;
    core->replace(std::move(listed.items), listed.resource_version);
    while (!core->stopped) {  // Reflector.watch.
      const std::uint64_t session = ++core->session;
      core->watch_gone = false;
      core->watch_dropped = false;
      core->watch_events = 0;
      core->watcher_id = 0;
      const TimeMs started_ms = loop.now_ms();
      Response response =
          co_await core->server->send(core->options.identity, watch_request(core, session));
      if (!response.status.ok()) {
        if (core->session == session) ++core->session;  // Refuse a watch that did start.
        if (!response.status.is(Code::kTooManyRequests)) break;
        co_await loop.sleep(backoff.next(loop.now_ms(), jitter));
        continue;
      }
      core->watcher_id = response.watcher_id;
      while (!core->stopped && core->session == session && !core->watch_gone &&
             !core->watch_dropped) {
        co_await core->changed.wait();
      }
      // handleWatch: a watch that ended cleanly is re-opened at once from the last resourceVersion
      // seen, unless it was "very short" (under 1 s, no event: an error, back to Run). After 410
      // Gone (or stop): back to Run, relist.
      if (!core->watch_dropped || core->session != session) break;
      if (core->watch_events == 0 && loop.now_ms() - started_ms < kSecondMs) break;
    }
  }
}

// What ApiServer::informer_caches() reports of `core`: nothing unless it is started, not stopped,
// synced and watching (an informer between watches may legitimately lag).
std::optional<ApiServer::InformerCacheView> cache_view(const InformerCore& core) {
  if (!core.started || core.stopped || !core.synced) return std::nullopt;
  if (core.watcher_id == 0 || core.watch_gone || core.watch_dropped) return std::nullopt;
  ApiServer::InformerCacheView view;
  view.identity = core.options.identity;
  view.kind = core.options.kind;
  view.namespace_ = core.options.namespace_;
  view.selector = core.options.selector;
  view.cache.reserve(core.cache.size());
  for (const auto& [ref, object] : core.cache) {
    // A cached object is one the informer saw: at or below the last version it saw.
    WSIM_ASSERT_LE(object->meta.resource_version, core.last_rv);
    view.cache.emplace_back(ref, object->meta.resource_version);
  }
  return view;
}

}  // namespace

struct Informer::State {
  std::shared_ptr<InformerCore> core;
  std::weak_ptr<ApiServer::Impl::InformerRegistry> registry;
  std::uint64_t registry_id = 0;
};

Informer::Informer(Sim& sim, ApiServer& server, InformerOptions options)
    : state_(std::make_unique<State>()) {
  state_->core = std::make_shared<InformerCore>(sim, server.impl_.get(), std::move(options));
  WSIM_ASSERT(state_->core->server != nullptr);
  WSIM_ASSERT(!state_->core->options.kind.empty());
  ApiServer::Impl::InformerRegistry& registry = *server.impl_->informers();
  state_->registry = server.impl_->informers();
  state_->registry_id = registry.next_id++;
  std::weak_ptr<InformerCore> weak = state_->core;
  registry.views.emplace(state_->registry_id,
                         [weak]() -> std::optional<ApiServer::InformerCacheView> {
                           auto core = weak.lock();
                           if (!core) return std::nullopt;
                           return cache_view(*core);
                         });
}

Informer::~Informer() {
  WSIM_ASSERT(state_ != nullptr);
  WSIM_ASSERT_NE(state_->registry_id, 0u);  // Registered by the constructor.
  if (auto registry = state_->registry.lock()) registry->views.erase(state_->registry_id);
  InformerCore& core = *state_->core;
  core.stopped = true;
  ++core.session;
  // The watch closes itself at its next delivery (the sink refuses it); the actor unwinds at
  // its next resume and frees the core.
  if (core.actor != kNoActor && core.sim.loop().alive(core.actor))
    core.sim.loop().cancel(core.actor);
}

void Informer::start() {
  WSIM_ASSERT(state_ != nullptr);
  InformerCore& core = *state_->core;
  if (core.started) return;
  core.started = true;
  core.actor =
      core.sim.loop().spawn(core.trace_actor + " " + core.options.kind, run_informer(state_->core));
  schedule_resync(state_->core);
}

void Informer::stop() {
  WSIM_ASSERT(state_ != nullptr);
  InformerCore& core = *state_->core;
  if (core.stopped) return;
  core.stopped = true;
  ++core.session;
  if (core.watcher_id != 0) core.server->close_watch(core.watcher_id);
  if (core.actor != kNoActor && core.sim.loop().alive(core.actor))
    core.sim.loop().cancel(core.actor);
  core.changed.notify_all();
}

bool Informer::synced() const {
  // Synced only once started (the first list filled the cache).
  if (state_->core->synced) WSIM_ASSERT(state_->core->started);
  return state_->core->synced;
}

Task<void> Informer::wait_synced() {
  std::shared_ptr<InformerCore> core = state_->core;
  while (!core->synced) co_await core->changed.wait();
  WSIM_ASSERT(core->synced);  // Checked again after the await (STYLE.md §9).
}

std::vector<Object> Informer::list() const {
  std::vector<Object> out;
  out.reserve(state_->core->cache.size());
  for (const auto& [ref, object] : state_->core->cache) out.push_back(*object);
  WSIM_ASSERT_EQ(out.size(), state_->core->cache.size());
  return out;
}

std::optional<Object> Informer::get(std::string_view namespace_, std::string_view name) const {
  ObjectView view = get_shared(namespace_, name);
  if (!view) return std::nullopt;
  WSIM_ASSERT(view->meta.name == name);
  return *view;
}

std::vector<Informer::ObjectView> Informer::list_shared() const {
  std::vector<ObjectView> out;
  out.reserve(state_->core->cache.size());
  for (const auto& [ref, object] : state_->core->cache) out.push_back(object);
  WSIM_ASSERT_EQ(out.size(), state_->core->cache.size());
  return out;
}

Informer::ObjectView Informer::get_shared(std::string_view namespace_,
                                          std::string_view name) const {
  const InformerCore& core = *state_->core;
  const ObjectRefView ref{core.options.kind, core.cluster_scoped ? std::string_view() : namespace_,
                          name};
  auto it = core.cache.find(ref);
  if (it == core.cache.end()) return nullptr;
  WSIM_ASSERT(it->second != nullptr);
  // The cache holds its kind only, and the object found is the one asked for.
  WSIM_ASSERT_EQ(it->second->kind, core.options.kind);
  WSIM_ASSERT(it->second->meta.name == name);
  return it->second;
}

std::size_t Informer::size() const {
  WSIM_ASSERT(state_ != nullptr);
  return state_->core->cache.size();
}

void Informer::add_index(const std::string& name, IndexFunc index) {
  WSIM_ASSERT(index != nullptr);
  InformerCore& core = *state_->core;
  WSIM_ASSERT_MSG(core.indexes.count(name) == 0, "index " << name << " added twice");
  core.indexes[name].values_of = std::move(index);
  core.reindex();
}

std::vector<Informer::ObjectView> Informer::by_index(const std::string& name,
                                                     const std::string& value) const {
  const InformerCore& core = *state_->core;
  auto idx = core.indexes.find(name);
  WSIM_ASSERT_MSG(idx != core.indexes.end(), "no index " << name);
  std::vector<ObjectView> out;
  auto it = idx->second.refs.find(value);
  if (it == idx->second.refs.end()) return out;
  out.reserve(it->second.size());
  for (const ObjectRef& ref : it->second) {
    auto cached = core.cache.find(ref);
    WSIM_ASSERT(cached != core.cache.end());  // The index follows the cache exactly.
    out.push_back(cached->second);
  }
  return out;
}

void Informer::on_change(std::function<void(const Object& object, bool deleted)> handler) {
  WSIM_ASSERT(handler != nullptr);
  state_->core->handlers.push_back(
      std::make_shared<const std::function<void(const Object&, bool)>>(std::move(handler)));
}

std::uint64_t Informer::list_count() const {
  // A synced informer has listed at least once.
  if (state_->core->synced) WSIM_ASSERT_GT(state_->core->lists, 0u);
  return state_->core->lists;
}

std::uint64_t Informer::last_resource_version() const {
  WSIM_ASSERT(state_ != nullptr);
  return state_->core->last_rv;
}

}  // namespace wsim::kube
