// VirtualClock (virtual_clock.h, docs/external.md "Timers on virtual time"): creates and maps the
// shared page of vclock/vclock_page.h, publishes virtual time in it, finds the earliest timed wait
// and wakes the due threads with wake_signal(). Simulation thread only; the shim's threads touch
// the page with atomics (invariants in the header).
#include "serve/virtual_clock.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim/core/assert.h"
#include "vclock/vclock_page.h"

namespace wsim::serve {

VirtualClock::~VirtualClock() {
  if (page_ != nullptr) ::munmap(page_, sizeof(wsim_vclock_page));
  if (fd_ >= 0) ::close(fd_);
}

int VirtualClock::wake_signal() { return SIGRTMIN + 7; }

bool VirtualClock::create(std::string& error) {
  WSIM_ASSERT(page_ == nullptr);
  fd_ = ::memfd_create("wsim-vclock", MFD_CLOEXEC);
  if (fd_ < 0 || ::ftruncate(fd_, sizeof(wsim_vclock_page)) != 0) {
    error = std::string("virtual clock page: ") + std::strerror(errno);
    return false;
  }
  void* mapped =
      ::mmap(nullptr, sizeof(wsim_vclock_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (mapped == MAP_FAILED) {
    error = std::string("virtual clock page: ") + std::strerror(errno);
    return false;
  }
  page_ = static_cast<wsim_vclock_page*>(mapped);
  std::memset(page_, 0, sizeof(wsim_vclock_page));
  // The served timestamps are epoch 0 + virtual ms (ServerOptions::epoch_wall_ms): the process's
  // clocks read the same, so its ages and the objects' agree.
  page_->epoch_ns = 0;
  page_->wake_signal = wake_signal();
  for (wsim_vclock_slot& slot : page_->slots) slot.deadline_ns = WSIM_VCLOCK_NO_DEADLINE;
  __atomic_store_n(&page_->magic, WSIM_VCLOCK_MAGIC, __ATOMIC_RELEASE);
  WSIM_ASSERT(active());
  return true;
}

void VirtualClock::publish(TimeMs now_ms) {
  WSIM_ASSERT(active());
  const std::int64_t now_ns = now_ms * 1'000'000;
  WSIM_ASSERT_GE(now_ns, now_ns_);
  now_ns_ = now_ns;
  __atomic_store_n(&page_->now_ns, now_ns, __ATOMIC_RELEASE);
}

std::optional<TimeMs> VirtualClock::next_deadline_ms() const {
  if (!active()) return std::nullopt;
  std::int64_t earliest = WSIM_VCLOCK_NO_DEADLINE;
  for (const wsim_vclock_slot& slot : page_->slots) {
    if (__atomic_load_n(&slot.tid, __ATOMIC_ACQUIRE) == 0) continue;
    const std::int64_t deadline = __atomic_load_n(&slot.deadline_ns, __ATOMIC_ACQUIRE);
    if (deadline < earliest) earliest = deadline;
  }
  if (earliest == WSIM_VCLOCK_NO_DEADLINE) return std::nullopt;
  // Whole ms, rounded up: the thread's wait ends when the published time reaches it.
  return (earliest + 999'999) / 1'000'000;
}

int VirtualClock::wake_due() {
  if (!active()) return 0;
  int woken = 0;
  for (wsim_vclock_slot& slot : page_->slots) {
    const std::int32_t tid = __atomic_load_n(&slot.tid, __ATOMIC_ACQUIRE);
    if (tid == 0) continue;
    const std::int64_t deadline = __atomic_load_n(&slot.deadline_ns, __ATOMIC_ACQUIRE);
    if (deadline > now_ns_) continue;
    const std::int32_t pid = __atomic_load_n(&slot.pid, __ATOMIC_ACQUIRE);
    if (::syscall(SYS_tgkill, pid, tid, wake_signal()) == 0) {
      ++woken;
      continue;
    }
    // The thread is gone (its process exited while it waited): its slot is free again.
    if (errno == ESRCH) {
      __atomic_store_n(&slot.deadline_ns, WSIM_VCLOCK_NO_DEADLINE, __ATOMIC_RELEASE);
      __atomic_store_n(&slot.tid, 0, __ATOMIC_RELEASE);
    }
  }
  __atomic_add_fetch(&page_->wakes, static_cast<std::uint64_t>(woken), __ATOMIC_RELAXED);
  return woken;
}

std::uint64_t VirtualClock::waits() const {
  return active() ? __atomic_load_n(&page_->waits, __ATOMIC_RELAXED) : 0;
}

std::uint64_t VirtualClock::wakes() const {
  return active() ? __atomic_load_n(&page_->wakes, __ATOMIC_RELAXED) : 0;
}

std::string vclock_shim_path() {
  // Outside sim/: the environment may point at another build of the shim.
  if (const char* path = std::getenv("WSIM_VCLOCK_SHIM"); path != nullptr && *path != '\0') {
    return ::access(path, R_OK) == 0 ? path : "";
  }
#ifdef WSIM_VCLOCK_SHIM_BUILT
  if (::access(WSIM_VCLOCK_SHIM_BUILT, R_OK) == 0) return WSIM_VCLOCK_SHIM_BUILT;
#endif
  return "";
}

}  // namespace wsim::serve
