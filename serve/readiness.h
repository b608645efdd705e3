// Lockstep readiness from /proc (issue #33 item 2, serve/README.md "Fast lockstep"): is the
// external process asleep, and is nothing queued on its connections? Linux only; anywhere
// else (or when /proc cannot be read) the answers are "not ready", and the lockstep falls back
// to its quiet period.
#pragma once

#include <cstdint>
#include <optional>

#include <sys/types.h>

namespace wsim::serve {

// Bounds of one look (a process that forks without end must not make it slow).
inline constexpr int kReadinessThreadsMax = 512;
inline constexpr int kReadinessProcessesMax = 64;

// One walk over the threads of `pid` and of its descendants (/proc/PID/task/TID/children).
struct TreeLook {
  // A thread is running, runnable or in the kernel (state R or D), or the tree is too large to
  // look at: the process is still reacting, whatever its sockets show.
  bool busy = false;
  // Every thread seen is asleep (state S) and no process vanished during the walk (a child
  // listed by its parent and gone when read: it exited, its parent is reaping it). False for a
  // zombie (its parent is about to run), a stopped thread, or a /proc file that does not read.
  bool asleep = false;
  // Asleep, and one thread sleeps in epoll_wait/epoll_pwait with a timeout of 1..horizon ms
  // (/proc/.../syscall): an event loop's timer is due soon. Not looked for with a horizon of 0.
  bool timer_due = false;
  // When asleep: a digest of every thread's process id, thread id and how often it was
  // switched in (/proc/.../schedstat; context switches from status without it) in walk order. Two
  // equal digests a moment apart mean no thread of the tree ran in between, and the tree has the
  // same threads.
  std::uint64_t digest = 0;
  int processes = 0;
  int threads = 0;
};

TreeLook look_at_process_tree(pid_t pid, std::int64_t timer_horizon_ms);

// The look's digest when the tree is asleep with no timer due within `timer_horizon_ms`, else
// nullopt: the readiness test's mark of the process (an event loop whose timer is due within
// the quiet period is left to the quiet period, so a 5 ms requeue fires at the same virtual
// instant, not after time moved).
std::optional<std::uint64_t> process_tree_sleep_mark(pid_t pid, std::int64_t timer_horizon_ms);

// True when no TCP socket with local or remote port `port` has bytes waiting to be read
// (/proc/net/tcp rx_queue 0; for the listening socket: no connection waiting to be accepted):
// every request was read by wsim and every response and watch event by the client. False when
// /proc/net/tcp cannot be read.
bool loopback_queues_empty(int port);

}  // namespace wsim::serve
