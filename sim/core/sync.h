// Synchronisation awaitables on the EventLoop: OneShot<T> (a single value delivered later),
// Signal (wake every waiter) and Channel<T> (an unbounded FIFO queue). Waking schedules the waiter
// at the current virtual time behind already-due events (FIFO), so wake-ups are interleaving
// points like every other co_await.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/event_loop.h"

namespace wsim {

// A value set once, awaited by at most one actor. Copies share the same state, so the producer
// (often a callback) and the consumer may hold separate copies.
template <typename T>
class OneShot {
 public:
  explicit OneShot(EventLoop& loop) : state_(std::make_shared<State>(&loop)) {}

  bool ready() const { return state_->value.has_value(); }
  // Sets the value (exactly once) and wakes the waiter, if any.
  void set(T value) {
    WSIM_ASSERT_MSG(!state_->value.has_value(), "OneShot set twice");
    state_->value.emplace(std::move(value));
    if (state_->waiter) state_->loop->wake(*std::exchange(state_->waiter, std::nullopt));
  }

  auto operator co_await() const {
    struct Awaiter {
      std::shared_ptr<State> state;
      bool await_ready() noexcept { return state->value.has_value(); }
      void await_suspend(std::coroutine_handle<> handle) {
        WSIM_ASSERT_MSG(!state->waiter, "OneShot awaited twice");
        WSIM_ASSERT(!state->value.has_value());  // await_ready said not ready.
        state->waiter = state->loop->park(handle);
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
    std::optional<WakeTicket> waiter;
  };
  std::shared_ptr<State> state_;
};

// Wakes every actor waiting at the moment notify_all() is called. No memory: a notify with no
// waiter is lost (re-check the condition in a loop, like a condition variable).
class Signal {
 public:
  explicit Signal(EventLoop& loop) : loop_(&loop) {}

  void notify_all() {
    std::vector<WakeTicket> waiters = std::move(waiters_);
    waiters_.clear();
    for (const WakeTicket& ticket : waiters) loop_->wake(ticket);
  }

  auto wait() {
    struct Awaiter {
      Signal* signal;
      bool await_ready() noexcept { return false; }
      void await_suspend(std::coroutine_handle<> handle) {
        signal->waiters_.push_back(signal->loop_->park(handle));
      }
      void await_resume() { signal->loop_->throw_if_cancelled(); }
    };
    return Awaiter{this};
  }

 private:
  EventLoop* loop_;
  std::vector<WakeTicket> waiters_;
};

// Unbounded FIFO queue with one consumer at a time. send() never blocks.
template <typename T>
class Channel {
 public:
  explicit Channel(EventLoop& loop) : loop_(&loop), ready_(loop) {}

  void send(T value) {
    items_.push_back(std::move(value));
    ready_.notify_all();
  }
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  // Removes and returns the next item without waiting, if there is one.
  std::optional<T> try_receive() {
    if (items_.empty()) return std::nullopt;
    T value = std::move(items_.front());
    items_.pop_front();
    return value;
  }
  // Waits for the next item.
  Task<T> receive() {
    while (items_.empty()) co_await ready_.wait();
    WSIM_ASSERT(!items_.empty());  // Checked again after the await (STYLE.md §9).
    T value = std::move(items_.front());
    items_.pop_front();
    co_return value;
  }

 private:
  EventLoop* loop_;
  Signal ready_;
  std::deque<T> items_;
};

}  // namespace wsim
