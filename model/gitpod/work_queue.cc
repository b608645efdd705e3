// Upstream: see work_queue.h (client-go workqueue, controller-runtime reconcileHandler).
#include "model/gitpod/work_queue.h"

#include "sim/core/assert.h"

namespace wsim::gitpod {

WorkQueue::WorkQueue(Sim& sim) : sim_(sim), alive_(std::make_shared<bool>(true)) {}

WorkQueue::~WorkQueue() { *alive_ = false; }

WorkQueue::KeyState* WorkQueue::state_of(const std::string& key) {
  auto it = keys_.find(key);
  return it == keys_.end() ? nullptr : &it->second;
}

const WorkQueue::KeyState* WorkQueue::state_of(const std::string& key) const {
  auto it = keys_.find(key);
  return it == keys_.end() ? nullptr : &it->second;
}

WorkQueue::KeyState& WorkQueue::state_for(const std::string& key) {
  auto it = keys_.lower_bound(key);
  if (it == keys_.end() || it->first != key) it = keys_.emplace_hint(it, key, KeyState{});
  return it->second;
}

void WorkQueue::erase_if_idle(const std::string& key) {
  auto it = keys_.find(key);
  if (it != keys_.end() && it->second.idle()) keys_.erase(it);
}

void WorkQueue::add(const std::string& key) {
  WSIM_ASSERT(!key.empty());
  if (shut_down_) return;
  KeyState& state = state_for(key);
  if (state.processing) {
    state.dirty = true;
    return;
  }
  if (state.queued) return;
  state.queued = true;
  ++queued_count_;
  order_.push_back(key);
  WSIM_ASSERT_EQ(order_.size(), queued_count_);
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
  const KeyState* state = state_of(key);
  const int failures = state == nullptr ? 0 : state->failures;
  DurationMs delay_ms = kBaseDelayMs;
  for (int i = 0; i < failures && delay_ms < kMaxDelayMs; ++i) delay_ms *= 2;
  return delay_ms < kMaxDelayMs ? delay_ms : kMaxDelayMs;
}

void WorkQueue::add_rate_limited(const std::string& key) {
  const DurationMs delay_ms = next_backoff_ms(key);
  int& failures = state_for(key).failures;
  if (failures < 64) ++failures;
  WSIM_ASSERT_LE(delay_ms, kMaxDelayMs);
  add_after(key, delay_ms);
}

void WorkQueue::forget(const std::string& key) {
  KeyState* state = state_of(key);
  if (state == nullptr) return;
  state->failures = 0;
  erase_if_idle(key);
}

Task<std::optional<std::string>> WorkQueue::next() {
  while (order_.empty() && !shut_down_) co_await park_worker();
  if (shut_down_) co_return std::nullopt;
  std::string key = std::move(order_.front());
  order_.pop_front();
  KeyState* state = state_of(key);
  WSIM_ASSERT(state != nullptr && state->queued && !state->processing);
  state->queued = false;
  --queued_count_;
  state->processing = true;
  co_return key;
}

void WorkQueue::done(const std::string& key) {
  KeyState* state = state_of(key);
  WSIM_ASSERT_MSG(state != nullptr && state->processing,
                  "done() for a key not being processed: " << key);
  state->processing = false;
  if (state->dirty) {
    state->dirty = false;
    add(key);
  }
  erase_if_idle(key);
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
