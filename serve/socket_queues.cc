// SocketQueues (socket_queues.h): one SOCK_DIAG_BY_FAMILY request without NLM_F_DUMP per
// question, answered by the kernel's inet_diag exact lookup (net/ipv4/inet_diag.c,
// inet_diag_find_one_icsk: the socket whose local address is the request's source and whose
// peer is its destination) with one inet_diag_msg, or an error (ENOENT: no such socket).
#include "serve/socket_queues.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

namespace wsim::serve {
namespace {

struct DiagRequest {
  nlmsghdr header;
  inet_diag_req_v2 request;
};

DiagRequest exact_request(int local_port, int remote_port, std::uint32_t sequence) {
  DiagRequest message{};
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  message.header.nlmsg_seq = sequence;
  message.request.sdiag_family = AF_INET;
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0u;
  inet_diag_sockid& id = message.request.id;
  id.idiag_sport = htons(static_cast<std::uint16_t>(local_port));
  id.idiag_dport = htons(static_cast<std::uint16_t>(remote_port));
  id.idiag_src[0] = htonl(INADDR_LOOPBACK);
  id.idiag_dst[0] = htonl(INADDR_LOOPBACK);
  id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  return message;
}

}  // namespace

SocketQueues::SocketQueues() {
  fd_ = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd_ < 0) return;
  // The kernel answers at once; a bound on the wait keeps a look from hanging if it does not.
  timeval timeout{0, 200 * 1000};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
}

SocketQueues::~SocketQueues() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::uint32_t> SocketQueues::unread(int local_port, int remote_port) {
  assert(local_port > 0 && local_port <= 65535 && remote_port > 0 && remote_port <= 65535);
  if (fd_ < 0) return std::nullopt;
  const std::uint32_t sequence = ++sequence_;
  const DiagRequest message = exact_request(local_port, remote_port, sequence);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd_, &message, sizeof message, 0, reinterpret_cast<const sockaddr*>(&kernel),
               sizeof kernel) != static_cast<ssize_t>(sizeof message)) {
    return std::nullopt;
  }
  alignas(nlmsghdr) char buffer[8192];
  // Answers to an earlier question that timed out are skipped by their sequence number.
  for (int attempt = 0; attempt < 8; ++attempt) {
    const ssize_t length = ::recv(fd_, buffer, sizeof buffer, 0);
    if (length < 0 && errno == EINTR) continue;
    if (length <= 0) return std::nullopt;
    int remaining = static_cast<int>(length);
    for (auto* header = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(header, remaining);
         header = NLMSG_NEXT(header, remaining)) {
      if (header->nlmsg_seq != sequence) continue;
      if (header->nlmsg_type == NLMSG_ERROR) {
        const auto* error = static_cast<const nlmsgerr*>(NLMSG_DATA(header));
        // No such socket: closed since (nothing waits in it).
        if (error->error == -ENOENT) return 0u;
        return std::nullopt;
      }
      if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY) return std::nullopt;
      const auto* answer = static_cast<const inet_diag_msg*>(NLMSG_DATA(header));
      return answer->idiag_rqueue;
    }
  }
  return std::nullopt;
}

}  // namespace wsim::serve
