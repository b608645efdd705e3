// Listeners: the server-side listeners of the fake API server (ApiServer::subscribe), the one way
// to hear of its changes. sim/kube internal: the watch hub (watch_hub.h) owns one and calls it
// for every committed change, at the two times of ListenAt (api_server.h).
//
// Single-threaded, runs on the event loop.
//
// Order (the trace depends on it, so it never changes):
//  1. Inside the write (notify_inside_write): the per-kind kInsideWrite listeners, then the
//     all-kind ones, each group in subscription order.
//  2. In resourceVersion order (notify_in_order): the kInOrder listeners in subscription order; a
//     listener subscribed during a notification hears the same change when it matches.
// Invariant: no listener is null; an inside-write listener's kind is checked before the call.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/kube/api_server.h"

namespace wsim::kube {

class Listeners {
 public:
  // REQUIRES: `listener` is callable.
  void add(const std::string& kind, ApiServer::Listener listener, ListenAt at);
  // Calls the kInsideWrite listeners of `event`'s kind, then those of every kind.
  void notify_inside_write(const WatchEvent& event) const;
  // Calls the kInOrder listeners of `event`'s kind or of every kind, in subscription order.
  void notify_in_order(const WatchEvent& event) const;
  bool has_in_order() const { return !in_order_.empty(); }
  // Every listener, of both timings.
  std::size_t size() const { return in_order_.size() + per_kind_.size() + all_kinds_.size(); }

 private:
  // Shared so that notify_in_order() holds a listener without copying it while the vector may
  // grow (a listener may subscribe another one).
  std::vector<std::pair<std::string, std::shared_ptr<const ApiServer::Listener>>> in_order_;
  std::vector<std::pair<std::string, ApiServer::Listener>> per_kind_;  // kInsideWrite, a kind.
  std::vector<ApiServer::Listener> all_kinds_;                         // kInsideWrite, every kind.
};

}  // namespace wsim::kube
