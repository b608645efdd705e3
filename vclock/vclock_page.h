/* The shared page between wsim and the virtual-clock shim (vclock/wsim_vclock.c, issue #33
 * item 3; docs/external.md "Timers on virtual time").
 *
 * wsim (serve/virtual_clock.h) creates the page (a memfd of one page), publishes the virtual
 * time in it at every lockstep step, and passes it to the external process as the inherited
 * descriptor named by WSIM_VCLOCK_FD, with LD_PRELOAD naming the shim. The shim maps it, answers
 * clock_gettime/gettimeofday/time from it, and turns the process's timed waits (nanosleep,
 * epoll_wait/poll/select timeouts) into waits for the virtual clock: a waiting thread writes its
 * deadline into a slot, blocks without a timeout, and wsim wakes it with `wake_signal` (tgkill)
 * once virtual time has reached the deadline.
 *
 * Invariants:
 *  1. now_ns only grows, and only wsim writes it (release store; the shim reads it acquire).
 *  2. A slot is owned by the thread whose id is in `tid` (claimed with a compare-and-swap from
 *     0); only its owner writes `deadline_ns`, only wsim clears a slot of a thread that is gone.
 *  3. deadline_ns is kVclockNoDeadline unless the owner is inside a virtual wait.
 *
 * C and C++ (wsim includes it); every field is accessed with the __atomic builtins.
 */
#ifndef WSIM_VCLOCK_PAGE_H
#define WSIM_VCLOCK_PAGE_H

#include <stdint.h>

#define WSIM_VCLOCK_MAGIC 0x316b6c6376736d77ull /* "wsmvclk1" */
#define WSIM_VCLOCK_SLOTS 240
#define WSIM_VCLOCK_NO_DEADLINE INT64_MAX

struct wsim_vclock_slot {
  int32_t tid;         /* The owning thread (gettid), 0 = free. */
  int32_t pid;         /* Its process (getpid), for tgkill. */
  int64_t deadline_ns; /* Virtual ns it waits for; WSIM_VCLOCK_NO_DEADLINE when not waiting. */
};

struct wsim_vclock_page {
  uint64_t magic;
  int64_t now_ns;       /* Virtual time since the run's start. */
  int64_t epoch_ns;     /* CLOCK_REALTIME and CLOCK_MONOTONIC read epoch_ns + now_ns. */
  int32_t wake_signal;  /* The signal wsim sends a thread whose deadline has come. */
  int32_t reserved;
  uint64_t waits;       /* Virtual waits entered (all processes; diagnostics). */
  uint64_t wakes;       /* Signals sent by wsim (diagnostics). */
  struct wsim_vclock_slot slots[WSIM_VCLOCK_SLOTS];
};

#endif /* WSIM_VCLOCK_PAGE_H */
