// EventPool (event_pool.h): workpool.EventWorkerPool on the event loop.
#include "model/gitpod/mk1/event_pool.h"

#include "sim/core/assert.h"

namespace wsim::gitpod::mk1 {

void EventPool::add(MonitorEvent event) {
  WSIM_ASSERT(!event.queue.empty());
  if (shut_down_) return;
  journal_.push_back(std::move(event));
  ready_.notify_all();
}

Task<std::optional<MonitorEvent>> EventPool::next() {
  while (true) {
    if (shut_down_) co_return std::nullopt;
    for (auto it = journal_.begin(); it != journal_.end(); ++it) {
      if (busy_.count(it->queue) > 0) continue;
      MonitorEvent event = std::move(*it);
      journal_.erase(it);
      WSIM_ASSERT(!event.queue.empty());  // Paired with add().
      WSIM_ASSERT(busy_.insert(event.queue).second);
      co_return event;
    }
    co_await ready_.wait();
  }
}

void EventPool::done(const std::string& queue) {
  WSIM_ASSERT_MSG(busy_.erase(queue) == 1, "done() for a queue not being worked on: " << queue);
  ready_.notify_all();
}

void EventPool::shutdown() {
  shut_down_ = true;
  ready_.notify_all();
}

}  // namespace wsim::gitpod::mk1
