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

// When every thread of `pid` and of its descendants (/proc/PID/task/TID/children) is asleep
// (state S), the sum over them of their context switches (voluntary + involuntary) plus their
// number times 2^32: two equal marks a moment apart mean none of them ran in between. nullopt
// when one is running, runnable or in another state, or when /proc cannot tell — and when one
// sleeps in epoll_wait/epoll_pwait with a timeout of 1..`timer_horizon_ms` ms
// (/proc/.../syscall): an event loop's timer is due within the quiet period, which then decides
// as before (a 5 ms requeue fires at the same virtual instant, not after time moved).
std::optional<std::uint64_t> process_tree_sleep_mark(pid_t pid, std::int64_t timer_horizon_ms);

// True when no TCP socket with local or remote port `port` has bytes waiting to be read
// (/proc/net/tcp rx_queue 0; for the listening socket: no connection waiting to be accepted):
// every request was read by wsim and every response and watch event by the client. False when
// /proc/net/tcp cannot be read.
bool loopback_queues_empty(int port);

}  // namespace wsim::serve
