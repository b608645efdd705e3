// EventLoop (event_loop.h): the pending-event queue (FIFO plus 4-ary heap), actor bookkeeping
// (spawn, park, wake, cancel, finish) and priority-tie change points.
#include "sim/core/event_loop.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "sim/core/assert.h"

namespace wsim {

namespace {

// The bound on pending events (STYLE.md §7 "put a limit on everything"): a run with more has a
// runaway actor or timer, a harness bug.
constexpr std::size_t kQueuedEventsMax = std::size_t{1} << 22;
// Priority ties: initial ranks are 1..kRanks; a demoted actor gets kDemotedRank + its change
// point's index, below every initial rank (PCT's d - i, in ascending order).
constexpr std::uint32_t kRanks = 1u << 16;
constexpr std::uint32_t kDemotedRank = 1u << 20;
constexpr std::size_t kChangePointsMax = 16;

// Every event enters the queue here: never in the past, never past the bound.
template <typename Queue, typename Event>
void enqueue(Queue& queue, const Event& event, TimeMs now_ms) {
  WSIM_ASSERT_GE(event.due_ms, now_ms);
  WSIM_ASSERT_LT(queue.size(), kQueuedEventsMax);
  queue.push(event, now_ms);
}

constexpr std::size_t kArity = 4;

}  // namespace

void EventLoop::Queue::push(const Event& event, TimeMs now_ms) {
  WSIM_ASSERT_LE(fifo_head_, fifo_.size());
  // FIFO only while it stays sorted: same due time as its tail, rank 0, rising seq.
  const bool fifo_ok = event.due_ms == now_ms && event.rank == 0 &&
                       (fifo_head_ == fifo_.size() ||
                        (fifo_.back().due_ms == event.due_ms && fifo_.back().seq < event.seq));
  if (!fifo_ok) {
    heap_push(event);
    return;
  }
  if (fifo_head_ == fifo_.size()) {
    fifo_.clear();
    fifo_head_ = 0;
  }
  fifo_.push_back(event);
  // The FIFO stays sorted: its head is due no later than the event just appended (O(1)).
  WSIM_ASSERT_LE(fifo_[fifo_head_].due_ms, event.due_ms);
}

void EventLoop::Queue::pop() {
  WSIM_ASSERT(!empty());
  if (!fifo_first()) {
    heap_pop();
    return;
  }
  ++fifo_head_;
  if (fifo_head_ == fifo_.size()) {
    fifo_.clear();
    fifo_head_ = 0;
  }
  WSIM_ASSERT_LE(fifo_head_, fifo_.size());
}

void EventLoop::Queue::clear() {
  heap_.clear();
  fifo_.clear();
  fifo_head_ = 0;
}

void EventLoop::Queue::heap_push(const Event& event) {
  std::size_t i = heap_.size();
  heap_.push_back(event);
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!before(event, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = event;
  // The heap property where the event landed (O(1): the rest of the path was already ordered).
  if (i > 0) WSIM_ASSERT(!before(heap_[i], heap_[(i - 1) / kArity]));
}

void EventLoop::Queue::heap_pop() {
  WSIM_ASSERT(!heap_.empty());
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return;
  std::size_t i = 0;
  while (true) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t end = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < end; ++c) {
      if (before(heap_[c], heap_[best])) best = c;
    }
    if (!before(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
  if (i > 0) WSIM_ASSERT(!before(heap_[i], heap_[(i - 1) / kArity]));
}

EventLoop::EventLoop() {
  actors_.push_back(nullptr);
  ranks_.push_back(0);
}

EventLoop::~EventLoop() {
  WSIM_ASSERT_EQ(current_, kNoActor);  // Never destroyed from inside one of its actors.
  // Destroy actor frames before the queue so no frame outlives the loop it points to.
  queue_.clear();
  callbacks_.clear();
  actors_.clear();
}

void EventLoop::set_numbered_keys(bool on) {
  WSIM_ASSERT_EQ(actors_.size(), 1u);  // Only the unused slot 0: nothing spawned yet.
  numbered_keys_ = on;
}

const std::string& EventLoop::actor_key(ActorId id) const {
  if (id == kNoActor || id >= actors_.size() || !actors_[id]) return actor_name(id);
  WSIM_ASSERT(!actors_[id]->name.empty());  // Paired with spawn(); a key extends the name.
  return actors_[id]->key.empty() ? actors_[id]->name : actors_[id]->key;
}

void EventLoop::set_muted(std::set<std::string, std::less<>> names) {
  WSIM_ASSERT_EQ(actors_.size(), 1u);  // Only the unused slot 0: nothing spawned yet.
  for (const std::string& name : names) WSIM_ASSERT(!name.empty());  // Matched to spawn names.
  muted_ = std::move(names);
}

ActorId EventLoop::spawn(std::string name, Task<void> task) {
  WSIM_ASSERT(task.handle());
  WSIM_ASSERT_MSG(!name.empty(), "an actor needs a name (traces and choice keys use it)");
  const auto id = static_cast<ActorId>(actors_.size());
  if (!muted_.empty() && muted_.contains(name)) {
    // Finished before it started: a null slot, like an actor that ran to its end. No rank is
    // drawn, so a muted actor consumes no choice. The task dies unstarted with `task`.
    actors_.push_back(nullptr);
    ranks_.push_back(0);
    ++muted_spawns_;
    WSIM_ASSERT_EQ(ranks_.size(), actors_.size());
    return id;
  }
  auto actor = std::make_unique<Actor>();
  if (numbered_keys_) {
    std::uint32_t& spawned = spawns_by_name_[name];
    actor->key = name + "#" + std::to_string(spawned++);
  }
  actor->name = std::move(name);
  actor->root = std::move(task);
  const std::coroutine_handle<> start = actor->root.handle();
  actors_.push_back(std::move(actor));
  ranks_.push_back(0);
  ++live_actors_;
  Actor& ref = *actors_.back();
  ref.suspended = start;
  if (priority_ties_) ranks_[id] = 1 + static_cast<std::uint32_t>(rank_stream_.below(kRanks));
  enqueue(queue_, Event{now_ms_, next_seq_++, id, ref.token, start, 0, ranks_[id]}, now_ms_);
  WSIM_ASSERT_EQ(actors_.size(), static_cast<std::size_t>(id) + 1);
  WSIM_ASSERT_LT(live_actors_, actors_.size());  // Slot 0 is never an actor.
  WSIM_ASSERT_EQ(ranks_.size(), actors_.size());
  return id;
}

void EventLoop::cancel(ActorId id) {
  WSIM_ASSERT_NE(id, kNoActor);
  WSIM_ASSERT_LT(id, actors_.size());
  WSIM_ASSERT_EQ(ranks_.size(), actors_.size());
  if (actors_[id] == nullptr) return;  // Finished (and freed).
  Actor& actor = actor_ref(id);
  if (actor.done || actor.cancelled) return;
  actor.cancelled = true;
  if (actor.suspended && id != current_) {
    // Resume it now with a fresh token; stale wake-ups for the old suspension are dropped.
    enqueue(queue_, Event{now_ms_, next_seq_++, id, ++actor.token, actor.suspended, 0, ranks_[id]},
            now_ms_);
  }
}

bool EventLoop::alive(ActorId id) const {
  WSIM_ASSERT_LE(live_actors_, actors_.size());
  return id != kNoActor && id < actors_.size() && actors_[id] && !actors_[id]->done;
}

const std::string& EventLoop::actor_name(ActorId id) const {
  static const std::string kNone = "-";
  if (id == kNoActor || id >= actors_.size() || !actors_[id]) return kNone;
  WSIM_ASSERT(!actors_[id]->name.empty());  // Paired with spawn().
  return actors_[id]->name;
}

void EventLoop::schedule(DurationMs delay_ms, Callback callback) {
  WSIM_ASSERT_GE(delay_ms, 0);
  WSIM_ASSERT_LE(free_slots_.size(), callbacks_.size());
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(callbacks_.size());
    callbacks_.push_back(std::move(callback));
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    WSIM_ASSERT_LT(slot, callbacks_.size());
    WSIM_ASSERT(callbacks_[slot] == nullptr);
    callbacks_[slot] = std::move(callback);
  }
  WSIM_ASSERT(callbacks_[slot] != nullptr);
  enqueue(queue_, Event{now_ms_ + delay_ms, next_seq_++, kNoActor, 0, {}, slot, 0}, now_ms_);
}

WakeTicket EventLoop::park(std::coroutine_handle<> handle) {
  WSIM_ASSERT_MSG(current_ != kNoActor, "an awaitable was suspended outside of an actor");
  WSIM_ASSERT(handle);
  Actor& actor = actor_ref(current_);
  WSIM_ASSERT(!actor.done);
  actor.suspended = handle;
  return WakeTicket{current_, ++actor.token, handle};
}

void EventLoop::wake_at(const WakeTicket& ticket, TimeMs due_ms) {
  WSIM_ASSERT(ticket.actor != kNoActor);
  WSIM_ASSERT_GE(due_ms, now_ms_);
  WSIM_ASSERT(ticket.handle);
  WSIM_ASSERT_GT(ticket.token, 0u);  // From park(), which bumps the token from 0.
  // Without priority ties every rank is 0: no actor lookup on this hot path.
  // A finished actor's rank outlives it (ranks_): a late wake-up for it is dropped when it runs,
  // but it takes its place among same-time events (and may pass a change point) as it did.
  WSIM_ASSERT_LT(ticket.actor, ranks_.size());
  const std::uint32_t rank = priority_ties_ ? ranks_[ticket.actor] : 0;
  enqueue(queue_, Event{due_ms, next_seq_++, ticket.actor, ticket.token, ticket.handle, 0, rank},
          now_ms_);
}

bool EventLoop::step() {
  WSIM_ASSERT_EQ(current_, kNoActor);  // Not reentrant: an actor never steps its own loop.
  if (queue_.empty()) return false;
  Event event = queue_.top();
  const std::size_t pending_before = queue_.size();
  queue_.pop();
  WSIM_ASSERT_EQ(queue_.size() + 1, pending_before);
  WSIM_ASSERT_GE(event.due_ms, now_ms_);
  now_ms_ = event.due_ms;
  assert_context().now_ms = now_ms_;
  if (priority_ties_) pass_change_point(event);
  run_event(event);
  ++events_processed_;
  if (after_event_) after_event_();
  return true;
}

void EventLoop::run_until(TimeMs until_ms) {
  WSIM_ASSERT_GE(until_ms, 0);
  while (!stop_requested_ && !queue_.empty() && queue_.top().due_ms <= until_ms) step();
  if (!stop_requested_ && !queue_.empty()) WSIM_ASSERT_GT(queue_.top().due_ms, until_ms);
  if (!stop_requested_ && now_ms_ < until_ms) {
    now_ms_ = until_ms;
    assert_context().now_ms = now_ms_;
  }
}

void EventLoop::run_until_idle(TimeMs limit_ms) {
  WSIM_ASSERT_GE(limit_ms, 0);
  while (!stop_requested_ && !queue_.empty() && queue_.top().due_ms <= limit_ms) step();
  if (!stop_requested_ && !queue_.empty()) WSIM_ASSERT_GT(queue_.top().due_ms, limit_ms);
}

void EventLoop::run_event(Event& event) {
  WSIM_ASSERT_EQ(event.due_ms, now_ms_);  // step() moved the clock to it.
  if (event.actor == kNoActor) {
    WSIM_ASSERT_EQ(event.rank, 0u);  // Callbacks never race by rank (see the top of the header).
    mix_hash(static_cast<std::uint64_t>(event.due_ms) * 2);
    // Moved out and the slot freed first: the callback may schedule more (and grow callbacks_).
    WSIM_ASSERT_LT(event.callback_slot, callbacks_.size());
    Callback callback = std::move(callbacks_[event.callback_slot]);
    WSIM_ASSERT(callback != nullptr);
    callbacks_[event.callback_slot] = nullptr;
    free_slots_.push_back(event.callback_slot);
    callback();
    return;
  }
  WSIM_ASSERT_LT(event.actor, actors_.size());
  if (actors_[event.actor] == nullptr) return;  // Stale wake-up of a finished (freed) actor.
  Actor& actor = actor_ref(event.actor);
  if (actor.done || event.token != actor.token) return;  // Stale wake-up.
  WSIM_ASSERT(event.handle);
  mix_hash(static_cast<std::uint64_t>(event.due_ms) * 2 + 1);
  mix_hash(event.actor);
  if (actor.cancelled && actor.started) {
    finish_cancelled(event.actor);
    return;
  }
  resume_actor(event.actor, event.handle);
}

void EventLoop::resume_actor(ActorId id, std::coroutine_handle<> handle) {
  WSIM_ASSERT(handle);
  Actor& actor = actor_ref(id);
  WSIM_ASSERT(!actor.done);
  actor.suspended = {};
  actor.started = true;
  const ActorId previous = current_;
  current_ = id;
  handle.resume();
  WSIM_ASSERT_EQ(current_, id);  // Nested resumptions restored it.
  current_ = previous;
  // An actor that did not end is parked at a loop awaitable (park()), or nothing would wake it.
  if (!actor.root.done()) WSIM_ASSERT(actor.suspended);
  if (actor.root.done()) finish_actor(id);
}

void EventLoop::finish_actor(ActorId id) {
  Actor& actor = actor_ref(id);
  WSIM_ASSERT(!actor.done);
  WSIM_ASSERT(actor.root.done());
  WSIM_ASSERT(!actor.suspended);  // A finished body is parked nowhere.
  WSIM_ASSERT_GT(live_actors_, 0u);
  actor.done = true;
  --live_actors_;
  std::exception_ptr error = actor.root.handle().promise().error;
  actor.root = Task<void>();  // Free the frame.
  if (!error) {
    actors_[id].reset();
    return;
  }
  try {
    std::rethrow_exception(error);
  } catch (const Cancelled&) {
    // Normal end of a cancelled actor.
  } catch (const std::exception& e) {
    WSIM_ASSERT_MSG(false, "actor '" << actor.name << "' ended with an exception: " << e.what());
  } catch (...) {
    WSIM_ASSERT_MSG(false, "actor '" << actor.name << "' ended with an unknown exception");
  }
  // Its id stays taken (ids are part of the schedule hash); the slot's memory is freed, so a run
  // does not keep every actor it ever spawned (issue 13: memory grows with live work, not length).
  actors_[id].reset();
}

// Resuming would throw Cancelled in the innermost frame's await_resume and rethrow it once per
// frame of the chain (libgcc's unwinder: 2-6 % of a run, docs/performance.md §9). Destroying the
// root frame destroys the Task temporary it is suspended on first, hence the child's frame and
// recursively the innermost frame's locals first, then each frame's own, outwards: the order the
// unwinding ran them in. Destructors run as the actor (current_), as they did while unwinding.
void EventLoop::finish_cancelled(ActorId id) {
  Actor& actor = actor_ref(id);
  WSIM_ASSERT(actor.cancelled);
  WSIM_ASSERT(actor.started);
  WSIM_ASSERT(!actor.done);
  WSIM_ASSERT_GT(live_actors_, 0u);
  actor.suspended = {};
  const ActorId previous = current_;
  current_ = id;
  Task<void> root = std::move(actor.root);
  root = Task<void>();  // Destroys the suspended chain; the actor is alive meanwhile, as before.
  current_ = previous;
  actor.done = true;
  --live_actors_;
  actors_[id].reset();
}

void EventLoop::use_priority_ties(ChoiceStream ranks, std::vector<TimeMs> change_points_ms) {
  WSIM_ASSERT_MSG(actors_.size() == 1, "use_priority_ties() after an actor was spawned");
  WSIM_ASSERT(!priority_ties_);  // Once per run.
  WSIM_ASSERT_LE(change_points_ms.size(), kChangePointsMax);
  WSIM_ASSERT(std::is_sorted(change_points_ms.begin(), change_points_ms.end()));
  priority_ties_ = true;
  rank_stream_ = ranks;
  change_points_ms_ = std::move(change_points_ms);
  change_points_passed_ = 0;
}

void EventLoop::pass_change_point(const Event& event) {
  WSIM_ASSERT(priority_ties_);
  if (event.actor == kNoActor || change_points_passed_ >= change_points_ms_.size()) return;
  if (event.due_ms < change_points_ms_[change_points_passed_]) return;
  // Every change point already passed counts once: a quiet stretch may pass several.
  while (change_points_passed_ < change_points_ms_.size() &&
         change_points_ms_[change_points_passed_] <= event.due_ms) {
    ++change_points_passed_;
  }
  WSIM_ASSERT_LT(event.actor, actors_.size());
  // A finished actor's demotion changes nothing but its ranks_ entry, as before it was freed.
  ranks_[event.actor] = kDemotedRank + static_cast<std::uint32_t>(change_points_passed_);
  WSIM_ASSERT_GT(ranks_[event.actor], kRanks);
}

}  // namespace wsim
