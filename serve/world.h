// World: what `wsim serve` serves — either a live sim/kube ApiServer (with its cluster and
// event loop), or a read-only snapshot of a replayed run at one moment. The HTTP layer
// (server.h) runs on the HTTP server's worker and stream threads; World serialises every access to
// sim/kube behind one mutex, so the simulation itself stays single-threaded, and keeps its own
// bounded log of changes for watches (410 Gone below its floor).
//
// Invariants:
//  1. Every call into sim/kube (reads, writes, advance) holds mutex_.
//  2. history_ is in strictly increasing resourceVersion order; floor_rv_ is the
//     resourceVersion of the last change dropped from it (a watch from below it is Gone).
//  3. A snapshot world never changes: writes answer kForbidden and its history ends at its
//     resourceVersion.
//  4. Lockstep (`wsim serve --scenario`, world_lockstep.cc): the simulation thread holds mutex_
//     from enter_lockstep() to leave_lockstep(), releasing it only while it waits in sync(); so
//     the HTTP threads see the world only between two events of the simulation, and every
//     request of the external process runs on the simulation thread (submit()).
//
// Threading: every public method is safe from any thread, except the ones marked "simulation
// thread".
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "serve/codec.h"
#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/object.h"

namespace wsim::serve {

struct LoggedEvent {
  std::uint64_t resource_version = 0;
  kube::WatchEventType type = kube::WatchEventType::kAdded;
  kube::Object object;  // The new state; for kDeleted the last one.
  // Lockstep: the virtual time from which watches may deliver it (a delayed watch delivery
  // fault pushes it later; per kind the times never decrease, so delivery stays in order).
  TimeMs deliver_ms = 0;
  // The state stored before the change (sim/kube ApiServer::subscribe, ListenAt::kInsideWrite);
  // null for kAdded or when not known. A watch with a selector decides ADDED / MODIFIED / DELETED
  // from it.
  std::shared_ptr<const kube::Object> previous;
};

// One request of the external process in lockstep (world_lockstep.cc): the HTTP thread fills
// it in and waits in submit(); the simulation runs it as a task (latency, faults) and calls
// execute() or fail() on the simulation thread, then complete().
struct RequestTicket {
  std::string key;     // Sort key within one batch (method, path, query, body): determinism.
  std::string actor;   // The client's name for the trace.
  std::string method;  // GET, POST, PUT, PATCH, DELETE.
  std::string verb;    // get, list, create, update, patch, delete (trace).
  std::string object;  // Kind/namespace/name or Kind/namespace (trace).
  std::function<int()> execute;         // Serves the request; returns the HTTP code.
  std::function<int(int code)> fail;    // Answers an error Status instead; returns `code`.
  std::function<std::string()> result;  // "201 Created"-like text of the answer (trace).
  bool done = false;                    // Guarded by the world's mutex.
};

// What LockstepOptions::look sees of the external process and the front-end.
struct ProcessLook {
  // The process is on a CPU or waiting for one, or the front-end holds a request not yet
  // parked or bytes unread: restarts the quiet period, so a slow or loaded process (or wsim's
  // own HTTP threads waiting for a CPU) is not taken for a quiet one.
  bool busy = false;
  // Fast lockstep (issue #33 item 2): a mark of the process and the front-end when both are
  // idle (every thread of the process tree asleep, no event-loop timer due within the quiet
  // period, nothing queued on its connections, no request in the HTTP layer but the parked
  // ones), nullopt when not (or in `--lockstep quiet`). Two equal marks on consecutive polls
  // (taken back to back: a thread that ran or was woken between them changes its switch-in
  // count or is runnable; no activity between) end a wait at once; otherwise the quiet period
  // does.
  std::optional<std::uint64_t> ready;
  // A digest of the process tree when every thread of it is asleep (timers or not), nullopt
  // when not. sync() keeps the last one a wait saw, and skips a later wait (nothing changed
  // that the process could see) only while the process still has that digest — or, when it had
  // none, while it is still not busy: a process that ran since the wait (a shell between two
  // kubectl calls, a wall-clock timer) is waited for again, not left behind by virtual time.
  std::optional<std::uint64_t> asleep;
};

// Bounds and knobs of lockstep sync().
struct LockstepOptions {
  std::int64_t quiet_ms = 30;              // Wall time with no activity before virtual time moves.
  std::int64_t wait_max_ms = 10000;        // Longest sync wait (a hung client): then time moves.
  std::int64_t start_wait_max_ms = 60000;  // Longest wait for the external process to be ready.
  std::size_t ready_watches = 1;           // Open watches that make the external process ready.
  // Lockstep: how long a change's watch delivery is delayed (drawn by the caller: a fault);
  // called on the simulation thread for every change. Empty = never delayed.
  std::function<DurationMs(const kube::Object& object)> delivery_delay;
  // Polled (simulation thread) while sync() waits: true ends the wait (the process exited).
  std::function<bool()> stop_waiting;
  // Polled (simulation thread) while sync() waits and the world is settled, with the number of
  // requests parked in the world (queued or in the simulation: their HTTP threads wait for the
  // answer) and whether a readiness mark is wanted (ProcessLook::ready; false: busy and asleep
  // are enough, so the look may skip the timer rule and the front-end); and before sync()
  // skips a wait (no mark wanted). Empty = the process is never busy, never ready, never
  // looked at.
  std::function<ProcessLook(std::size_t parked, bool mark_wanted)> look;
  // Polled (simulation thread): a thread of the process waits for a deadline on the virtual
  // clock (serve/virtual_clock.h). Lets the run start before `ready_watches` are open: a
  // process that sleeps before it watches must see virtual time move. Empty = never.
  std::function<bool()> timer_pending;
  // Look at the process without sleeping kReadyPollUs first when the world is settled, and take
  // the second readiness mark right after the first.
  bool look_at_once = true;
};

inline constexpr std::int64_t kReadyPollUs = 1000;

struct LockstepStats {
  std::uint64_t syncs = 0;     // sync() calls that waited.
  std::uint64_t timeouts = 0;  // Waits that hit wait_max_ms.
  std::uint64_t ready = 0;     // Waits ended by the readiness test (ProcessLook::ready).
  // sync() calls with nothing new for the process that looked at it (LockstepOptions::look)
  // before skipping the wait, and of those the ones that waited because it had run since.
  std::uint64_t looks = 0;
  std::uint64_t rechecks = 0;
  std::uint64_t requests = 0;  // Requests submitted.
  std::uint64_t watches_opened = 0;
  std::int64_t wait_ms = 0;        // Wall time spent waiting in sync().
  std::int64_t start_wait_ms = 0;  // Of which before the process was ready (ready_watches).
  // Where the waits after the start went (wall µs): until the world was settled and the
  // process not busy (its requests in, answers taken, watches flushed, no thread running), and
  // from then until the wait ended (the readiness marks or the quiet period); the looks taken.
  std::int64_t settle_us = 0;
  std::int64_t idle_us = 0;
  std::uint64_t polls = 0;
};

// What wait_events() hands a watch.
struct WatchBatch {
  bool gone = false;    // after_rv is below the history floor: the watch must end with 410.
  bool closed = false;  // The world shuts down: end the watch.
  std::vector<LoggedEvent> events;     // After after_rv, matching kind and namespace.
  std::uint64_t resource_version = 0;  // The world's current resourceVersion (bookmarks).
};

// A read-modify-write of one object (patches): turns the current object into the new one, or
// returns an error status.
using Mutation = std::function<kube::Status(kube::Object& object)>;

class World {
 public:
  // Live: serves `sim`'s `api` with writes through its server_* methods (actor = the request's
  // user agent); keeps the last `history_events` changes for watches.
  World(Sim& sim, kube::ApiServer& api, std::size_t history_events);
  // Snapshot: `objects` as they were at `resource_version`; `history` are the changes before
  // it (oldest first) a watch may start from, `floor_rv` the resourceVersion below them.
  World(std::map<kube::ObjectRef, kube::Object> objects, std::deque<LoggedEvent> history,
        std::uint64_t resource_version, std::uint64_t floor_rv, TimeMs at_ms);
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  bool read_only() const { return api_ == nullptr; }
  std::uint64_t resource_version();

