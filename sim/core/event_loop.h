// EventLoop: one thread, virtual time, events ordered by (due time, sequence number).
//
// Two kinds of events: callbacks (a controller step, an API server applying a request) and actor
// wake-ups (a coroutine resuming after a timer, a response or a signal). Ties break FIFO by
// sequence number, so the order is a pure function of the calls made — deterministic.
//
// Priority ties (issue #12 item 3; PCT, Burckhardt et al., "A randomized scheduler with
// probabilistic guarantees of finding bugs", ASPLOS 2010) [invented as applied here]: after
// use_priority_ties(), every actor gets a random rank at spawn, and among events due at the same
// virtual time the actor wake-up with the lowest rank runs first. At each change point (a virtual
// time), the actor that runs the first event at or after it is demoted below every other actor.
// Callbacks keep rank 0 and stay FIFO among themselves: API requests, watch deliveries and timers
// of the fake world are ordered as Kubernetes orders them (a watch delivers in resourceVersion
// order); only goroutine-like actors race. An event keeps the rank its actor had when it was
// queued. Without use_priority_ties() every rank is 0 and the order is FIFO, unchanged.
//
// Actors are root Task<void>s given to spawn(). Inside an actor, every co_await on a loop
// awaitable (sleep, yield, OneShot, Signal, Channel) is an interleaving point: other ready events
// run before the actor resumes. cancel() ends the actor at that point: every awaitable's
// await_resume starts with throw_if_cancelled(), so the actor's chain of frames unwinds from
// there, innermost locals first, and nothing after the interleaving point runs. A cancelled actor
// that had already started and is parked is not resumed to throw: its root frame is destroyed,
// which destroys the suspended chain in the very same order without an exception per frame
// (docs/performance.md §9; model code never catches Cancelled). One that never ran yet is resumed
// and throws at its first interleaving point, as before.
#pragma once

#include <coroutine>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/callback.h"
#include "sim/core/choice.h"
#include "sim/core/task.h"
#include "sim/core/time.h"

namespace wsim {

using ActorId = std::uint32_t;
inline constexpr ActorId kNoActor = 0;

// Identifies one suspension of one actor. A wake-up carrying a ticket that is no longer current
// (the actor was cancelled and resumed since) is dropped.
struct WakeTicket {
  ActorId actor = kNoActor;
  std::uint64_t token = 0;
  std::coroutine_handle<> handle;
};

class EventLoop {
 public:
  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  TimeMs now_ms() const { return now_ms_; }
  // The clock itself, for readers that must see virtual time without a loop (Faults incidents).
  const TimeMs* now_ms_clock() const { return &now_ms_; }

  // Starts `task` as an actor at the current time, after events already due now (FIFO).
  ActorId spawn(std::string name, Task<void> task);
  // Actors spawned under one of `names` never run: spawn destroys their task unstarted and returns
  // the id of an actor that already finished (alive() false). Shrinking mutes an external actor
  // this way (a scenario's muted_actors, docs/shrinking.md "Muting actors"). Before any spawn.
  void set_muted(std::set<std::string, std::less<>> names);
  std::uint64_t muted_spawns() const { return muted_spawns_; }
  // The actor throws Cancelled at its current (if suspended) or next interleaving point.
  // No-op for actors that already finished.
  void cancel(ActorId actor);
  bool alive(ActorId actor) const;
  // "-" for kNoActor and for an actor that finished (its slot is freed).
  const std::string& actor_name(ActorId actor) const;
  // With numbered keys on: "NAME#N", the N-th actor spawned under its name (from 0), so the calls
  // a user's loop spawns under the user's name are told apart in spawn order; else the name.
  // Choice keys (ChoiceSource::set_key_source): each actor's draws stay its own when shrinking
  // mutes another actor. Off by default (a map lookup per spawn); before any spawn.
  const std::string& actor_key(ActorId actor) const;
  void set_numbered_keys(bool on);
  // The actor being resumed right now, or kNoActor inside a callback.
  ActorId current_actor() const { return current_; }

