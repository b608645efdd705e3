/* libwsim_vclock.so: an LD_PRELOAD shim that runs an external process's clocks and timed waits
 * on wsim's virtual time (issue #33 item 3; vclock_page.h has the protocol, docs/external.md
 * "Timers on virtual time" the why). [invented]
 *
 * Without WSIM_VCLOCK_FD in the environment (or when the page does not map) every function is
 * the C library's: the shim is inert.
 *
 * Virtual: clock_gettime of the realtime, monotonic and boottime clocks (and their coarse, raw,
 * alarm and TAI forms), gettimeofday, time; nanosleep, clock_nanosleep, usleep, sleep; the
 * timeouts of epoll_wait, epoll_pwait, poll, ppoll, select, pselect. A timed wait becomes a wait
 * without a timeout that returns early when its descriptors are ready (or a signal of the
 * program arrives), and times out when wsim has moved virtual time to its deadline and woken
 * the thread (the page's wake_signal, blocked outside the shim's waits so that it never lands in
 * the program's own system calls).
 * Translated to wall time: the absolute deadlines of pthread_cond_timedwait, sem_timedwait,
 * pthread_mutex_timedlock (the program computed them from the virtual clock; they wait the same
 * duration of wall time, on the monotonic clock).
 * Not covered: timerfd, POSIX timers (timer_create), alarm/setitimer, futex(2) and
 * clock_gettime through syscall(2) or the vDSO directly (statically linked programs: Go).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "vclock_page.h"

#define EXPORT __attribute__((visibility("default")))

static struct wsim_vclock_page* page;
static int wake_signal;

static int (*real_clock_gettime)(clockid_t, struct timespec*);
static int (*real_epoll_pwait)(int, struct epoll_event*, int, int, const sigset_t*);
static int (*real_ppoll)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*);
static int (*real_pselect)(int, fd_set*, fd_set*, fd_set*, const struct timespec*,
                           const sigset_t*);
static int (*real_epoll_wait)(int, struct epoll_event*, int, int);
static int (*real_poll)(struct pollfd*, nfds_t, int);
static int (*real_select)(int, fd_set*, fd_set*, fd_set*, struct timeval*);
static int (*real_nanosleep)(const struct timespec*, struct timespec*);
static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec*, struct timespec*);
static int (*real_pthread_cond_timedwait)(pthread_cond_t*, pthread_mutex_t*,
                                          const struct timespec*);
static int (*real_pthread_cond_clockwait)(pthread_cond_t*, pthread_mutex_t*, clockid_t,
                                          const struct timespec*);
static int (*real_sem_clockwait)(sem_t*, clockid_t, const struct timespec*);
static int (*real_pthread_mutex_clocklock)(pthread_mutex_t*, clockid_t, const struct timespec*);

static __thread int slot_index = -1;
static __thread pid_t slot_tid;
static __thread volatile sig_atomic_t woken;

static void on_wake(int sig) {
  (void)sig;
  woken = 1;
}

#define NEXT(name) (__typeof__(real_##name))dlsym(RTLD_NEXT, #name)

__attribute__((constructor)) static void vclock_init(void) {
  real_clock_gettime = NEXT(clock_gettime);
  real_epoll_pwait = NEXT(epoll_pwait);
  real_ppoll = NEXT(ppoll);
  real_pselect = NEXT(pselect);
  real_epoll_wait = NEXT(epoll_wait);
  real_poll = NEXT(poll);
  real_select = NEXT(select);
  real_nanosleep = NEXT(nanosleep);
  real_clock_nanosleep = NEXT(clock_nanosleep);
  real_pthread_cond_timedwait = NEXT(pthread_cond_timedwait);
  real_pthread_cond_clockwait = NEXT(pthread_cond_clockwait);
  real_sem_clockwait = NEXT(sem_clockwait);
  real_pthread_mutex_clocklock = NEXT(pthread_mutex_clocklock);
  const char* fd_text = getenv("WSIM_VCLOCK_FD");
  if (fd_text == NULL || real_clock_gettime == NULL || real_epoll_pwait == NULL ||
      real_ppoll == NULL || real_pselect == NULL) {
    return;
  }
  const int fd = atoi(fd_text);
  void* mapped = mmap(NULL, sizeof(struct wsim_vclock_page), PROT_READ | PROT_WRITE, MAP_SHARED,
                      fd, 0);
  if (mapped == MAP_FAILED) return;
  struct wsim_vclock_page* candidate = mapped;
  if (candidate->magic != WSIM_VCLOCK_MAGIC || candidate->wake_signal <= 0) {
    munmap(mapped, sizeof(struct wsim_vclock_page));
    return;
  }
  wake_signal = candidate->wake_signal;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_wake;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(wake_signal, &action, NULL) != 0) return;
  /* Blocked outside the shim's waits; threads inherit the mask of the thread that made them. */
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, wake_signal);
  pthread_sigmask(SIG_BLOCK, &block, NULL);
  page = candidate;
}