  kube::Result<kube::Object> get(const kube::ObjectRef& ref);
  // Sorted by namespace then name; empty namespace = all. Sets `resource_version` to the
  // world's resourceVersion the list was read at.
  std::vector<kube::Object> list(const std::string& kind, const std::string& namespace_,
                                 std::uint64_t& resource_version);

  kube::Result<kube::Object> create(kube::Object object, const std::string& actor);
  kube::Result<kube::Object> update(kube::Object object, kube::Subresource subresource,
                                    const std::string& actor);
  kube::Result<kube::Object> modify(const kube::ObjectRef& ref, const Mutation& mutation,
                                    kube::Subresource subresource, const std::string& actor);
  kube::Status remove(const kube::ObjectRef& ref, const kube::DeleteOptions& options,
                      const std::string& actor);
  kube::Result<kube::Object> apply(kube::Object object, const std::string& field_manager,
                                   const std::string& actor);

  // Waits up to `wait_ms` of wall time for changes after `after_rv` of `kind` in `namespace_`
  // (empty = all), and returns them (possibly none: then a bookmark may be sent).
  // `watch_id` (open_watch(), 0 = none) tracks what the watch has written, for lockstep.
  WatchBatch wait_events(const std::string& kind, const std::string& namespace_,
                         std::uint64_t after_rv, std::int64_t wait_ms, std::uint64_t watch_id = 0);

