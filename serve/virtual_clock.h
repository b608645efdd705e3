// VirtualClock: wsim's side of the virtual-clock shim (vclock/wsim_vclock.c, issue #33 item 3,
// docs/external.md "Timers on virtual time"). It owns the shared page (vclock/vclock_page.h) the
// external process's shim reads its clocks from, publishes the virtual time in it, tells the
// lockstep when the process's earliest timed wait is due, and wakes the threads whose deadline
// has come.
//
// Invariants:
//  1. The published time never goes backwards (publish() asserts it).
//  2. Only threads whose deadline is at or before the published time are woken.
//
// Threading: the simulation thread only (the shim's threads touch the page with atomics).
// Not modelled: timers the shim does not cover (timerfd, POSIX timers, a statically linked
// program's clock): they stay on the wall clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"

struct wsim_vclock_page;

namespace wsim::serve {

class VirtualClock {
 public:
  VirtualClock() = default;
  ~VirtualClock();
  VirtualClock(const VirtualClock&) = delete;
  VirtualClock& operator=(const VirtualClock&) = delete;

  // Creates the page (a memfd, close-on-exec: ExternalProcess makes it inheritable in the child
  // only) at virtual time 0. False with `error` when the kernel refuses.
  bool create(std::string& error);
  bool active() const { return page_ != nullptr; }
  // The page's descriptor (REQUIRES: active()).
  int fd() const { return fd_; }
  // The signal the shim waits for (a real-time signal, blocked outside its waits).
  static int wake_signal();

  // Virtual time as the process sees it from now on. REQUIRES: now_ms >= the last one.
  void publish(TimeMs now_ms);
  // The earliest deadline of a thread in a virtual wait, rounded up to whole ms; nullopt when no
  // thread waits on the virtual clock.
  std::optional<TimeMs> next_deadline_ms() const;
  // Signals every thread whose deadline is at or before the published time (a thread that is
  // gone frees its slot). Returns how many were signalled.
  int wake_due();

  std::uint64_t waits() const;  // Virtual waits the process entered (the page's counter).
  std::uint64_t wakes() const;  // Threads woken.

 private:
  int fd_ = -1;
  wsim_vclock_page* page_ = nullptr;
  std::int64_t now_ns_ = 0;
};

// The shim's shared library: $WSIM_VCLOCK_SHIM when set, else the one built with this wsim
// (beside it in the build tree); empty when neither exists.
std::string vclock_shim_path();

}  // namespace wsim::serve