  // Runs `callback` at now + delay_ms (delay_ms >= 0), outside any actor. Any `void()` callable
  // converts to a Callback (small captures are stored without an allocation, callback.h).
  void schedule(DurationMs delay_ms, Callback callback);

  // Awaitable: resumes the current actor delay_ms later (delay_ms >= 0).
  auto sleep(DurationMs delay_ms) {
    WSIM_ASSERT_GE(delay_ms, 0);
    struct Awaiter {
      EventLoop* loop;
      DurationMs delay_ms;
      bool await_ready() noexcept { return false; }
      void await_suspend(std::coroutine_handle<> handle) {
        loop->wake_at(loop->park(handle), loop->now_ms_ + delay_ms);
      }
      void await_resume() { loop->throw_if_cancelled(); }
    };
    return Awaiter{this, delay_ms};
  }
  // Awaitable: lets every other event due now run first.
  auto yield() { return sleep(0); }

  // Low-level API for awaitables (OneShot, Signal, Channel): record that the current actor
  // suspends at `handle`; later call wake() (or wake_at) exactly once with the ticket.
  WakeTicket park(std::coroutine_handle<> handle);
  void wake(const WakeTicket& ticket) { wake_at(ticket, now_ms_); }
  void wake_at(const WakeTicket& ticket, TimeMs due_ms);
  // Called from await_resume of every awaitable.
  void throw_if_cancelled() const;

  // Runs the next event. Returns false when there is none.
  bool step();
  // Runs every event due at or before `until_ms`, then advances the clock to `until_ms`.
  void run_until(TimeMs until_ms);
  // Runs events until none is left or the next one is due after `limit_ms`.
  void run_until_idle(TimeMs limit_ms);
  // Stops run_until/run_until_idle after the current event (e.g. a safety violation).
  void request_stop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

  // Switches tie-breaking to priorities (see the top of this file), before any spawn. `ranks`
  // draws each actor's rank; `change_points_ms` must be ascending.
  void use_priority_ties(ChoiceStream ranks, std::vector<TimeMs> change_points_ms);
  bool priority_ties() const { return priority_ties_; }

  // Called after every event (safety invariants, trace flushing). May call request_stop().
  void set_after_event(std::function<void()> hook) { after_event_ = std::move(hook); }

  std::uint64_t events_processed() const { return events_processed_; }
  std::size_t pending_events() const { return queue_.size(); }
  std::size_t live_actors() const { return live_actors_; }
  // Running hash of the sequence of (time, actor, kind) of every event run.
  std::uint64_t schedule_hash() const { return schedule_hash_; }

 private:
  struct Actor {
    std::string name;
    std::string key;  // "NAME#N" with numbered keys, else empty (actor_key gives the name).
    Task<void> root;
    bool cancelled = false;
    bool done = false;
    bool started = false;               // Resumed at least once (its body has run).
    std::uint64_t token = 0;            // Current suspension; bumped on every park and cancel.
    std::coroutine_handle<> suspended;  // Where the actor is parked, if it is.
  };
  // Trivially copyable, so heap moves are cheap: a callback lives in callbacks_[callback_slot].
  struct Event {
    TimeMs due_ms;
    std::uint64_t seq;
    ActorId actor;  // kNoActor for callbacks.
    std::uint64_t token;
    std::coroutine_handle<> handle;
    std::uint32_t callback_slot;  // Callbacks only.
    std::uint32_t rank;           // 0 for callbacks and without priority ties.
  };
  static_assert(std::is_trivially_copyable_v<Event>);
  // The run order: (due_ms, rank, seq), seq unique, so a strict total order: any exact priority
  // queue pops the very same sequence.
  static bool before(const Event& a, const Event& b) {
    WSIM_ASSERT_NE(a.seq, b.seq);  // Unique, or the order would not be total.
    if (a.due_ms != b.due_ms) return a.due_ms < b.due_ms;
    return a.rank != b.rank ? a.rank < b.rank : a.seq < b.seq;
  }
  // The pending events in before() order (issue 13: the std::priority_queue was a fifth of a
  // Gitpod run). Events pushed due at the push's current time with rank 0 (callbacks, wake-ups
  // without priority ties: most of them) go to a FIFO, already in order (same due time, rising
  // seq); the rest to a 4-ary min-heap (half the depth of a binary heap, children in one cache
  // line). top() is the earlier of the two heads.
  class Queue {
   public:
    void push(const Event& event, TimeMs now_ms);
    const Event& top() const {
      WSIM_ASSERT(!empty());
      return fifo_first() ? fifo_[fifo_head_] : heap_.front();
    }
    void pop();
    bool empty() const { return heap_.empty() && fifo_head_ == fifo_.size(); }
    std::size_t size() const { return heap_.size() + (fifo_.size() - fifo_head_); }
    void clear();

