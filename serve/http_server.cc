// HttpServer (http_server.h, measured in serve/README.md "Connections"): the epoll loop thread, the
// worker pool and one thread per watch stream; which thread owns which field is in the header.
// Hostile clients are bounded: connections_max, streams_max, kReadPerEventMax bytes a turn, and a
// refused request's rest drained for at most kLingerMs / kLingerBytesMax.
#include "serve/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>

#include "serve/codec.h"

namespace wsim::serve::http {
namespace {

constexpr std::size_t kReadBytes = 64 * 1024;
constexpr std::size_t kReadPerEventMax = 1u << 20;  // Fairness: one client, one MiB per turn.
constexpr std::int64_t kLingerMs = 2000;            // Draining a refused request's rest.
constexpr std::size_t kLingerBytesMax = 8u << 20;
constexpr int kEpollWaitMs = 100;

std::int64_t steady_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

Response internal_error(const std::string& what) {
  Response response;
  response.status = 500;
  response.set_content(status_document(500, "InternalError", "Internal error occurred: " + what)
                           .dump(-1, ' ', false, Json::error_handler_t::replace),
                       "application/json");
  return response;
}

}  // namespace

struct HttpServer::Connection {
  explicit Connection(int fd_in, const HttpLimits& limits) : fd(fd_in), parser(limits) {}
  int fd;
  std::string input;
  RequestParser parser;
  std::int64_t last_ms = 0;           // Last activity (idle timeout).
  std::int64_t request_start_ms = 0;  // First byte of the request in progress.
  bool lingering = false;             // Refused: discard input until EOF or the deadline.
  std::int64_t linger_until_ms = 0;
  std::size_t discarded_bytes = 0;
};

HttpServer::HttpServer(HttpServerOptions options, Handler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

HttpServer::~HttpServer() {
  stop();
  shutdown_threads();
  for (auto& [fd, connection] : registered_) ::close(fd);
  registered_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

int HttpServer::bind(const std::string& host, int port, std::string& error) {
  if (port < 0 || port > 65535) {
    error = "cannot bind " + host + ":" + std::to_string(port) + ": the port must be 1..65535";
    return -1;
  }
  // Room for connections_max connections: the soft descriptor limit up to the hard one.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max &&
      files.rlim_cur < options_.connections_max + 256) {
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, options_.connections_max + 256);
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int yes = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1 ||
      ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listen_fd_, 1024) != 0) {
    error = "cannot bind " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    return -1;
  }
  socklen_t length = sizeof address;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = listen_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &event);
  event.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &event);
  port_ = ntohs(address.sin_port);
  return port_;
}

void HttpServer::wake() {
  const std::uint64_t one = 1;
  if (wake_fd_ >= 0) [[maybe_unused]]
    auto n = ::write(wake_fd_, &one, sizeof one);
}

void HttpServer::stop() {
  stopping_ = true;
  work_ready_.notify_all();
  wake();
}

void HttpServer::run() {
  running_ = true;
  for (std::size_t i = 0; i < options_.worker_threads; ++i)
    workers_.emplace_back([this] { worker(); });
  std::vector<epoll_event> events(256);
  std::int64_t next_sweep_ms = 0;
  while (!stopping_) {
    const int n =
        ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), kEpollWaitMs);
    if (n > 0) {
      loop_busy_.store(1);
      loop_rounds_.fetch_add(1);
    }
    for (int i = 0; i < n && !stopping_; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listen_fd_) {
        accept_all();
      } else if (fd == wake_fd_) {
        std::uint64_t count = 0;
        [[maybe_unused]] auto r = ::read(wake_fd_, &count, sizeof count);
        take_returned();
      } else if (auto it = registered_.find(fd); it != registered_.end()) {
        std::unique_ptr<Connection> connection = std::move(it->second);
        registered_.erase(it);
        on_readable(std::move(connection));
      }
    }
    if (steady_ms() >= next_sweep_ms) {
      sweep();
      next_sweep_ms = steady_ms() + kEpollWaitMs;
    }
    loop_busy_.store(0);
  }
  shutdown_threads();
  for (auto& [fd, connection] : registered_) close_socket(fd);
  registered_.clear();
  running_ = false;
}

void HttpServer::shutdown_threads() {
  stopping_ = true;
  work_ready_.notify_all();
  for (std::thread& thread : workers_) thread.join();
  workers_.clear();
  std::list<StreamThread> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams.splice(streams.end(), stream_threads_);
  }
  for (StreamThread& s : streams) s.thread.join();
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& connection : work_) close_socket(connection->fd);
  work_.clear();
  for (auto& connection : returned_) close_socket(connection->fd);
  returned_.clear();
}