static int64_t virtual_now_ns(void) { return __atomic_load_n(&page->now_ns, __ATOMIC_ACQUIRE); }

static int virtual_clock(clockid_t clock) {
  switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
    case CLOCK_REALTIME_ALARM:
    case CLOCK_BOOTTIME_ALARM:
    case CLOCK_TAI:
      return 1;
    default:
      return 0;
  }
}

static int64_t ns_of(const struct timespec* ts) {
  return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static struct timespec timespec_of(int64_t ns) {
  struct timespec ts;
  if (ns < 0) ns = 0;
  ts.tv_sec = ns / 1000000000;
  ts.tv_nsec = ns % 1000000000;
  return ts;
}

/* now + delta without overflow (a "forever" timeout stays far in the future). */
static int64_t deadline_after(int64_t delta_ns) {
  const int64_t now = virtual_now_ns();
  if (delta_ns < 0) delta_ns = 0;
  return delta_ns > INT64_MAX / 2 ? INT64_MAX / 2 : now + delta_ns;
}

/* The calling thread's slot, claimed on first use (again after a fork: a new thread id). */
static struct wsim_vclock_slot* own_slot(void) {
  const pid_t tid = (pid_t)syscall(SYS_gettid);
  if (slot_index >= 0 && slot_tid == tid) return &page->slots[slot_index];
  for (int i = 0; i < WSIM_VCLOCK_SLOTS; ++i) {
    int32_t expected = 0;
    if (__atomic_compare_exchange_n(&page->slots[i].tid, &expected, (int32_t)tid, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&page->slots[i].pid, (int32_t)getpid(), __ATOMIC_RELEASE);
      __atomic_store_n(&page->slots[i].deadline_ns, WSIM_VCLOCK_NO_DEADLINE, __ATOMIC_RELEASE);
      slot_index = i;
      slot_tid = tid;
      return &page->slots[i];
    }
  }
  return NULL;
}

/* One blocking call without a timeout: `mask` is the signal mask to wait with (the wake signal
 * unblocked). Returns what the system call returned, errno set. */
typedef int (*blocking_call)(void* args, const sigset_t* mask);

/* Waits until `call` returns something other than an interruption by the wake signal, or until
 * virtual time reaches `deadline_ns` (returns 0 then, as a timeout). `base_mask` is the mask the
 * program asked for (its current one when null). -1 with errno when the call fails or is
 * interrupted by another signal; 1+ (the call's result) when it is ready. `*timed_out` says which.
 * REQUIRES: page mapped; the thread has a slot (else the caller waits on the wall clock). */
static int wait_virtual(struct wsim_vclock_slot* slot, int64_t deadline_ns, blocking_call call,
                        void* args, const sigset_t* base_mask, int* timed_out) {
  sigset_t block, old, during;
  sigemptyset(&block);
  sigaddset(&block, wake_signal);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  during = base_mask != NULL ? *base_mask : old;
  sigdelset(&during, wake_signal);
  __atomic_store_n(&slot->deadline_ns, deadline_ns, __ATOMIC_RELEASE);
  __atomic_add_fetch(&page->waits, 1, __ATOMIC_RELAXED);
  int result = 0;
  *timed_out = 0;
  while (1) {
    if (virtual_now_ns() >= deadline_ns) {
      *timed_out = 1;
      result = 0;
      break;
    }
    woken = 0;
    result = call(args, &during);
    if (result != 0 && !(result < 0 && errno == EINTR && woken)) break;
  }
  const int saved = errno;
  __atomic_store_n(&slot->deadline_ns, WSIM_VCLOCK_NO_DEADLINE, __ATOMIC_RELEASE);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  errno = saved;
  return result;
}

/* ---- clocks ---- */

EXPORT int clock_gettime(clockid_t clock, struct timespec* ts) {
  if (page == NULL || !virtual_clock(clock)) {
    if (real_clock_gettime == NULL) real_clock_gettime = NEXT(clock_gettime);
    return real_clock_gettime(clock, ts);
  }
  *ts = timespec_of(__atomic_load_n(&page->epoch_ns, __ATOMIC_RELAXED) + virtual_now_ns());
  return 0;
}

EXPORT int gettimeofday(struct timeval* tv, void* tz) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  if (tz != NULL) memset(tz, 0, sizeof(struct timezone));
  return 0;
}

