// The virtual-clock shim (vclock/wsim_vclock.c) under serve/virtual_clock.h, as the lockstep
// drives it (issue #33 item 3): a program started by ExternalProcess with the shim sleeps 10 s,
// then 0.25 s, 1.5 s, and waits in poll, epoll_wait, select and an absolute clock_nanosleep;
// this test plays wsim, moving virtual time straight to each deadline the program publishes and
// waking it. Every wait must last exactly its timeout on the program's clocks, which read the
// virtual time (without the shim the program reads the wall clock and sleeps 21 s: the test
// fails on its first line). Linux only.
#include "serve/virtual_clock.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "serve/external_process.h"

namespace wsim::serve {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// Runs the sleeper under the shim, advancing virtual time to each deadline it waits for.
// Returns its output; `steps` counts the moves of virtual time.
std::string run_sleeper(int& steps) {
  VirtualClock clock;
  std::string error;
  EXPECT_TRUE(clock.create(error)) << error;
  const std::string log = ::testing::TempDir() + "vclock_sleeper.log";
  ExternalProcess process;
  process.use_virtual_clock(clock.fd(), WSIM_VCLOCK_SHIM_FILE);
  EXPECT_TRUE(process.start({WSIM_VCLOCK_SLEEPER}, "http://127.0.0.1:1", log, error)) << error;
  std::string exit_text;
  steps = 0;
  // The deadlines woken so far: under load a woken thread may not have cleared its slot by the
  // next look, and is signalled again (the shim re-reads the clock and goes on waiting, so
  // the program sees one wait); a step is a deadline, not a signal.
  std::optional<TimeMs> last_woken;
  // Bounded: 3000 looks of 10 ms at most (the program needs 7 moves of virtual time).
  for (int i = 0; i < 3000 && process.running(exit_text); ++i) {
    const std::optional<TimeMs> due = clock.next_deadline_ms();
    if (due) {
      clock.publish(*due);
      if (clock.wake_due() > 0 && due != last_woken) {
        ++steps;
        last_woken = due;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(due ? 1 : 10));
  }
  EXPECT_FALSE(process.running(exit_text)) << "the sleeper did not finish";
  EXPECT_EQ(exit_text, "exited with code 0");
  EXPECT_GE(clock.waits(), 7u);
  return read_file(log);
}

TEST(VirtualClockShim, TimedWaitsLastTheirTimeoutInVirtualTime) {
  ASSERT_EQ(::access(WSIM_VCLOCK_SHIM_FILE, R_OK), 0) << WSIM_VCLOCK_SHIM_FILE;
  int steps = 0;
  const std::string output = run_sleeper(steps);
  EXPECT_EQ(output,
            "sleep 0 10000\n"
            "usleep 10000 10250\n"
            "nanosleep 10250 11750\n"
            "poll 11750 13750\n"
            "epoll_wait 13750 16750\n"
            "select 16750 16790\n"
            "clock_nanosleep 16790 21790\n"
            "realtime 21790 21\n"
            "done\n");
  EXPECT_EQ(steps, 7);
}

TEST(VirtualClockShim, WithoutAWaitingThreadThereIsNoDeadline) {
  VirtualClock clock;
  std::string error;
  ASSERT_TRUE(clock.create(error)) << error;
  EXPECT_FALSE(clock.next_deadline_ms().has_value());
  clock.publish(5);
  EXPECT_EQ(clock.wake_due(), 0);
  EXPECT_EQ(clock.waits(), 0u);
}

}  // namespace
}  // namespace wsim::serve
