/* A program for the shim's test (tests/serve/vclock_test.cc): reads the clocks around each kind
 * of timed wait the shim puts on virtual time and prints what it saw, one line per wait:
 * "NAME START_MS END_MS" on the monotonic clock, then "realtime MS" and "done".
 * Under the shim with wsim's virtual clock every wait lasts exactly its timeout in virtual time.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int64_t monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void report(const char* name, int64_t start_ms) {
  printf("%s %lld %lld\n", name, (long long)start_ms, (long long)monotonic_ms());
  fflush(stdout);
}

int main(void) {
  int64_t start = monotonic_ms();
  sleep(10);
  report("sleep", start);
  start = monotonic_ms();
  usleep(250000);
  report("usleep", start);
  start = monotonic_ms();
  const struct timespec req = {1, 500000000};
  nanosleep(&req, NULL);
  report("nanosleep", start);
  start = monotonic_ms();
  poll(NULL, 0, 2000);
  report("poll", start);
  start = monotonic_ms();
  const int ep = epoll_create1(0);
  struct epoll_event events[1];
  epoll_wait(ep, events, 1, 3000);
  report("epoll_wait", start);
  start = monotonic_ms();
  struct timeval tv = {0, 40000};
  select(0, NULL, NULL, NULL, &tv);
  report("select", start);
  start = monotonic_ms();
  struct timespec abs;
  clock_gettime(CLOCK_MONOTONIC, &abs);
  abs.tv_sec += 5;
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
  report("clock_nanosleep", start);
  struct timeval now;
  gettimeofday(&now, NULL);
  printf("realtime %lld %lld\n", (long long)now.tv_sec * 1000 + now.tv_usec / 1000,
         (long long)time(NULL));
  printf("done\n");
  return 0;
}
