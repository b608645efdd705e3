// World's lockstep mode (world.h invariant 4): `wsim serve --scenario` runs a scenario's world
// with an external process as the reconciler; virtual time moves to the next event only when
// the external process is quiet. See serve/README.md "Lockstep".
#include <algorithm>
#include <chrono>
#include <optional>
#include "sim/core/assert.h"

#include "serve/world.h"

namespace wsim::serve {
namespace {

std::int64_t steady_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

std::int64_t steady_ms() { return steady_us() / 1000; }

}  // namespace

void World::enter_lockstep(LockstepOptions options) {
  WSIM_ASSERT(api_ != nullptr && !lockstep_);
  sim_lock_ = std::unique_lock<std::mutex>(mutex_);
  sim_thread_ = std::this_thread::get_id();
  lockstep_options_ = std::move(options);
  lockstep_ = true;
}

void World::leave_lockstep() {
  if (!lockstep_ || !sim_lock_.owns_lock()) return;
  closed_ = true;
  changed_.notify_all();
  sim_lock_.unlock();
}

std::uint64_t World::open_watch(const std::string& kind, const std::string& namespace_) {
  Guard lock(*this);
  const std::uint64_t id = next_watch_id_++;
  watches_[id] = WatchSlot{kind, namespace_, 0, false, false};
  ++stats_.watches_opened;
  ++activity_;
  changed_.notify_all();
  return id;
}

void World::close_watch(std::uint64_t id) {
  Guard lock(*this);
  watches_.erase(id);
  ++activity_;
  changed_.notify_all();
}

std::size_t World::open_watches() {
  Guard lock(*this);
  return watches_.size();
}

bool World::deliverable(const LoggedEvent& event) const {
  if (!lockstep_) return true;
  return !holding_ && event.deliver_ms <= sim_->now_ms();
}

bool World::watch_flushed(const WatchSlot& slot) const {
  if (!slot.waiting || slot.expired) return false;
  auto first = std::upper_bound(
      history_.begin(), history_.end(), slot.cursor_rv,
      [](std::uint64_t rv, const LoggedEvent& event) { return rv < event.resource_version; });
  for (auto it = first; it != history_.end(); ++it) {
    if (it->object.kind != slot.kind) continue;
    if (!slot.namespace_.empty() && it->object.meta.namespace_ != slot.namespace_) continue;
    if (deliverable(*it)) return false;
  }
  return true;
}

bool World::settled() const {
  // Held answers are not out (hold_deliveries): the process cannot be waiting to read them.
  if (entered_.load() != submitted_ || (!holding_ && responses_out_ != 0)) return false;
  return std::all_of(watches_.begin(), watches_.end(),
                     [this](const auto& entry) { return watch_flushed(entry.second); });
}

// A process that waits for its virtual clock before it has opened its watches (a start-up
// delay) needs virtual time to move: it may start then too.
bool World::timer_pending() const {
  return lockstep_options_.timer_pending && lockstep_options_.timer_pending();
}

bool World::can_start() const {
  return ready_ || !queue_.empty() || in_simulation_ > 0 || timer_pending();
}

bool World::marks_may_end() const { return (ready_ || timer_pending()) && can_start(); }

bool World::submit(RequestTicket& ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed_) {
    ++submitted_;
    return false;
  }
  queue_.push_back(&ticket);
  ++submitted_;
  ++activity_;
  ++stats_.requests;
  changed_.notify_all();
  // Bounded: the simulation completes every ticket it took, and closes the world at its end.
  while ((!ticket.done || holding_) && !closed_) {
    changed_.wait_for(lock, std::chrono::seconds(1));
  }
  if (!ticket.done) return false;
  --responses_out_;
  ++activity_;
  changed_.notify_all();
  return true;
}

ProcessLook World::look(bool mark_wanted) {
  if (!lockstep_options_.look) return ProcessLook{};
  // Answers held back (hold_deliveries) are parked too: their HTTP threads wait in submit().
  return lockstep_options_.look(queue_.size() + in_simulation_ + (holding_ ? responses_out_ : 0),
                                mark_wanted);
}

// True when the process is as the last wait left it: asleep with the same digest (no thread of
// it ran since), or, when the wait ended without one (the quiet period, the bound), still
// without one and not busy. A shell that was between two kubectl calls when the wait ended
// (one exited, the next one starting) fails it, and sync() waits for it again.
bool World::process_unchanged() {
  if (!lockstep_options_.look) return true;
  ++stats_.looks;
  const ProcessLook now = look(false);
  const bool same =
      now.asleep ? now.asleep == asleep_after_wait_ : !asleep_after_wait_.has_value() && !now.busy;
  if (!same) ++stats_.rechecks;
  return same;
}

