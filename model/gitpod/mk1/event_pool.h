// mk1's event worker pool: components/ws-manager/pkg/manager/internal/workpool/workpool.go
// (EventWorkerPool) at 724ed7a92a^ (unchanged at c8c4c3bda92c).
//
// Contract (the upstream guarantees 1–3):
//  1. Every added event is handled exactly once, with the object it carried (no coalescing, no
//     re-read: two pod updates are two events, and a Deleted event carries the last pod).
//  2. Events of one queue (workspace instance id) are handed out strictly in order, one at a time:
//     the next one only after done(queue).
//  3. A busy queue does not block others: next() returns the oldest event of the journal whose
//     queue is free.
// Single-threaded, on the event loop; workers are actors calling next().
#pragma once

#include <deque>
#include <optional>
#include <set>
#include <string>

#include "sim/core/sim.h"
#include "sim/core/sync.h"
#include "sim/core/task.h"
#include "sim/kube/object.h"

namespace wsim::gitpod::mk1 {

struct MonitorEvent {
  enum class Kind { kPod, kConfigMap };
  MonitorEvent() = default;  // Not an aggregate (passed across co_await).
  MonitorEvent(std::string queue_, Kind kind_, bool deleted_, kube::Object object_)
      : queue(std::move(queue_)), kind(kind_), deleted(deleted_), object(std::move(object_)) {}
  std::string queue;  // The workspace instance id (gitpod/id annotation).
  Kind kind = Kind::kPod;
  bool deleted = false;  // watch.Deleted (pods only: the ConfigMap reconciler never sends one).
  kube::Object object;
};

class EventPool {
 public:
  explicit EventPool(Sim& sim) : ready_(sim.loop()) {}
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // REQUIRES: !event.queue.empty(). Ignored after shutdown().
  void add(MonitorEvent event);
  // The oldest event whose queue is free; its queue is busy until done(). nullopt after shutdown.
  Task<std::optional<MonitorEvent>> next();
  void done(const std::string& queue);
  void shutdown();

  std::size_t pending() const { return journal_.size(); }

 private:
  std::deque<MonitorEvent> journal_;
  std::set<std::string> busy_;
  Signal ready_;
  bool shut_down_ = false;
};

}  // namespace wsim::gitpod::mk1