  // Live only: runs the event loop `step_ms` of virtual time forward (controllers, kubelets).
  void advance(DurationMs step_ms);
  // Virtual now (live) or the snapshot's moment; for timestamps.
  TimeMs now_ms();

  // Wakes every waiting watch and makes later waits return `closed`.
  void close();

  // The client document kept for `object` (same uid), or null (codec.h KeptDocument). Documents
  // are forgotten when their object is deleted.
  std::shared_ptr<const KeptDocument> document(const kube::Object& object);
  void keep(std::shared_ptr<const KeptDocument> kept);

  // A deterministic suffix for metadata.generateName: 5 characters of [a-z0-9], from a counter.
  std::string generated_suffix();

  // --- Lockstep (world_lockstep.cc). ---
  // Simulation thread: takes mutex_ for good (invariant 4). Live worlds only.
  void enter_lockstep(LockstepOptions options);
  // Simulation thread: closes the world (watches end, waiting requests answer 503) and lets go.
  void leave_lockstep();
  bool lockstep() const { return lockstep_; }
  // HTTP thread: queues `ticket` for the simulation and waits until it is complete(); false
  // when the world closed first (the run is over; the ticket was not or only partly served).
  bool submit(RequestTicket& ticket);
  // Simulation thread: when anything the external process could see happened since the last
  // call, or the process ran since the last wait (LockstepOptions::look, ProcessLook::asleep),
  // waits (mutex_ released) until it is quiet — every entered request submitted, every
  // response taken, every open watch flushed up to what is deliverable now, then the readiness
  // test's two equal marks, or at least two polls quiet_ms apart with no activity and the
  // process not busy in between — and returns the requests that arrived, in key order.
  // Bounded by wait_max_ms.
  std::vector<RequestTicket*> sync();
  // Simulation thread: `ticket` is answered; its HTTP thread may send the response.
  void complete(RequestTicket& ticket);
  // Simulation thread: every open watch ends with 410 Expired (the client relists).
  void expire_watches();
  // Simulation thread: the process was woken (a timer of its on virtual time came due,
  // serve/virtual_clock.h): the next sync() waits for it even when nothing else changed.
  void mark_dirty() { dirty_ = true; }
  // Simulation thread: while held, no answer leaves and no watch delivers (settled() counts
  // neither), so a sync() waits for what the process does on its own — its timers woken at
  // this instant — before it sees the answers and changes of the same instant. Without it the
  // two race inside the process (libuv runs expired timers and ready sockets in one turn or in
  // two, as the wall clock has it) and a replay takes the other order.
  void hold_deliveries(bool hold);
  // Called by HTTP threads when an HTTP request arrives / a watch opens or closes.
  void request_entered() { entered_.fetch_add(1); }
  std::uint64_t open_watch(const std::string& kind, const std::string& namespace_);
  void close_watch(std::uint64_t id);
  std::size_t open_watches();
  const LockstepStats& stats() const { return stats_; }

