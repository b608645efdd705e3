// SocketQueues: the bytes waiting unread in one loopback TCP socket, asked of the kernel by the
// socket's addresses (NETLINK_SOCK_DIAG, an exact lookup). The lockstep's readiness test asks
// this for every connection to `wsim serve` at every look (serve/README.md "Fast lockstep"):
// /proc/net/tcp, which it read before, walks the host's whole socket hash table and cost 4.5-7
// ms a read on the 2-core CI machine; an exact lookup is a hash probe.
//
// Threading: one caller at a time (the simulation thread's look).
#pragma once

#include <cstdint>
#include <optional>

namespace wsim::serve {

// Whether bytes wait unread on a set of connections; kUnknown when the kernel cannot tell.
enum class Unread { kNone, kSome, kUnknown };

class SocketQueues {
 public:
  SocketQueues();  // Opens the netlink socket; available() is false when the kernel refuses.
  ~SocketQueues();
  SocketQueues(const SocketQueues&) = delete;
  SocketQueues& operator=(const SocketQueues&) = delete;

  bool available() const { return fd_ >= 0; }
  // The bytes received and not yet read by the IPv4 TCP socket bound to 127.0.0.1:local_port
  // and connected to 127.0.0.1:remote_port; 0 when there is no such socket (it was closed). nullopt
  // when the kernel did not answer (the caller falls back to /proc/net/tcp). REQUIRES: both ports
  // in 1..65535.
  std::optional<std::uint32_t> unread(int local_port, int remote_port);

 private:
  int fd_ = -1;
  std::uint32_t sequence_ = 0;
};

}  // namespace wsim::serve
