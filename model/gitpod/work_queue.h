// Upstream: kubernetes/client-go v0.31.9 util/workqueue (queue.go dirty/processing sets,
// default_rate_limiters.go ItemExponentialFailureRateLimiter 5 ms..1000 s) and
// kubernetes-sigs/controller-runtime v0.19.7 pkg/internal/controller/controller.go
// (reconcileHandler). The overall 10 qps bucket limiter is not modelled (docs/fidelity.md G19).
//
// A controller-runtime-like work queue on virtual time (docs/systems/gitpod.md §1.5), used by
// ws-manager mk2 and ws-daemon.
//
// Contract (client-go workqueue + controller-runtime's reconcileHandler):
//  1. A key is queued at most once; add() of a queued key is a no-op.
//  2. A key is never handed to two workers at once: add() while it is being processed marks it
//     dirty, and it is queued again when done() is called.
//  3. add_after(key, d) queues it d later; add_rate_limited(key) after 5 ms·2ⁿ (n = failures
//     of the key so far) capped at 1000 s (the default controller rate limiter, §1.5
//     [reconstructed]); forget(key) resets n.
//  4. Keys come out FIFO. Workers are actors that call next(); shutdown() makes them stop.
// Single-threaded, on the event loop. The queue holds no object state, only names.
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "sim/core/sim.h"
#include "sim/core/sync.h"
#include "sim/core/task.h"

namespace wsim::gitpod {

// The result of one reconcile, as controller-runtime's ctrl.Result plus error.
struct ReconcileResult {
  bool error = false;
  bool requeue = false;
  DurationMs requeue_after_ms = 0;

  static ReconcileResult done() { return {}; }
  static ReconcileResult failed() { return {true, false, 0}; }
  static ReconcileResult again() { return {false, true, 0}; }
  static ReconcileResult after(DurationMs delay_ms) { return {false, false, delay_ms}; }
};

class WorkQueue {
 public:
  static constexpr DurationMs kBaseDelayMs = 5;
  static constexpr DurationMs kMaxDelayMs = 1000 * kSecondMs;

  explicit WorkQueue(Sim& sim);
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void add(const std::string& key);
  void add_after(const std::string& key, DurationMs delay_ms);
  void add_rate_limited(const std::string& key);
  void forget(const std::string& key);
  // The delay add_rate_limited would use next for `key` (and the failure count it implies).
  DurationMs next_backoff_ms(const std::string& key) const;

  // Waits for a key; nullopt after shutdown(). REQUIRES: done(key) is called after processing.
  Task<std::optional<std::string>> next();
  void done(const std::string& key);
  // Applies a reconcile result the way controller-runtime does: error or Requeue → rate
  // limited; RequeueAfter → forget + add_after; otherwise forget. Then done(key).
  void finish(const std::string& key, const ReconcileResult& result);

  void shutdown();
  bool shut_down() const { return shut_down_; }
  std::size_t queued() const { return order_.size(); }
  bool processing(const std::string& key) const;

 private:
  // One entry per key the queue knows (queued, processing, dirty, failed before, or awaited by
  // an add_after timer): one lookup per operation instead of one per set, and the FIFO and the
  // timers hold the entry itself, not a copy of its key (docs/performance.md §14.3). An entry
  // with nothing left is erased, so the map holds only live keys. Keys are never iterated: the
  // map's order decides nothing.
  struct Entry {
    bool queued = false;
    bool processing = false;
    bool dirty = false;
    int failures = 0;  // Of the rate limiter; 0 = forgotten.
    int timers = 0;    // add_after timers pending (each holds the entry).
  };
  using Entries = std::map<std::string, Entry>;
  using EntryIt = Entries::iterator;
  EntryIt entry(const std::string& key) { return entries_.try_emplace(key).first; }
  void add_entry(EntryIt it);
  void add_after_entry(EntryIt it, DurationMs delay_ms);
  // add_rate_limited on the entry.
  void rate_limited(EntryIt it);
  static DurationMs backoff_ms(int failures);
  void done_entry(EntryIt it);
  // Erases the entry if nothing refers to it any more.
  void release(EntryIt it);

  Sim& sim_;
  std::shared_ptr<bool> alive_;  // Timers scheduled by add_after check it (queue destroyed).
  Entries entries_;
  std::deque<EntryIt> order_;  // The queued entries, FIFO.
  // Workers parked in next(), longest-waiting first: add() wakes one (client-go queue.go Add →
  // cond.Signal(); Go's sync.Cond wakes its longest waiter), shutdown() wakes all. A waiter whose
  // actor was cancelled meanwhile is skipped. Each is parked on the loop directly (its ticket):
  // what a Signal of one waiter did, without a Signal and its vector per park (§9 of
  // docs/performance.md).
  struct Waiter {
    ActorId actor = kNoActor;
    WakeTicket ticket;
  };
  std::deque<Waiter> waiters_;
  void wake_one();
  // Awaitable: parks the current actor at the back of waiters_ until wake_one()/shutdown().
  auto park_worker() {
    struct Awaiter {
      WorkQueue* queue;
      bool await_ready() noexcept { return false; }
      void await_suspend(std::coroutine_handle<> handle) {
        EventLoop& loop = queue->sim_.loop();
        queue->waiters_.push_back(Waiter{loop.current_actor(), loop.park(handle)});
      }
      void await_resume() { queue->sim_.loop().throw_if_cancelled(); }
    };
    return Awaiter{this};
  }
  bool shut_down_ = false;
};

}  // namespace wsim::gitpod