   private:
    bool fifo_first() const {
      WSIM_ASSERT_LE(fifo_head_, fifo_.size());
      if (fifo_head_ == fifo_.size()) return false;
      return heap_.empty() || before(fifo_[fifo_head_], heap_.front());
    }
    void heap_push(const Event& event);
    void heap_pop();
    std::vector<Event> heap_;
    std::vector<Event> fifo_;  // [fifo_head_, end) pending; reset when drained.
    std::size_t fifo_head_ = 0;
  };

  void run_event(Event& event);
  void resume_actor(ActorId id, std::coroutine_handle<> handle);
  // Ends the actor and frees its slot (actors_[id] becomes null; its id is never reused).
  void finish_actor(ActorId id);
  // Ends a cancelled, started, parked actor by destroying its root frame (see the top).
  void finish_cancelled(ActorId id);
  Actor& actor_ref(ActorId id);
  void mix_hash(std::uint64_t value);
  // Priority ties: demotes the actor of `event` if a change point has passed.
  void pass_change_point(const Event& event);

  TimeMs now_ms_ = 0;
  std::uint64_t next_seq_ = 0;
  Queue queue_;
  std::vector<Callback> callbacks_;        // Slots of pending callbacks.
  std::vector<std::uint32_t> free_slots_;  // Reused last-in first-out (deterministic).
  // Index = ActorId; [0] unused; null once the actor finished (alive() false, name "-").
  std::vector<std::unique_ptr<Actor>> actors_;
  // Index = ActorId: priority-ties rank (lower runs first among equal due times; 0 without
  // priority ties), kept after the actor finished for its late wake-ups.
  std::vector<std::uint32_t> ranks_;
  ActorId current_ = kNoActor;
  std::size_t live_actors_ = 0;
  std::uint64_t events_processed_ = 0;
  std::uint64_t schedule_hash_ = 0xcbf29ce484222325ULL;
  bool stop_requested_ = false;
  std::function<void()> after_event_;
  bool priority_ties_ = false;
  ChoiceStream rank_stream_;
  std::vector<TimeMs> change_points_ms_;
  std::size_t change_points_passed_ = 0;
  std::set<std::string, std::less<>> muted_;
  bool numbered_keys_ = false;
  std::map<std::string, std::uint32_t, std::less<>> spawns_by_name_;
  std::uint64_t muted_spawns_ = 0;
};

// The per-event helpers below run several times per event; they are defined here so that every
// caller inlines them (docs/performance.md §13).

inline void EventLoop::throw_if_cancelled() const {
  if (current_ == kNoActor) return;
  WSIM_ASSERT_LT(current_, actors_.size());
  WSIM_ASSERT(actors_[current_] != nullptr);  // The running actor's slot is freed only at its end.
  if (actors_[current_]->cancelled) throw Cancelled{};
}

inline EventLoop::Actor& EventLoop::actor_ref(ActorId id) {
  WSIM_ASSERT_NE(id, kNoActor);
  WSIM_ASSERT_LT(id, actors_.size());
  WSIM_ASSERT(actors_[id] != nullptr);
  return *actors_[id];
}

inline void EventLoop::mix_hash(std::uint64_t value) {
  WSIM_ASSERT_GE(now_ms_, 0);
  schedule_hash_ ^= value;
  schedule_hash_ *= 0x100000001b3ULL;
  schedule_hash_ ^= schedule_hash_ >> 29;
}

}  // namespace wsim