std::vector<RequestTicket*> World::sync() {
  WSIM_ASSERT(lockstep_ && sim_lock_.owns_lock());
  if (watches_.size() >= lockstep_options_.ready_watches) ready_ = true;
  if (!dirty_ && activity_ == synced_activity_ && queue_.empty() && settled() && can_start() &&
      process_unchanged()) {
    return {};
  }
  ++stats_.syncs;
  changed_.notify_all();
  const std::int64_t start = steady_ms();
  const std::int64_t start_us = steady_us();
  std::int64_t idle_since_us = 0;  // When the wait first found the world settled and idle.
  const bool was_ready = ready_;
  const std::int64_t bound =
      ready_ ? lockstep_options_.wait_max_ms : lockstep_options_.start_wait_max_ms;
  // The quiet period runs from the first of consecutive quiet polls (no activity, settled, not
  // busy) and needs two of them at least: under load one poll can take longer than the
  // period, and a single look may catch a process tree between two of its steps (a child
  // exited and reaped, the next one not yet forked).
  std::optional<std::int64_t> quiet_since;
  int quiet_polls = 0;
  std::uint64_t seen = activity_;
  // The previous poll's readiness mark (a plain pair: GCC 12 takes an optional for unset).
  bool has_last_mark = false;
  std::uint64_t last_mark = 0;
  const auto poll = std::chrono::microseconds(kReadyPollUs);
  // Look without sleeping first: when the world is settled already (the common case after an
  // event the process could see: the answer is out), the process may be idle now; and after a
  // first mark, the second look follows at once (world.h ProcessLook::ready). A request arriving
  // or an answer being taken wakes the condition variable; only a process busy on its own
  // (no activity to wait for) costs a poll interval.
  bool look_now = lockstep_options_.look_at_once && settled();
  while (true) {
    if (look_now) {
      // Let the HTTP threads take the mutex if they wait for it, without sleeping.
      sim_lock_.unlock();
      sim_lock_.lock();
    } else {
      changed_.wait_for(sim_lock_, poll);
    }
    look_now = false;
    const std::int64_t now = steady_ms();
    if (watches_.size() >= lockstep_options_.ready_watches) ready_ = true;
    // Activity or an unsettled world restarts the quiet period without a look at the process.
    const bool moved = activity_ != seen || !settled();
    const ProcessLook seen_now = moved ? ProcessLook{} : look(marks_may_end());
    if (!moved) ++stats_.polls;
    asleep_after_wait_ = seen_now.asleep;
    if (moved || seen_now.busy) {
      seen = activity_;
      quiet_since.reset();
      quiet_polls = 0;
      has_last_mark = false;
      idle_since_us = 0;
    } else {
      if (!quiet_since) quiet_since = steady_ms();  // After the look: the quiet poll's end.
      if (idle_since_us == 0) idle_since_us = steady_us();
      ++quiet_polls;
      if (marks_may_end()) {
        if (seen_now.ready && has_last_mark && *seen_now.ready == last_mark) {
          ++stats_.ready;
          break;
        }
        has_last_mark = seen_now.ready.has_value();
        last_mark = seen_now.ready.value_or(0);
        look_now = lockstep_options_.look_at_once && has_last_mark;
      }
    }
    if (quiet_since && quiet_polls >= 2 && now - *quiet_since >= lockstep_options_.quiet_ms &&
        can_start()) {
      break;
    }
    if (lockstep_options_.stop_waiting && lockstep_options_.stop_waiting()) break;
    if (now - start >= bound) {
      ++stats_.timeouts;
      break;
    }
  }
  stats_.wait_ms += steady_ms() - start;
  if (!was_ready) {
    stats_.start_wait_ms += steady_ms() - start;
  } else {
    const std::int64_t end_us = steady_us();
    const std::int64_t idle_us = idle_since_us == 0 ? end_us : idle_since_us;
    stats_.settle_us += idle_us - start_us;
    stats_.idle_us += end_us - idle_us;
  }
  dirty_ = false;
  synced_activity_ = activity_;
  std::vector<RequestTicket*> batch;
  batch.swap(queue_);
  std::stable_sort(batch.begin(), batch.end(),
                   [](const RequestTicket* a, const RequestTicket* b) { return a->key < b->key; });
  in_simulation_ += batch.size();
  return batch;
}

void World::complete(RequestTicket& ticket) {
  WSIM_ASSERT(lockstep_ && in_simulation_ > 0);
  ticket.done = true;
  --in_simulation_;
  ++responses_out_;
  dirty_ = true;
  changed_.notify_all();
}

void World::hold_deliveries(bool hold) {
  WSIM_ASSERT(lockstep_ && sim_lock_.owns_lock());
  holding_ = hold;
  if (!hold) changed_.notify_all();
}

void World::expire_watches() {
  for (auto& [id, slot] : watches_) slot.expired = true;
  changed_.notify_all();
}

}  // namespace wsim::serve