 private:
  // What a lockstep watch has delivered (invariant 4).
  struct WatchSlot {
    std::string kind;
    std::string namespace_;
    std::uint64_t cursor_rv = 0;  // Everything up to here was written to the client.
    bool waiting = false;         // Inside wait_events(): not writing.
    bool expired = false;         // expire_watches(): ends with 410 at its next wait.
  };
  // Locks mutex_ unless the caller is the simulation thread in lockstep (it holds it).
  class Guard {
   public:
    explicit Guard(World& world);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    World& world_;
    bool locked_ = false;
  };

  kube::Status refuse_write() const;
  void record(const kube::WatchEvent& event);  // Listener: runs with mutex_ held.
  bool deliverable(const LoggedEvent& event) const;
  bool watch_flushed(const WatchSlot& slot) const;
  bool settled() const;
  bool can_start() const;
  bool timer_pending() const;
  bool marks_may_end() const;
  ProcessLook look(bool mark_wanted);
  bool process_unchanged();

  std::mutex mutex_;
  std::condition_variable changed_;
  // By uid. Its own mutex, never held while taking mutex_ (record() takes it under mutex_).
  std::mutex documents_mutex_;
  std::map<std::string, std::shared_ptr<const KeptDocument>> documents_;
  Sim* sim_ = nullptr;
  kube::ApiServer* api_ = nullptr;
  std::map<kube::ObjectRef, kube::Object> snapshot_;
  std::uint64_t snapshot_rv_ = 0;
  TimeMs snapshot_ms_ = 0;
  std::deque<LoggedEvent> history_;
  // By resourceVersion: the previous states the inside-write listener saw, until record() takes
  // them.
  std::map<std::uint64_t, std::shared_ptr<const kube::Object>> previous_;
  std::size_t history_max_ = 0;
  std::uint64_t floor_rv_ = 0;
  bool closed_ = false;
  std::uint64_t generated_ = 0;

  // Lockstep state (all guarded by mutex_, except entered_).
  bool lockstep_ = false;
  LockstepOptions lockstep_options_;
  std::thread::id sim_thread_;
  std::unique_lock<std::mutex> sim_lock_;
  std::atomic<std::uint64_t> entered_{0};
  std::uint64_t submitted_ = 0;
  std::uint64_t activity_ = 0;  // Bumped by everything an HTTP thread does.
  std::uint64_t synced_activity_ = 0;
  bool dirty_ = false;             // Something the external process may see happened.
  bool ready_ = false;             // ready_watches were open once.
  std::size_t in_simulation_ = 0;  // Tickets handed to the simulation, not complete().
  // ProcessLook::asleep at the end of the last wait (sync()'s skip test).
  std::optional<std::uint64_t> asleep_after_wait_;
  std::size_t responses_out_ = 0;  // complete() tickets whose HTTP thread has not woken yet.
  std::vector<RequestTicket*> queue_;
  std::map<std::uint64_t, WatchSlot> watches_;
  std::uint64_t next_watch_id_ = 1;
  std::map<std::string, TimeMs> last_deliver_ms_;  // Per kind.
  LockstepStats stats_;
  bool holding_ = false;  // hold_deliveries().
};

}  // namespace wsim::serve
