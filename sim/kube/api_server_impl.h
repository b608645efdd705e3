// ApiServer::Impl: the rooms of the fake API server and the client request path between them
// (sim/kube internal, not for use outside it). The rooms are classes with their own state:
//   ObjectStore      (object_store.h, store.cc)          the objects and the write rules;
//   WatchHub         (watch_hub.h, watch.cc)             history, listeners, client watches;
//   Listeners        (listeners.h)                       the one way to listen (subscribe);
//   InterceptorChain (interceptor_chain.h, interceptors.cc, restart.cc)  faults before a request;
//   Rbac             (rbac.h)                            RBAC-lite.
// Impl itself carries a request from a client to them and back (client.cc): request latency →
// interceptor chain → RBAC-lite → the verb → response latency.
//
// Single-threaded, runs on the event loop. Invariant: the store's resourceVersion and the watch
// hub's are equal whenever no write is in progress (asserted by current_resource_version()).
#pragma once

#include <coroutine>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "sim/core/event_loop.h"
#include "sim/core/fault.h"
#include "sim/core/sim.h"
#include "sim/kube/api_request.h"
#include "sim/kube/api_server.h"
#include "sim/kube/interceptor_chain.h"
#include "sim/kube/object_store.h"
#include "sim/kube/rbac.h"
#include "sim/kube/watch_hub.h"

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

struct ApiServer::Impl {
 public:
  Impl(Sim& sim, const ApiServerOptions& options);
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // Informers register a view of their cache here (informer.cc); shared so that an informer
  // outliving its server unregisters from nothing.
  struct InformerRegistry {
    std::map<std::uint64_t, std::function<std::optional<InformerCacheView>()>> views;
    std::uint64_t next_id = 1;
  };

  ObjectStore& store() { return store_; }
  const ObjectStore& store() const { return store_; }
  WatchHub& watches() { return watches_; }
  const WatchHub& watches() const { return watches_; }
  InterceptorChain& interceptors() { return interceptors_; }
  const InterceptorChain& interceptors() const { return interceptors_; }
  Rbac& rbac() { return rbac_; }
  const std::shared_ptr<InformerRegistry>& informers() const { return informers_; }
  // The store's resourceVersion (asserted equal to the watch hub's).
  std::uint64_t resource_version() const;

  // Sends `request` now; the returned Delivery resolves with the response after the round trip.
  Delivery<Response> send(const std::string& identity, std::shared_ptr<Request> request);
  void close_watch(std::uint64_t watcher_id) {
    WSIM_ASSERT_NE(watcher_id, 0u);  // An id the watch hub handed out.
    watches_.close_watch(watcher_id);
  }

 private:
  DurationMs draw_latency();
  // The choice key of a request's draws (ChoiceSource KeyScope): "api KIND/NAMESPACE/NAME", or
  // empty when no key is needed.
  std::string choice_key(const Request& request) const;
  void arrive(const std::string& identity, Request& request, Delivery<Response> reply,
              TimeMs sent_ms);
  // The response to a request the interceptor chain decided; true when the request ends there.
  bool answer_intercepted(const std::string& identity, Request& request,
                          InterceptorChain::Intercepted intercepted, Delivery<Response>& reply,
                          TimeMs timeout_at, std::string& fault_detail);
  // Performs the request (execute_verb) and asserts that reads and failed requests wrote nothing.
  Response execute(const std::string& identity, Request& request);
  Response execute_verb(const std::string& identity, Request& request);
  Response timeout_response() const;

  Sim& sim_;
  const ApiServerOptions& options_;
  WatchHub watches_;  // Before the store, which emits into it.
  ObjectStore store_;
  InterceptorChain interceptors_;
  Rbac rbac_;
  std::shared_ptr<InformerRegistry> informers_ = std::make_shared<InformerRegistry>();
  ChoiceStream api_latency_;
  std::string object_text_;  // request_object()'s buffer for arrive()'s trace record.
};

}  // namespace wsim::kube
