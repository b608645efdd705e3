// Upstream: see work_queue.h (client-go workqueue, controller-runtime reconcileHandler).
#include "model/gitpod/work_queue.h"

#include "sim/core/assert.h"

namespace wsim::gitpod {

WorkQueue::WorkQueue(Sim& sim) : sim_(sim), alive_(std::make_shared<bool>(true)) {}

WorkQueue::~WorkQueue() { *alive_ = false; }

void WorkQueue::add(const std::string& key) {
  WSIM_ASSERT(!key.empty());
  if (shut_down_) return;
  if (processing_.count(key) > 0) {
    dirty_.insert(key);
    return;
  }
  if (!queued_.insert(key).second) return;
  order_.push_back(key);
  WSIM_ASSERT_EQ(order_.size(), queued_.size());
  wake_one();
}

void WorkQueue::wake_one() {
  while (!waiters_.empty()) {
    Waiter waiter = std::move(waiters_.front());
    waiters_.pop_front();
    if (!sim_.loop().alive(waiter.actor)) continue;
    sim_.loop().wake(waiter.ticket);
    return;
  }
}

void WorkQueue::add_after(const std::string& key, DurationMs delay_ms) {
  WSIM_ASSERT_GE(delay_ms, 0);
  if (shut_down_) return;
  if (delay_ms == 0) {
    add(key);
    return;
  }
  std::shared_ptr<bool> alive = alive_;
  sim_.loop().schedule(delay_ms, [this, alive, key] {
    if (*alive) add(key);
  });
}

DurationMs WorkQueue::next_backoff_ms(const std::string& key) const {
  auto it = failures_.find(key);
  const int failures = it == failures_.end() ? 0 : it->second;
  DurationMs delay_ms = kBaseDelayMs;
  for (int i = 0; i < failures && delay_ms < kMaxDelayMs; ++i) delay_ms *= 2;
  return delay_ms < kMaxDelayMs ? delay_ms : kMaxDelayMs;
}

void WorkQueue::add_rate_limited(const std::string& key) {
  const DurationMs delay_ms = next_backoff_ms(key);
  int& failures = failures_[key];
  if (failures < 64) ++failures;
  WSIM_ASSERT_LE(delay_ms, kMaxDelayMs);
  add_after(key, delay_ms);
}

void WorkQueue::forget(const std::string& key) { failures_.erase(key); }

Task<std::optional<std::string>> WorkQueue::next() {
  while (order_.empty() && !shut_down_) co_await park_worker();
  if (shut_down_) co_return std::nullopt;
  std::string key = std::move(order_.front());
  order_.pop_front();
  WSIM_ASSERT_EQ(queued_.erase(key), 1u);
  WSIM_ASSERT(processing_.insert(key).second);
  co_return key;
}

void WorkQueue::done(const std::string& key) {
  WSIM_ASSERT_MSG(processing_.erase(key) == 1, "done() for a key not being processed: " << key);
  if (dirty_.erase(key) > 0) add(key);
}

void WorkQueue::finish(const std::string& key, const ReconcileResult& result) {
  WSIM_ASSERT_GE(result.requeue_after_ms, 0);
  if (result.error || (result.requeue && result.requeue_after_ms == 0)) {
    add_rate_limited(key);
  } else if (result.requeue_after_ms > 0) {
    forget(key);
    add_after(key, result.requeue_after_ms);
  } else {
    forget(key);
  }
  done(key);
}

void WorkQueue::shutdown() {
  shut_down_ = true;
  std::deque<Waiter> waiters = std::move(waiters_);
  waiters_.clear();
  for (const Waiter& waiter : waiters) sim_.loop().wake(waiter.ticket);
}

}  // namespace wsim::gitpod
