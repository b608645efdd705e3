// Internals of the fake API server, shared by its .cc files (store.cc, watch.cc, interceptors.cc,
// api_server.cc, client.cc, informer.cc). Not for use outside sim/kube.
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/core/event_loop.h"
#include "sim/core/fault.h"
#include "sim/core/sim.h"
#include "sim/kube/api_server.h"

namespace wsim::kube {

// A value delivered to one awaiting actor at a chosen virtual time (the response of a request
// arrives after its latency). Copies share the state, so the server callback and the awaiting
// client each hold one. If the awaiting actor is cancelled meanwhile, the late wake-up is dropped
// by the event loop (stale ticket).
template <typename T>
class Delivery {
 public:
  explicit Delivery(EventLoop& loop) : state_(std::make_shared<State>(&loop)) {}

  // Sets the value; the waiter resumes at `due_ms` (>= now).
  void deliver(T value, TimeMs due_ms) {
    WSIM_ASSERT_MSG(!state_->value.has_value(), "Delivery set twice");
    WSIM_ASSERT_GE(due_ms, state_->loop->now_ms());
    state_->value.emplace(std::move(value));
    state_->due_ms = due_ms;
    if (state_->waiter) state_->loop->wake_at(*std::exchange(state_->waiter, std::nullopt), due_ms);
  }

  auto operator co_await() const {
    struct Awaiter {
      std::shared_ptr<State> state;
      bool await_ready() noexcept {
        return state->value.has_value() && state->due_ms <= state->loop->now_ms();
      }
      void await_suspend(std::coroutine_handle<> handle) {
        WSIM_ASSERT_MSG(!state->waiter, "Delivery awaited twice");
        WakeTicket ticket = state->loop->park(handle);
        if (state->value.has_value()) {
          state->loop->wake_at(ticket, state->due_ms);
        } else {
          state->waiter = ticket;
        }
      }
      T await_resume() {
        state->loop->throw_if_cancelled();
        WSIM_ASSERT(state->value.has_value());
        return std::move(*state->value);
      }
    };
    return Awaiter{state_};
  }

 private:
  struct State {
    explicit State(EventLoop* l) : loop(l) {}
    EventLoop* loop;
    std::optional<T> value;
    TimeMs due_ms = 0;
    std::optional<WakeTicket> waiter;
  };
  std::shared_ptr<State> state_;
};

// One committed write: the unit of watch events, listener calls and the history window.
struct Change {
  std::uint64_t resource_version = 0;
  WatchEventType type = WatchEventType::kAdded;
  std::shared_ptr<const Object> object;  // New state; for kDeleted the last state.
  std::shared_ptr<const Object> old;     // Previous state (null for kAdded).
};

// What a watch hands its consumer: an event, or the end of the watch: with 410 Gone, or
// `dropped` (ended cleanly: its consumer may re-watch from the last resourceVersion it saw).
struct WatchDelivery {
  bool gone = false;
  WatchEventType type = WatchEventType::kAdded;
  std::shared_ptr<const Object> object;
  std::uint64_t resource_version = 0;
  bool dropped = false;
};
// Returns false to close the watch (its consumer moved on to a newer watch).
using WatchSink = std::function<bool(const WatchDelivery&)>;

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

// A client request as it travels to the server.
struct Request {
  Verb verb = Verb::kGet;
  ObjectRef ref;  // Target; for list/watch: kind and namespace (empty = all).
  Object object;  // create, update, apply.
  MergePatch patch;
  Subresource subresource = Subresource::kMain;
  DeleteOptions delete_options;
  std::string field_manager;
  LabelSelector selector;           // list, watch.
  std::uint64_t watch_from_rv = 0;  // watch: deliver changes after this resourceVersion.
  WatchSink watch_sink;
};

struct Response {
  Status status;
  Object object;  // get, create, update, patch, apply.
  // list: the stored objects themselves (shared, immutable); Client::list copies them for its
  // caller, an informer caches them as they are.
  std::vector<std::shared_ptr<const Object>> items;
  std::uint64_t resource_version = 0;  // list: the list's resourceVersion.
  std::uint64_t watcher_id = 0;        // watch.
};

struct ApiServer::Impl {
  Impl(Sim& sim, const ApiServerOptions& options);

