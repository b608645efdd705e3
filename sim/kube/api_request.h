// The values that travel inside the fake API server (sim/kube internal, not for use outside it):
// a committed Change, a client Request and its Response, and what a watch delivers. Shared by
// the store (object_store.h), the watch hub (watch_hub.h), the interceptor chain
// (interceptor_chain.h) and the request path (api_server_impl.h).
//
// Invariants: a Change's resource_version is the one its object carries (asserted where it is
// made, watch_hub.cc emit()); kAdded has no `old`, every other type has one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/assert.h"
#include "sim/kube/api_server.h"

namespace wsim::kube {

// One committed write: the unit of watch events, listener calls and the history window.
struct Change {
  std::uint64_t resource_version = 0;
  WatchEventType type = WatchEventType::kAdded;
  std::shared_ptr<const Object> object;  // New state; for kDeleted the last state.
  std::shared_ptr<const Object> old;     // Previous state (null for kAdded).
};

// What a watch hands its consumer: an event, or the end of the watch: with 410 Gone, or
// `dropped` (ended cleanly: its consumer may re-watch from the last resourceVersion it saw).
struct WatchDelivery {
  bool gone = false;
  WatchEventType type = WatchEventType::kAdded;
  std::shared_ptr<const Object> object;
  std::uint64_t resource_version = 0;
  bool dropped = false;
};
// Returns false to close the watch (its consumer moved on to a newer watch).
using WatchSink = std::function<bool(const WatchDelivery&)>;

// A client request as it travels to the server.
struct Request {
  Verb verb = Verb::kGet;
  ObjectRef ref;  // Target; for list/watch: kind and namespace (empty = all).
  Object object;  // create, update, apply.
  MergePatch patch;
  Subresource subresource = Subresource::kMain;
  DeleteOptions delete_options;
  std::string field_manager;
  LabelSelector selector;           // list, watch.
  std::uint64_t watch_from_rv = 0;  // watch: deliver changes after this resourceVersion.
  WatchSink watch_sink;
};

struct Response {
  Status status;
  Object object;  // get, create, update, patch, apply.
  // list: the stored objects themselves (shared, immutable); Client::list copies them for its
  // caller, an informer caches them as they are.
  std::vector<std::shared_ptr<const Object>> items;
  std::uint64_t resource_version = 0;  // list: the list's resourceVersion.
  std::uint64_t watcher_id = 0;        // watch.
};

// Whether `a`'s ObjectRef orders before `b`'s: ObjectRef::of(*a) < ObjectRef::of(*b) without
// building either (lists' order, docs/performance.md §14.2).
inline bool ref_order_less(const Object* a, const Object* b) {
  WSIM_ASSERT(a != nullptr);
  WSIM_ASSERT(b != nullptr);
  return ObjectRef::compare_ref(a->meta.namespace_, a->meta.name, a->kind, b->meta.namespace_,
                                b->meta.name, b->kind) < 0;
}

// "Deployment/ns/name", "Deployment/ns" (list in a namespace), "Deployment" (all namespaces),
// written into `out` (a reused buffer: no allocation per request once it is large enough).
// Returns a view of `out`.
std::string_view request_object(const Request& request, std::string& out);

}  // namespace wsim::kube