EXPORT time_t time(time_t* out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out != NULL) *out = ts.tv_sec;
  return ts.tv_sec;
}

/* ---- sleeps ---- */

static int pause_call(void* args, const sigset_t* mask) {
  (void)args;
  return real_ppoll(NULL, 0, NULL, mask);
}

/* Sleeps until virtual `deadline_ns`: 0, or -1 EINTR (a signal of the program) with the time
 * left in `rem`. */
static int sleep_until(int64_t deadline_ns, struct timespec* rem) {
  struct wsim_vclock_slot* slot = own_slot();
  if (slot == NULL) {
    const struct timespec left = timespec_of(deadline_ns - virtual_now_ns());
    return real_nanosleep(&left, rem);
  }
  int timed_out = 0;
  const int result = wait_virtual(slot, deadline_ns, pause_call, NULL, NULL, &timed_out);
  if (timed_out) return 0;
  if (rem != NULL) *rem = timespec_of(deadline_ns - virtual_now_ns());
  if (result >= 0) errno = EINTR;
  return -1;
}

EXPORT int nanosleep(const struct timespec* req, struct timespec* rem) {
  if (page == NULL) return real_nanosleep(req, rem);
  if (req == NULL || req->tv_nsec < 0 || req->tv_nsec >= 1000000000 || req->tv_sec < 0) {
    errno = EINVAL;
    return -1;
  }
  return sleep_until(deadline_after(ns_of(req)), rem);
}

EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec* req,
                           struct timespec* rem) {
  if (page == NULL || !virtual_clock(clock)) {
    return real_clock_nanosleep(clock, flags, req, rem);
  }
  if (req == NULL || req->tv_nsec < 0 || req->tv_nsec >= 1000000000) return EINVAL;
  const int64_t deadline =
      (flags & TIMER_ABSTIME)
          ? ns_of(req) - __atomic_load_n(&page->epoch_ns, __ATOMIC_RELAXED)
          : deadline_after(ns_of(req));
  const int result = sleep_until(deadline, (flags & TIMER_ABSTIME) ? NULL : rem);
  return result == 0 ? 0 : errno;
}

EXPORT int usleep(useconds_t usec) {
  const struct timespec req = timespec_of((int64_t)usec * 1000);
  return nanosleep(&req, NULL);
}

EXPORT unsigned int sleep(unsigned int seconds) {
  struct timespec req = timespec_of((int64_t)seconds * 1000000000);
  struct timespec rem = {0, 0};
  if (nanosleep(&req, &rem) == 0) return 0;
  return (unsigned int)rem.tv_sec + (rem.tv_nsec > 0);
}

/* ---- waits on descriptors ---- */

struct epoll_args {
  int epfd;
  struct epoll_event* events;
  int max;
};

static int epoll_call(void* args, const sigset_t* mask) {
  struct epoll_args* a = args;
  return real_epoll_pwait(a->epfd, a->events, a->max, -1, mask);
}