  Sim& sim;
  const ApiServerOptions& options;

  // --- Store (store.cc) ---
  // Ordered like std::map<ObjectRef, ...> and std::less<>, compared inline; ObjectRefLess also
  // finds by ObjectRefView (no ObjectRef built per lookup: docs/performance.md §10).
  using KindStore = std::map<ObjectRef, std::shared_ptr<const Object>, ObjectRefLess>;
  struct KindLess {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const {
      return ObjectRef::compare_bytes(a, b) < 0;
    }
  };
  std::map<std::string, KindStore, KindLess> kinds;  // Never erased: its nodes stay put.
  // The same stores in creation order, found by a linear scan of their kinds: a run has a
  // handful of kinds, and an equality test (length first) is cheaper than the tree's ordered
  // compares on every lookup (docs/performance.md §13.3). The views point into `kinds`' keys.
  std::vector<std::pair<std::string_view, KindStore*>> kind_index;
  // The store of `kind`, or null (store_of) / created empty (store_for).
  const KindStore* store_of(std::string_view kind) const { return find_store(kind); }
  KindStore& store_for(const std::string& kind);
  // The one scan of kind_index behind both (its pointers are to the mutable stores of `kinds`).
  KindStore* find_store(std::string_view kind) const {
    WSIM_ASSERT_EQ(kind_index.size(), kinds.size());  // Paired with store_for().
    for (const auto& [name, store] : kind_index) {
      if (name == kind) return store;
    }
    return nullptr;
  }
  // Every stored object's slot by its ref (kind, namespace, name; normalized), found by hashing
  // the three strings instead of the kind store's ordered search, which compares the namespace
  // and name with eight stored keys or so per lookup (docs/performance.md §14.2). The keys view
  // the KindStore nodes' own keys (a std::map's nodes never move); never iterated, so its order
  // reaches nothing. commit() adds a slot's entry when it creates the slot, erase() removes it
  // with the slot: the index holds exactly the stored objects (asserted against object_count).
  RefHashIndex<ObjectRefView, KindStore::iterator> by_ref;
  std::uint64_t resource_version = 0;
  std::uint64_t next_uid = 0;
  std::size_t object_count = 0;

  static ObjectRef normalize(ObjectRef ref);
  // The stored object at `ref`, normalized (a cluster-scoped kind's namespace ignored); null when
  // absent.
  const std::shared_ptr<const Object>* find(const ObjectRefView& ref) const;
  const std::shared_ptr<const Object>* find(const ObjectRef& ref) const {
    return find(ObjectRefView{ref.kind, ref.namespace_, ref.name});
  }
  Result<Object> create(Object object);
  Result<Object> update(Object object, Subresource subresource);
  Result<Object> patch(const ObjectRef& ref, const MergePatch& patch, Subresource subresource);
  Status remove(const ObjectRef& ref, const DeleteOptions& options);
  Result<Object> apply(Object object);
  void finalize(const ObjectRef& ref);
  // Writes `updated` over the stored object at `ref` (Modified), or removes it (Deleted) when
  // it is deleting and nothing holds it any more. Returns the committed state.
  std::shared_ptr<const Object> commit(const ObjectRef& ref, Object updated);
  // The store's slot at `ref` (normalized), created empty and indexed when absent.
  std::shared_ptr<const Object>& slot_for(const ObjectRef& ref);
  std::shared_ptr<const Object> erase(const ObjectRef& ref, Object last);
  static bool removable(const Object& object);