void HttpServer::accept_all() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) {  // Out of descriptors: pause accepting.
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
        accept_paused_until_ms_ = steady_ms() + 100;
      }
      return;
    }
    const int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    remember_client(fd);
    connections_.fetch_add(1);
    auto connection = std::make_unique<Connection>(fd, options_.limits);
    connection->last_ms = steady_ms();
    if (connections_.load() > options_.connections_max) {
      refuse(std::move(connection),
             refusal(429, "too many open connections to wsim serve (at most " +
                              std::to_string(options_.connections_max) + ")"));
      continue;
    }
    register_connection(std::move(connection));
  }
}

void HttpServer::register_connection(std::unique_ptr<Connection> connection) {
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP;
  event.data.fd = connection->fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, connection->fd, &event);
  const int fd = connection->fd;
  registered_[fd] = std::move(connection);
}

void HttpServer::close_connection(std::unique_ptr<Connection> connection) {
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection->fd, nullptr);
  close_socket(connection->fd);
}

void HttpServer::remember_client(int fd) {
  sockaddr_in peer{};
  socklen_t length = sizeof peer;
  const int port = ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) == 0
                       ? ntohs(peer.sin_port)
                       : 0;
  std::lock_guard<std::mutex> lock(sockets_mutex_);
  client_ports_[fd] = port;
}

void HttpServer::close_socket(int fd) {
  {
    std::lock_guard<std::mutex> lock(sockets_mutex_);
    client_ports_.erase(fd);
    ::close(fd);
  }
  connections_.fetch_sub(1);
}

Unread HttpServer::unread() {
  std::lock_guard<std::mutex> lock(sockets_mutex_);
  pollfd listening{listen_fd_, POLLIN, 0};
  if (listen_fd_ >= 0 && ::poll(&listening, 1, 0) > 0) return Unread::kSome;  // To accept.
  bool unknown = false;
  for (const auto& [fd, client_port] : client_ports_) {
    int waiting = 0;
    if (::ioctl(fd, FIONREAD, &waiting) == 0 && waiting > 0) return Unread::kSome;
    if (client_port <= 0 || port_ <= 0) {
      unknown = true;
      continue;
    }
    const std::optional<std::uint32_t> client = socket_queues_.unread(client_port, port_);
    if (!client) {
      unknown = true;
    } else if (*client > 0) {
      return Unread::kSome;
    }
  }
  return unknown ? Unread::kUnknown : Unread::kNone;
}

// Answers without a handler (limits, malformed requests) and drains what the client still
// sends for a moment, so that it reads the answer instead of a connection reset.
void HttpServer::refuse(std::unique_ptr<Connection> connection, const Response& response) {
  const std::string text = serialize(response, false);
  [[maybe_unused]] auto sent = ::send(connection->fd, text.data(), text.size(), MSG_NOSIGNAL);
  ::shutdown(connection->fd, SHUT_WR);
  connection->lingering = true;
  connection->linger_until_ms = steady_ms() + kLingerMs;
  connection->input.clear();
  if (registered_.count(connection->fd) == 0) register_connection(std::move(connection));
}

void HttpServer::on_readable(std::unique_ptr<Connection> connection) {
  char buffer[kReadBytes];
  std::size_t read_bytes = 0;
  bool eof = false;
  while (read_bytes < kReadPerEventMax) {
    const ssize_t n = ::recv(connection->fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      read_bytes += static_cast<std::size_t>(n);
      if (connection->lingering) {
        connection->discarded_bytes += static_cast<std::size_t>(n);
      } else {
        connection->input.append(buffer, static_cast<std::size_t>(n));
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    eof = true;
    break;
  }
  connection->last_ms = steady_ms();
  if (connection->lingering) {
    if (eof || connection->discarded_bytes > kLingerBytesMax) {
      return close_connection(std::move(connection));
    }
    return register_connection(std::move(connection));
  }
  if (eof && connection->input.empty()) return close_connection(std::move(connection));
  process_input(std::move(connection));
}

void HttpServer::process_input(std::unique_ptr<Connection> connection) {
  if (!connection->parser.in_progress() && !connection->input.empty()) {
    connection->request_start_ms = steady_ms();
  }
  const RequestParser::State state = connection->parser.feed(connection->input);
  if (state == RequestParser::State::kError) {
    const Response error = connection->parser.error();
    return refuse(std::move(connection), error);
  }
  if (state == RequestParser::State::kNeedMore) {
    if (connection->parser.wants_continue()) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      [[maybe_unused]] auto sent =
          ::send(connection->fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL);
    }
    return register_connection(std::move(connection));
  }
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection->fd, nullptr);
  in_flight_.fetch_add(1);  // Until serve() has written the response (or handed it a stream).
  {
    std::lock_guard<std::mutex> lock(mutex_);
    work_.push_back(std::move(connection));
  }
  work_ready_.notify_one();
}

void HttpServer::take_returned() {
  std::vector<std::unique_ptr<Connection>> returned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    returned.swap(returned_);
  }
  for (auto& connection : returned) {
    connection->last_ms = steady_ms();
    process_input(std::move(connection));  // A pipelined next request may be buffered.
  }
}