static int epoll_virtual(int epfd, struct epoll_event* events, int max, int timeout_ms,
                         const sigset_t* mask) {
  struct wsim_vclock_slot* slot = own_slot();
  if (slot == NULL) return real_epoll_pwait(epfd, events, max, timeout_ms, mask);
  struct epoll_args args = {epfd, events, max};
  int timed_out = 0;
  return wait_virtual(slot, deadline_after((int64_t)timeout_ms * 1000000), epoll_call, &args,
                      mask, &timed_out);
}

EXPORT int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout_ms) {
  if (page == NULL || timeout_ms <= 0) {
    if (real_epoll_wait == NULL) real_epoll_wait = NEXT(epoll_wait);
    return real_epoll_wait(epfd, events, max, timeout_ms);
  }
  return epoll_virtual(epfd, events, max, timeout_ms, NULL);
}

EXPORT int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout_ms,
                       const sigset_t* mask) {
  if (real_epoll_pwait == NULL) real_epoll_pwait = NEXT(epoll_pwait);
  if (page == NULL || timeout_ms <= 0) return real_epoll_pwait(epfd, events, max, timeout_ms, mask);
  return epoll_virtual(epfd, events, max, timeout_ms, mask);
}

struct poll_args {
  struct pollfd* fds;
  nfds_t count;
};

static int poll_call(void* args, const sigset_t* mask) {
  struct poll_args* a = args;
  return real_ppoll(a->fds, a->count, NULL, mask);
}

static int poll_virtual(struct pollfd* fds, nfds_t count, int64_t timeout_ns,
                        const sigset_t* mask) {
  struct wsim_vclock_slot* slot = own_slot();
  if (slot == NULL) {
    const struct timespec left = timespec_of(timeout_ns);
    return real_ppoll(fds, count, &left, mask);
  }
  struct poll_args args = {fds, count};
  int timed_out = 0;
  const int result =
      wait_virtual(slot, deadline_after(timeout_ns), poll_call, &args, mask, &timed_out);
  if (timed_out) {
    for (nfds_t i = 0; i < count; ++i) fds[i].revents = 0;
  }
  return result;
}

EXPORT int poll(struct pollfd* fds, nfds_t count, int timeout_ms) {
  if (page == NULL || timeout_ms <= 0) {
    if (real_poll == NULL) real_poll = NEXT(poll);
    return real_poll(fds, count, timeout_ms);
  }
  return poll_virtual(fds, count, (int64_t)timeout_ms * 1000000, NULL);
}

EXPORT int ppoll(struct pollfd* fds, nfds_t count, const struct timespec* timeout,
                 const sigset_t* mask) {
  if (real_ppoll == NULL) real_ppoll = NEXT(ppoll);
  if (page == NULL || timeout == NULL || ns_of(timeout) <= 0) {
    return real_ppoll(fds, count, timeout, mask);
  }
  return poll_virtual(fds, count, ns_of(timeout), mask);
}

struct select_args {
  int count;
  fd_set* read;
  fd_set* write;
  fd_set* except;
};

static int select_call(void* args, const sigset_t* mask) {
  struct select_args* a = args;
  return real_pselect(a->count, a->read, a->write, a->except, NULL, mask);
}

static int select_virtual(int count, fd_set* read, fd_set* write, fd_set* except,
                          int64_t timeout_ns, const sigset_t* mask) {
  struct wsim_vclock_slot* slot = own_slot();
  if (slot == NULL) {
    const struct timespec left = timespec_of(timeout_ns);
    return real_pselect(count, read, write, except, &left, mask);
  }
  struct select_args args = {count, read, write, except};
  int timed_out = 0;
  const int result =
      wait_virtual(slot, deadline_after(timeout_ns), select_call, &args, mask, &timed_out);
  if (timed_out) {
    if (read != NULL) FD_ZERO(read);
    if (write != NULL) FD_ZERO(write);
    if (except != NULL) FD_ZERO(except);
  }
  return result;
}

