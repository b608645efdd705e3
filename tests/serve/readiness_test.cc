// serve/readiness.h, the fast lockstep's look at /proc (issue #33 item 2): a sleeping child
// gives the same mark twice, a spinning one gives none; a connection with unread bytes is not
// empty until they are read. Linux only (the CI machines are).
#include "serve/readiness.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>

namespace wsim::serve {
namespace {

pid_t spawn(const char* script) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);  // reap() kills the group: a child left behind would hold ctest's pipe.
    ::execl("/bin/sh", "sh", "-c", script, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

void reap(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

// The mark after up to 2 s of polling for one (the child needs a moment to exec and sleep).
std::optional<std::uint64_t> settled_mark(pid_t pid) {
  for (int i = 0; i < 200; ++i) {
    if (auto mark = process_tree_sleep_mark(pid, 30)) return mark;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

TEST(Readiness, SleepingTreeGivesAStableMark) {
  // sh waits for its child sleep: both asleep, the child found through .../children.
  const pid_t pid = spawn("sleep 30; true");
  const std::optional<std::uint64_t> first = settled_mark(pid);
  ASSERT_TRUE(first.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(process_tree_sleep_mark(pid, 30), first);
  const TreeLook look = look_at_process_tree(pid, 30);
  EXPECT_TRUE(look.asleep);
  EXPECT_FALSE(look.busy);
  EXPECT_EQ(look.digest, *first);
  EXPECT_GE(look.processes, 2) << "the shell and its sleeping child";
  reap(pid);
}

TEST(Readiness, SpinningChildHasNoMark) {
  const pid_t pid = spawn("while :; do :; done");
  int marks = 0;
  for (int i = 0; i < 50; ++i) {
    if (process_tree_sleep_mark(pid, 30)) ++marks;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_LT(marks, 5) << "a spinning process is running or runnable, not asleep";
  reap(pid);
  EXPECT_FALSE(process_tree_sleep_mark(pid, 30).has_value()) << "gone";
}

// An event loop with a timer due within the horizon (python3's epoll with a 20 ms timeout,
// re-armed): no mark within a 30 ms horizon (the quiet period decides), a mark within 10 ms.
TEST(Readiness, EventLoopTimerWithinTheHorizonHasNoMark) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  const pid_t pid = spawn(
      "exec /usr/bin/python3 -c 'import select\ne = select.epoll()\nwhile True: e.poll(0.02)'");
  int within = 0;
  int beyond = 0;
  for (int i = 0; i < 100 && beyond == 0; ++i) {
    if (process_tree_sleep_mark(pid, 30)) ++within;
    if (process_tree_sleep_mark(pid, 10)) ++beyond;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(within, 0) << "a 20 ms timer is due within a 30 ms horizon";
  EXPECT_GT(beyond, 0) << "a 20 ms timer is beyond a 10 ms horizon";
  reap(pid);
}

TEST(Readiness, UnreadBytesOnTheConnection) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_FALSE(loopback_queues_empty(port)) << "a connection waits to be accepted";
  const int server = ::accept(listener, nullptr, nullptr);
  ASSERT_GE(server, 0);
  EXPECT_TRUE(loopback_queues_empty(port));
  ASSERT_EQ(::write(client, "GET / HTTP/1.1\r\n\r\n", 18), 18);
  bool seen = false;
  for (int i = 0; i < 100 && !seen; ++i) {
    seen = !loopback_queues_empty(port);
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(seen) << "18 bytes wait in the server's receive queue";
  char buffer[64];
  ASSERT_EQ(::read(server, buffer, sizeof buffer), 18);
  EXPECT_TRUE(loopback_queues_empty(port));
  ::close(client);
  ::close(server);
  ::close(listener);
}

}  // namespace
}  // namespace wsim::serve
