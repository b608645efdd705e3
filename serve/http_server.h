// HttpServer: the HTTP/1.1 server under `wsim serve` (replacing cpp-httplib's, whose compiled
// Debian build accepts any number of headers, buffers a chunked body whole before its size cap,
// and holds a pool thread for every open connection, idle or watching).
//
// Model (measured in serve/README.md "Connections"):
//  - one event-loop thread (epoll) accepts connections and reads requests without blocking,
//    through http::RequestParser and its limits, so an idle keep-alive connection or a client
//    sending slowly costs a file descriptor and a buffer, never a thread;
//  - a complete request goes to a fixed pool of worker threads, which run the handler and
//    write the answer; the connection then returns to the loop;
//  - a streamed answer (a watch) gets a thread of its own, outside the pool, for as long as it
//    streams; at most streams_max at once, then 429 TooManyRequests (Retry-After: 1);
//  - at most connections_max connections; the next is answered 429 and closed.
//
// Invariants:
//  1. A connection is owned by exactly one of: the loop (registered in epoll), a worker, a
//     stream thread. It is never read by two threads at once.
//  2. Handler exceptions never leave a worker: the client gets a 500 InternalError Status.
//  3. Every wait is bounded: idle_timeout_ms between requests, request_timeout_ms for one
//     request to arrive, write_timeout_ms for a write to make progress.
//
// Threading: bind() and run() from one thread; stop() from any thread (run() returns soon
// after, with every thread it started joined).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/http.h"
#include "serve/socket_queues.h"

namespace wsim::serve::http {

struct HttpServerOptions {
  HttpLimits limits;
  std::size_t worker_threads = 16;
  std::size_t connections_max = 4000;       // Open connections; below the fd limit cli/ raises.
  std::size_t streams_max = 1000;           // Open watches (one thread each).
  std::int64_t idle_timeout_ms = 90000;     // Between requests (the apiserver's IdleTimeout).
  std::int64_t request_timeout_ms = 60000;  // From a request's first byte to its last.
  std::int64_t write_timeout_ms = 30000;    // Without progress on a write.
};

// Fills in the response of one request. May throw: the server answers 500.
using Handler = std::function<void(const Request& request, Response& response)>;

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port (0 = any free port). Returns the port, or -1 with `error`.
  int bind(const std::string& host, int port, std::string& error);
  // Serves until stop(). REQUIRES bind() succeeded.
  void run();
  void stop();
  bool running() const { return running_.load(); }

  std::size_t open_connections() const { return connections_.load(); }
  std::size_t open_streams() const { return streams_.load(); }
  // Lockstep readiness (serve/README.md "Fast lockstep"): true when the event loop is blocked
  // in epoll_wait and the requests between their parse and the end of their response's write
  // are exactly the `parked` ones (a handler waiting for the simulation's answer); `rounds`
  // counts the loop's wake-ups with events (a change between two polls = it woke).
  bool idle(std::size_t parked, std::uint64_t& rounds) const {
    rounds = loop_rounds_.load();
    return loop_busy_.load() == 0 && in_flight_.load() == static_cast<std::int64_t>(parked);
  }
  // Lockstep readiness: does any byte wait unread on the server's connections — a request not
  // yet read by the server (FIONREAD), an answer or watch event not yet read by the client (its
  // socket's receive queue, SocketQueues), a connection not yet accepted (the listening socket
  // polls readable)? kUnknown when the kernel cannot tell the client's side (no sock_diag): the
  // caller falls back to /proc/net/tcp. Called by one thread at a time.
  Unread unread();

 private:
  struct Connection;
  struct StreamThread {
    std::thread thread;
    std::atomic<bool> finished{false};
  };

  void accept_all();
  void on_readable(std::unique_ptr<Connection> connection);
  // Parses what `connection` has buffered; hands a complete request to the pool.
  void process_input(std::unique_ptr<Connection> connection);
  void refuse(std::unique_ptr<Connection> connection, const Response& response);
  void register_connection(std::unique_ptr<Connection> connection);
  void close_connection(std::unique_ptr<Connection> connection);
  void take_returned();
  void sweep();
  void worker();
  void serve(std::unique_ptr<Connection> connection);
  void stream(std::unique_ptr<Connection> connection, Response response, bool keep_alive);
  // The loop takes the connection back (keep-alive).
  void give_back(std::unique_ptr<Connection> connection);
  bool write_all(int fd, const std::string& data);
  void wake();
  void shutdown_threads();
  // Every accepted connection's descriptor is closed here (and forgotten by unread() first, so
  // that a look never asks about a descriptor number the kernel has given to another socket).
  void close_socket(int fd);
  void remember_client(int fd);  // At accept: the client's port, for unread().

  HttpServerOptions options_;
  Handler handler_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> running_{false};
  std::atomic<std::size_t> connections_{0};
  std::atomic<int> loop_busy_{0};  // The loop handles events (not in epoll_wait).
  std::atomic<std::uint64_t> loop_rounds_{0};
  std::atomic<std::int64_t> in_flight_{0};  // Requests handed to the pool, not yet written.
  std::atomic<std::size_t> streams_{0};
  std::int64_t accept_paused_until_ms_ = 0;  // EMFILE: accepting waits a moment.
  int port_ = 0;                             // Bound (bind()).

  // The open connections' descriptors and their clients' ports (unread()).
  std::mutex sockets_mutex_;
  std::map<int, int> client_ports_;  // Guarded by sockets_mutex_.
  SocketQueues socket_queues_;       // Guarded by sockets_mutex_.

  // Loop thread only.
  std::map<int, std::unique_ptr<Connection>> registered_;

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<std::unique_ptr<Connection>> work_;       // Guarded by mutex_.
  std::vector<std::unique_ptr<Connection>> returned_;  // Guarded by mutex_.
  std::list<StreamThread> stream_threads_;             // Guarded by mutex_.
  std::vector<std::thread> workers_;
};

}  // namespace wsim::serve::http
