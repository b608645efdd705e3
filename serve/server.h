// Server: the Kubernetes REST front-end of `wsim serve` — wsim's own HTTP/1.1 server
// (http_server.h) on 127.0.0.1 (never any other address), plain HTTP, JSON only. Routes discovery
// (discovery.h) and the verbs of every resource of resources.h to a World (world.h): get, list
// (label/field selectors), watch (chunked JSON events, bookmarks, 410 Expired below the history
// floor), create, update (PUT, 409 on a stale resourceVersion), the status subresource, merge /
// JSON / strategic-merge patch (the last treated as a merge patch: see serve/README.md),
// server-side apply (JSON bodies) and delete with preconditions and propagationPolicy. Errors are
// metav1.Status documents.
//
// Bounds: every watch ends after ServerOptions::watch_max_ms (or its timeoutSeconds), waking at
// least every second; the HTTP layer's limits (http.h, http_server.h): request bodies at most
// body_bytes_max before buffering, headers, open connections and watches (429 beyond).
// No request ends the server: handle() turns any exception into a 500 InternalError Status.
//
// Threading: bind() and run() from one thread; stop() from any thread; handlers run on the
// HTTP server's worker and stream threads and reach the simulation only through World.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "serve/http.h"
#include "serve/socket_queues.h"
#include "serve/world.h"

namespace wsim::serve::http {
class HttpServer;
}

namespace wsim::serve {

inline constexpr const char* kLoopback = "127.0.0.1";

struct ServerOptions {
  int port = 0;  // 0 = any free port (bind() returns it).
  // Wall-clock ms of virtual time 0, for timestamps (AGE columns).
  std::int64_t epoch_wall_ms = 0;
  std::int64_t watch_max_ms = 30 * 60 * 1000;
  std::int64_t bookmark_interval_ms = 5 * 1000;
  std::size_t worker_threads = 32;
  std::size_t body_bytes_max = 3u << 20;  // The apiserver's MaxRequestBodyBytes.
  std::size_t streams_max = 1000;         // Open watches; then 429 TooManyRequests.
  std::size_t connections_max = 4000;     // Open connections; then 429 and close.
};

class Server {
 public:
  Server(World& world, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds 127.0.0.1:options.port. Returns the port, or -1 with `error`.
  int bind(std::string& error);
  // Serves until stop(). REQUIRES bind() succeeded.
  void run();
  void stop();
  // Requests answered so far (for throughput figures).
  std::uint64_t requests_served() const { return requests_.load(); }
  std::size_t open_connections() const;
  std::size_t open_streams() const;
  // http::HttpServer::idle: no request in the HTTP layer but the `parked` ones (waiting for the
  // simulation), its loop asleep; `rounds` its wake-ups.
  bool http_idle(std::size_t parked, std::uint64_t& rounds) const;
  // Lockstep readiness: bytes unread on the front-end's connections (http_server.h unread()).
  Unread unread_bytes();

  // Answers one parsed request as the server does (routes, handlers, errors); never throws.
  // The HTTP layer calls it on its threads; the fuzz target (fuzz/serve_http_fuzz.cc) directly.
  void handle(const http::Request& req, http::Response& res);

 private:
  void route(const http::Request& req, http::Response& res);

  World& world_;
  ServerOptions options_;
  std::unique_ptr<http::HttpServer> http_;
  int port_ = -1;
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<bool> stopped_{false};
};

}  // namespace wsim::serve