EXPORT int select(int count, fd_set* read, fd_set* write, fd_set* except, struct timeval* tv) {
  if (real_select == NULL) real_select = NEXT(select);
  if (page == NULL || tv == NULL || (tv->tv_sec <= 0 && tv->tv_usec <= 0)) {
    return real_select(count, read, write, except, tv);
  }
  const int64_t timeout_ns = (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
  const int result = select_virtual(count, read, write, except, timeout_ns, NULL);
  if (result == 0) tv->tv_sec = tv->tv_usec = 0;  // Linux: the time left.
  return result;
}

EXPORT int pselect(int count, fd_set* read, fd_set* write, fd_set* except,
                   const struct timespec* timeout, const sigset_t* mask) {
  if (real_pselect == NULL) real_pselect = NEXT(pselect);
  if (page == NULL || timeout == NULL || ns_of(timeout) <= 0) {
    return real_pselect(count, read, write, except, timeout, mask);
  }
  return select_virtual(count, read, write, except, ns_of(timeout), mask);
}

/* ---- absolute deadlines of blocking primitives: the same duration of wall time ---- */

/* The program computed `abs` from a virtual clock (every virtual clock has the same epoch):
 * the wall-clock monotonic instant the same distance ahead. */
static struct timespec wall_deadline(const struct timespec* abs) {
  const int64_t left =
      ns_of(abs) - (__atomic_load_n(&page->epoch_ns, __ATOMIC_RELAXED) + virtual_now_ns());
  struct timespec now;
  real_clock_gettime(CLOCK_MONOTONIC, &now);
  return timespec_of(ns_of(&now) + (left > 0 ? left : 0));
}

EXPORT int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                  const struct timespec* abs) {
  if (real_pthread_cond_timedwait == NULL) {
    real_pthread_cond_timedwait = NEXT(pthread_cond_timedwait);
  }
  if (page == NULL || real_pthread_cond_clockwait == NULL) {
    return real_pthread_cond_timedwait(cond, mutex, abs);
  }
  const struct timespec wall = wall_deadline(abs);
  return real_pthread_cond_clockwait(cond, mutex, CLOCK_MONOTONIC, &wall);
}

EXPORT int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                  const struct timespec* abs) {
  if (real_pthread_cond_clockwait == NULL) {
    real_pthread_cond_clockwait = NEXT(pthread_cond_clockwait);
  }
  if (page == NULL || !virtual_clock(clock)) {
    return real_pthread_cond_clockwait(cond, mutex, clock, abs);
  }
  const struct timespec wall = wall_deadline(abs);
  return real_pthread_cond_clockwait(cond, mutex, CLOCK_MONOTONIC, &wall);
}

EXPORT int sem_timedwait(sem_t* sem, const struct timespec* abs) {
  if (real_sem_clockwait == NULL) real_sem_clockwait = NEXT(sem_clockwait);
  if (page == NULL) return real_sem_clockwait(sem, CLOCK_REALTIME, abs);
  const struct timespec wall = wall_deadline(abs);
  return real_sem_clockwait(sem, CLOCK_MONOTONIC, &wall);
}

EXPORT int sem_clockwait(sem_t* sem, clockid_t clock, const struct timespec* abs) {
  if (real_sem_clockwait == NULL) real_sem_clockwait = NEXT(sem_clockwait);
  if (page == NULL || !virtual_clock(clock)) return real_sem_clockwait(sem, clock, abs);
  const struct timespec wall = wall_deadline(abs);
  return real_sem_clockwait(sem, CLOCK_MONOTONIC, &wall);
}

EXPORT int pthread_mutex_timedlock(pthread_mutex_t* mutex, const struct timespec* abs) {
  if (real_pthread_mutex_clocklock == NULL) {
    real_pthread_mutex_clocklock = NEXT(pthread_mutex_clocklock);
  }
  if (page == NULL) return real_pthread_mutex_clocklock(mutex, CLOCK_REALTIME, abs);
  const struct timespec wall = wall_deadline(abs);
  return real_pthread_mutex_clocklock(mutex, CLOCK_MONOTONIC, &wall);
}