void HttpServer::give_back(std::unique_ptr<Connection> connection) {
  connection->parser.reset();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    returned_.push_back(std::move(connection));
  }
  wake();
}

void HttpServer::sweep() {
  const std::int64_t now = steady_ms();
  if (accept_paused_until_ms_ != 0 && now >= accept_paused_until_ms_) {
    accept_paused_until_ms_ = 0;
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = listen_fd_;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &event);
  }
  std::vector<int> expired;
  for (const auto& [fd, connection] : registered_) {
    const bool linger_over = connection->lingering && now >= connection->linger_until_ms;
    const bool idle_over = !connection->parser.in_progress() && connection->input.empty() &&
                           now - connection->last_ms > options_.idle_timeout_ms;
    const bool request_over = connection->parser.in_progress() &&
                              now - connection->request_start_ms > options_.request_timeout_ms;
    if (linger_over || idle_over || request_over) expired.push_back(fd);
  }
  for (const int fd : expired) {
    auto it = registered_.find(fd);
    std::unique_ptr<Connection> connection = std::move(it->second);
    registered_.erase(it);
    close_connection(std::move(connection));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = stream_threads_.begin(); it != stream_threads_.end();) {
    if (!it->finished) {
      ++it;
      continue;
    }
    it->thread.join();
    it = stream_threads_.erase(it);
  }
}

void HttpServer::worker() {
  for (;;) {
    std::unique_ptr<Connection> connection;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_ready_.wait(lock, [this] { return stopping_ || !work_.empty(); });
      if (stopping_) return;
      connection = std::move(work_.front());
      work_.pop_front();
    }
    serve(std::move(connection));
  }
}

void HttpServer::serve(std::unique_ptr<Connection> connection) {
  // The request leaves in_flight_ when this returns: its response written, or a stream begun.
  struct Done {
    std::atomic<std::int64_t>& count;
    ~Done() { count.fetch_sub(1); }
  } done{in_flight_};
  const Request& request = connection->parser.request();
  Response response;
  try {
    handler_(request, response);
  } catch (const std::exception& e) {
    response = internal_error(e.what());
  } catch (...) {
    response = internal_error("unknown exception");
  }
  if (response.status < 0 && response.streamed()) response.status = 200;
  if (response.status < 0) response = internal_error("the handler gave no answer");
  const bool keep_alive = request.keep_alive && !stopping_;
  if (response.streamed()) {
    if (streams_.fetch_add(1) < options_.streams_max) {
      return stream(std::move(connection), std::move(response), keep_alive);
    }
    streams_.fetch_sub(1);
    response = refusal(429, "too many open watches on wsim serve (at most " +
                                std::to_string(options_.streams_max) + "); retry later");
  }
  std::string text = serialize_head(response, keep_alive, false);
  if (request.method != "HEAD") text += response.body;
  if (!write_all(connection->fd, text) || !keep_alive) return close_socket(connection->fd);
  give_back(std::move(connection));
}

void HttpServer::stream(std::unique_ptr<Connection> connection, Response response,
                        bool keep_alive) {
  std::lock_guard<std::mutex> lock(mutex_);
  StreamThread& slot = stream_threads_.emplace_back();
  auto body = [this, &slot, keep_alive](std::unique_ptr<Connection> c, Response r) {
    bool ok = write_all(c->fd, serialize_head(r, keep_alive, true));
    bool done = false;
    DataSink sink;
    sink.write = [&](const char* data, std::size_t size) {
      if (!ok || size == 0) return ok;
      char size_line[32];
      std::snprintf(size_line, sizeof size_line, "%zx\r\n", size);
      ok = write_all(c->fd, size_line + std::string(data, size) + "\r\n");
      return ok;
    };
    sink.done = [&] { done = true; };
    sink.is_writable = [&] { return ok && !stopping_; };
    std::size_t offset = 0;
    try {
      while (ok && !done && !stopping_ && r.provider(offset, sink)) offset += 1;
    } catch (...) {
      ok = false;  // A broken stream ends; the connection is closed below.
    }
    if (ok && done) ok = write_all(c->fd, "0\r\n\r\n");
    streams_.fetch_sub(1);
    if (ok && done && keep_alive && !stopping_) {
      give_back(std::move(c));
    } else {
      close_socket(c->fd);
    }
    slot.finished = true;
  };
  slot.thread = std::thread(body, std::move(connection), std::move(response));
}

bool HttpServer::write_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  std::int64_t deadline_ms = steady_ms() + options_.write_timeout_ms;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      deadline_ms = steady_ms() + options_.write_timeout_ms;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    if (stopping_ || steady_ms() > deadline_ms) return false;
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, 100);
  }
  return true;
}

}  // namespace wsim::serve::http
