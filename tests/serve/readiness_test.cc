// serve/readiness.h, the fast lockstep's look at /proc (issue #33 item 2): a sleeping child
// gives the same mark twice, a spinning one gives none; a connection with unread bytes is not
// empty until they are read. Linux only (the CI machines are).
#include "serve/readiness.h"

#include "serve/http_server.h"
#include "serve/socket_queues.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
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

// A connected loopback pair: the server's end, the client's end and their ports.
struct Pair {
  int listener = -1, server = -1, client = -1;
  int server_port = 0, client_port = 0;
  ~Pair() {
    for (int fd : {listener, server, client}) {
      if (fd >= 0) ::close(fd);
    }
  }
};

void connect_pair(Pair& pair) {
  pair.listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(pair.listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(pair.listener, 4), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(pair.listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  pair.server_port = ntohs(address.sin_port);
  pair.client = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(::connect(pair.client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  pair.server = ::accept(pair.listener, nullptr, nullptr);
  ASSERT_GE(pair.server, 0);
  sockaddr_in peer{};
  length = sizeof peer;
  ASSERT_EQ(::getpeername(pair.server, reinterpret_cast<sockaddr*>(&peer), &length), 0);
  pair.client_port = ntohs(peer.sin_port);
}

// The kernel's exact lookup sees each end's receive queue: bytes written by the other end until
// they are read, and nothing for a socket that does not exist.
TEST(SocketQueues, SeesEachEndsUnreadBytes) {
  SocketQueues queues;
  if (!queues.available()) GTEST_SKIP() << "no NETLINK_SOCK_DIAG here";
  Pair pair;
  connect_pair(pair);
  EXPECT_EQ(queues.unread(pair.client_port, pair.server_port), 0u);
  EXPECT_EQ(queues.unread(pair.server_port, pair.client_port), 0u);
  ASSERT_EQ(::write(pair.server, "hello", 5), 5);
  ASSERT_EQ(::write(pair.client, "abc", 3), 3);
  EXPECT_EQ(queues.unread(pair.client_port, pair.server_port), 5u) << "the client's end";
  EXPECT_EQ(queues.unread(pair.server_port, pair.client_port), 3u) << "the server's end";
  char buffer[8];
  ASSERT_EQ(::read(pair.client, buffer, sizeof buffer), 5);
  EXPECT_EQ(queues.unread(pair.client_port, pair.server_port), 0u);
  EXPECT_EQ(queues.unread(pair.server_port, pair.client_port), 3u);
  // A port pair with no socket: nothing waits (a connection closed since the last look).
  EXPECT_EQ(queues.unread(pair.client_port, pair.client_port), 0u);
}

// HttpServer::unread: an answer the client has not read keeps the front-end "not empty"; once
// read, nothing waits.
TEST(SocketQueues, HttpServerSeesAnAnswerTheClientHasNotRead) {
  if (!SocketQueues().available()) GTEST_SKIP() << "no NETLINK_SOCK_DIAG here";
  http::HttpServer server({}, [](const http::Request&, http::Response& response) {
    response.status = 200;
    response.set_content("{}", "application/json");
  });
  std::string error;
  const int port = server.bind("127.0.0.1", 0, error);
  ASSERT_GT(port, 0) << error;
  std::thread loop([&server] { server.run(); });
  EXPECT_EQ(server.unread(), Unread::kNone);
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::write(client, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  pollfd answer{client, POLLIN, 0};
  ASSERT_EQ(::poll(&answer, 1, 5000), 1) << "no answer within 5 s";
  EXPECT_EQ(server.unread(), Unread::kSome) << "the answer waits unread in the client's socket";
  char buffer[4096];
  ASSERT_GT(::read(client, buffer, sizeof buffer), 0);
  EXPECT_EQ(server.unread(), Unread::kNone) << "read: nothing waits";
  ::close(client);
  server.stop();
  loop.join();
}

}  // namespace
}  // namespace wsim::serve