  // --- Changes, listeners, watches (watch.cc) ---
  std::deque<Change> history;
  std::uint64_t history_floor_rv = 0;  // Changes with rv <= this are no longer in history.
  std::deque<Change> undispatched;
  std::uint64_t last_dispatched_rv = 0;  // Changes are dispatched in strictly ascending rv.
  bool dispatching = false;
  // Shared so that dispatch() holds a listener without copying it while the vector may grow.
  std::vector<std::pair<std::string, std::shared_ptr<const Listener>>> listeners;
  std::vector<std::pair<std::string, StoreObserver>> store_observers;
  std::vector<ChangeObserver> change_observers;
  // Informers register a view of their cache here (informer.cc); shared so that an informer
  // outliving its server unregisters from nothing.
  struct InformerRegistry {
    std::map<std::uint64_t, std::function<std::optional<InformerCacheView>()>> views;
    std::uint64_t next_id = 1;
  };
  std::shared_ptr<InformerRegistry> informers = std::make_shared<InformerRegistry>();
  std::map<std::uint64_t, Watcher> watchers;
  std::uint64_t next_watcher_id = 1;
  ChoiceStream watch_latency;
  ChoiceStream watch_faults;
  FaultId fault_watch_expire = 0;
  ChoiceStream watch_drops;  // kube.watch.drop's own draws (second swarm stream).
  FaultId fault_watch_drop = 0;

  void emit(WatchEventType type, std::shared_ptr<const Object> object,
            std::shared_ptr<const Object> old);
  void dispatch(const Change& change);
  // Schedules `change` to `watcher` if it concerns it (label-selector transitions become
  // ADDED / DELETED); `may_expire` evaluates the kube.watch.expire fault.
  void offer(Watcher& watcher, const Change& change, bool may_expire);
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
  // Registers a watch from `from_rv` (replaying history), or answers Gone.
  Response start_watch(const std::string& identity, Request& request);
  void close_watch(std::uint64_t watcher_id);

  // --- RBAC-lite (api_server.cc) ---
  std::set<std::tuple<std::string, Verb, std::string>> denied;
  Status authorize(const std::string& identity, const Request& request) const;
  bool is_denied(const std::string& identity, Verb verb, const std::string& kind) const;

  // --- Interceptor chain (interceptors.cc) ---
  struct Rule {
    InterceptorId id = 0;
    InterceptorRule rule;
    std::optional<FaultId> fault;
    int fired = 0;
  };
  std::vector<Rule> rules;
  InterceptorId next_rule_id = 1;
  ChoiceStream api_faults;
  struct Intercepted {
    FaultAction action;
    Status status;       // For error actions.
    std::string detail;  // For the trace: which rule / fault point.
  };
  std::optional<Intercepted> intercept(const std::string& identity, const Request& request);
  void install_default_rules();
  // kube.apiserver.restart (restart.cc): while the server is down every request answers 503.
  FaultId fault_restart = 0;
  ChoiceStream restart_draws;
  TimeMs down_until_ms = -1;  // The current outage ends here; -1 = none yet.
  std::optional<Intercepted> restart_outage();

  // --- Client request path (client.cc) ---
  ChoiceStream api_latency;
  DurationMs draw_latency();
  // The choice key of a request's draws (ChoiceSource KeyScope): "api KIND/NAMESPACE/NAME", or
  // empty when no key is needed.
  std::string choice_key(const Request& request) const;
  std::string object_text;  // request_object()'s buffer for arrive()'s trace record.
  // Sends `request` now; the returned Delivery resolves with the response after the round trip.
  Delivery<Response> send(const std::string& identity, std::shared_ptr<Request> request);
  void arrive(const std::string& identity, Request& request, Delivery<Response> reply,
              TimeMs sent_ms);
  // Performs the request (execute_verb) and asserts that reads and failed requests wrote nothing.
  Response execute(const std::string& identity, Request& request);
  Response execute_verb(const std::string& identity, Request& request);
};

// Whether `a`'s ObjectRef orders before `b`'s: ObjectRef::of(*a) < ObjectRef::of(*b) without
// building either (lists' order, docs/performance.md §14.2).
inline bool ref_order_less(const Object* a, const Object* b) {
  WSIM_ASSERT(a != nullptr);
  WSIM_ASSERT(b != nullptr);
  return ObjectRef::compare_ref(a->meta.namespace_, a->meta.name, a->kind, b->meta.namespace_,
                                b->meta.name, b->kind) < 0;
}

// "Deployment/ns/name", "Deployment/ns" (list in a namespace), "Deployment" (all namespaces),
// written into `out` (a reused buffer: no allocation per request once it is large enough).
// Returns a view of `out`.
std::string_view request_object(const Request& request, std::string& out);

}  // namespace wsim::kube
