// Upstream: see work_queue.h (client-go workqueue, controller-runtime reconcileHandler).
#include "model/gitpod/work_queue.h"

#include "sim/core/assert.h"

namespace wsim::gitpod {

WorkQueue::WorkQueue(Sim& sim) : sim_(sim), alive_(std::make_shared<bool>(true)) {}

WorkQueue::~WorkQueue() { *alive_ = false; }

void WorkQueue::add(const std::string& key) {
  WSIM_ASSERT(!key.empty());
  if (shut_down_) return;
  add_entry(entry(key));
}

void WorkQueue::add_entry(EntryIt it) {
  WSIM_ASSERT(!shut_down_);
  Entry& e = it->second;
  if (e.processing) {
    e.dirty = true;
    return;
  }
  if (e.queued) return;
  e.queued = true;
  order_.push_back(it);
  // Each key is queued at most once, and only a known key: the FIFO never outgrows the map.
  WSIM_ASSERT_LE(order_.size(), entries_.size());
  wake_one();
}

void WorkQueue::wake_one() {
  WSIM_ASSERT(!order_.empty());  // add_entry wakes a worker for the key it just queued.
  while (!waiters_.empty()) {
    Waiter waiter = std::move(waiters_.front());
    waiters_.pop_front();
    if (!sim_.loop().alive(waiter.actor)) continue;
    sim_.loop().wake(waiter.ticket);
    return;
  }
}

void WorkQueue::release(EntryIt it) {
  const Entry& e = it->second;
  WSIM_ASSERT_GE(e.timers, 0);  // Each timer decrements what it incremented.
  WSIM_ASSERT_GE(e.failures, 0);
  if (e.queued || e.processing || e.dirty || e.failures > 0 || e.timers > 0) return;
  entries_.erase(it);
}

bool WorkQueue::processing(const std::string& key) const {
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.processing;
}

void WorkQueue::add_after(const std::string& key, DurationMs delay_ms) {
  WSIM_ASSERT_GE(delay_ms, 0);
  if (shut_down_) return;
  if (delay_ms == 0) {
    add(key);
    return;
  }
  add_after_entry(entry(key), delay_ms);
}

void WorkQueue::add_after_entry(EntryIt it, DurationMs delay_ms) {
  WSIM_ASSERT_GT(delay_ms, 0);
  WSIM_ASSERT(!shut_down_);
  // The timer holds the entry (kept while timers > 0), not a copy of the key.
  ++it->second.timers;
  std::shared_ptr<bool> alive = alive_;
  sim_.loop().schedule(delay_ms, [this, alive, it] {
    if (!*alive) return;  // The queue is gone, and its entries with it.
    WSIM_ASSERT_GT(it->second.timers, 0);
    --it->second.timers;
    if (shut_down_) {
      release(it);
      return;
    }
    add_entry(it);
  });
}

DurationMs WorkQueue::next_backoff_ms(const std::string& key) const {
  auto it = entries_.find(key);
  return backoff_ms(it == entries_.end() ? 0 : it->second.failures);
}

DurationMs WorkQueue::backoff_ms(int failures) {
  WSIM_ASSERT_GE(failures, 0);
  DurationMs delay_ms = kBaseDelayMs;
  for (int i = 0; i < failures && delay_ms < kMaxDelayMs; ++i) delay_ms *= 2;
  const DurationMs capped_ms = delay_ms < kMaxDelayMs ? delay_ms : kMaxDelayMs;
  WSIM_ASSERT_GE(capped_ms, kBaseDelayMs);
  return capped_ms;
}

void WorkQueue::add_rate_limited(const std::string& key) { rate_limited(entry(key)); }

void WorkQueue::rate_limited(EntryIt it) {
  int& failures = it->second.failures;
  const DurationMs delay_ms = backoff_ms(failures);
  if (failures < 64) ++failures;
  WSIM_ASSERT_LE(delay_ms, kMaxDelayMs);
  WSIM_ASSERT_LE(failures, 64);  // The count saturates: backoff_ms's loop stays bounded.
  if (shut_down_) {
    release(it);
    return;
  }
  add_after_entry(it, delay_ms);
}

void WorkQueue::forget(const std::string& key) {
  WSIM_ASSERT(!key.empty());
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  it->second.failures = 0;
  release(it);
}

Task<std::optional<std::string>> WorkQueue::next() {
  while (order_.empty() && !shut_down_) co_await park_worker();
  if (shut_down_) co_return std::nullopt;
  const EntryIt it = order_.front();
  order_.pop_front();
  Entry& e = it->second;
  WSIM_ASSERT(e.queued);
  WSIM_ASSERT(!e.processing);
  e.queued = false;
  e.processing = true;
  // The key handed out is processing, no longer queued: the FIFO is now smaller than the map.
  WSIM_ASSERT_LT(order_.size(), entries_.size());
  co_return it->first;
}

void WorkQueue::done(const std::string& key) {
  auto it = entries_.find(key);
  WSIM_ASSERT_MSG(it != entries_.end() && it->second.processing,
                  "done() for a key not being processed: " << key);
  done_entry(it);
}

void WorkQueue::done_entry(EntryIt it) {
  Entry& e = it->second;
  WSIM_ASSERT(e.processing);
  e.processing = false;
  if (e.dirty) {
    e.dirty = false;
    if (!shut_down_) add_entry(it);
  }
  release(it);
}

void WorkQueue::finish(const std::string& key, const ReconcileResult& result) {
  WSIM_ASSERT_GE(result.requeue_after_ms, 0);
  auto it = entries_.find(key);
  WSIM_ASSERT_MSG(it != entries_.end() && it->second.processing,
                  "finish() for a key not being processed: " << key);
  if (result.error || (result.requeue && result.requeue_after_ms == 0)) {
    rate_limited(it);
  } else {
    it->second.failures = 0;  // forget()
    if (result.requeue_after_ms > 0 && !shut_down_) add_after_entry(it, result.requeue_after_ms);
  }
  done_entry(it);
}

void WorkQueue::shutdown() {
  shut_down_ = true;
  std::deque<Waiter> waiters = std::move(waiters_);
  waiters_.clear();
  for (const Waiter& waiter : waiters) sim_.loop().wake(waiter.ticket);
}

}  // namespace wsim::gitpod
