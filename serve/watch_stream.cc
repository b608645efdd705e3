// One watch request's stream (watch_stream.h): the initial ADDED events, the changes judged by the
// state before and after them, bookmarks and the 410 ERROR. Bounded by the request's deadline
// (steady clock: the client's wait is real time) and waits of at most kWaitMs, so a client that
// goes away is noticed. Called by one HTTP thread at a time.
#include "serve/watch_stream.h"

#include <algorithm>
#include <utility>

#include "serve/codec.h"
#include "serve/table.h"

namespace wsim::serve {
namespace {

constexpr std::int64_t kWaitMs = 1000;  // Longest single wait: the stream re-checks its bounds.

}  // namespace

WatchStream::WatchStream(World& world, WatchRequest request)
    : world_(world), request_(std::move(request)) {
  deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(request_.duration_ms);
  if (request_.bookmarks) schedule_bookmark();
  if (world_.lockstep()) {
    watch_id_ = world_.open_watch(request_.resource->kind, request_.namespace_);
  }
}

WatchStream::~WatchStream() {
  if (watch_id_ != 0) world_.close_watch(watch_id_);
}

// k8s.io/apiserver pkg/storage/cacher/cache_watcher.go@04d6b4f11d53 nextBookmarkTime: a bookmark
// every interval (upstream: about a minute; ours is shorter, ServerOptions), and one 2 s before
// the watch's deadline, so that a client re-watching after the timeout starts from a recent
// resourceVersion; none once that moment has passed.
void WatchStream::schedule_bookmark() {
  const auto now = std::chrono::steady_clock::now();
  next_bookmark_ = std::min(now + std::chrono::milliseconds(request_.bookmark_interval_ms),
                            deadline_ - std::chrono::seconds(2));
  bookmark_due_ = next_bookmark_ >= now;
}

// k8s.io/apiserver pkg/storage/cacher/cache_watcher.go@04d6b4f11d53 convertToWatchEvent: an event
// is ADDED when the object matches now and its previous state did not (an ADDED change has
// none), MODIFIED when both match, DELETED when only the previous one did. Without a known
// previous state (a world built before it was recorded), the objects this stream has seen in
// scope stand in for it.
bool WatchStream::in_scope_before(const LoggedEvent& event) const {
  if (event.type == kube::WatchEventType::kAdded) return false;
  if (event.previous != nullptr) return request_.selector.matches(*event.previous);
  return in_scope_.count(kube::ObjectRef::of(event.object)) > 0;
}

void WatchStream::send(const char* type, const kube::Object& object, std::string& out) {
  const auto kept = world_.document(object);
  Json encoded = encode_object(object, *request_.resource, request_.epoch_wall_ms, kept.get());
  if (request_.table) {
    encoded = table_of({object}, *request_.resource, object.meta.resource_version, world_.now_ms(),
                       request_.epoch_wall_ms);
  }
  const Json line = {{"type", type}, {"object", encoded}};
  out += line.dump();
  out += '\n';
}

void WatchStream::start(std::string& out) {
  started_ = true;
  std::uint64_t list_rv = 0;
  const auto objects = world_.list(request_.resource->kind, request_.namespace_, list_rv);
  for (const kube::Object& object : objects) {
    if (!request_.selector.matches(object)) continue;
    in_scope_.insert(kube::ObjectRef::of(object));
    if (request_.from_now) send("ADDED", object, out);
  }
  after_rv_ = request_.from_now ? list_rv : request_.resource_version;
}

bool WatchStream::next(std::string& out) {
  if (ended_) return false;
  if (!started_) {
    start(out);
    if (!out.empty()) return true;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now >= deadline_) return ended_ = true, false;
  auto wait_ms = std::min<std::int64_t>(
      kWaitMs, std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now).count());
  if (bookmark_due_) {  // Wake up for the bookmark: it is due before the deadline.
    wait_ms = std::clamp<std::int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(next_bookmark_ - now).count(), 0,
        wait_ms);
  }
  const WatchBatch batch = world_.wait_events(request_.resource->kind, request_.namespace_,
                                              after_rv_, wait_ms, watch_id_);
  if (batch.gone) {
    const Json line = {
        {"type", "ERROR"},
        {"object", status_document(410, "Expired",
                                   "too old resource version: " + std::to_string(after_rv_) + " (" +
                                       std::to_string(batch.resource_version) + ")")}};
    out += line.dump() + "\n";
    ended_ = true;
    return false;
  }
  for (const LoggedEvent& event : batch.events) {
    after_rv_ = event.resource_version;
    const kube::ObjectRef ref = kube::ObjectRef::of(event.object);
    const bool was = in_scope_before(event);
    const bool is =
        event.type != kube::WatchEventType::kDeleted && request_.selector.matches(event.object);
    if (is) {
      in_scope_.insert(ref);
      send(was ? "MODIFIED" : "ADDED", event.object, out);
    } else if (was) {
      in_scope_.erase(ref);
      if (event.type == kube::WatchEventType::kDeleted || event.previous == nullptr) {
        send("DELETED", event.object, out);
      } else {
        // Out of the selector: the previous content at the change's resourceVersion
        // (convertToWatchEvent, as in_scope_before cites).
        kube::Object last = *event.previous;
        last.meta.resource_version = event.resource_version;
        send("DELETED", last, out);
      }
    }
  }
  if (!batch.events.empty()) after_rv_ = std::max(after_rv_, batch.events.back().resource_version);
  if (bookmark_due_ && std::chrono::steady_clock::now() >= next_bookmark_) {
    schedule_bookmark();
    const std::uint64_t rv = std::max(after_rv_, batch.resource_version);
    const Json line = {{"type", "BOOKMARK"},
                       {"object",
                        {{"kind", request_.resource->kind},
                         {"apiVersion", request_.resource->api_version()},
                         {"metadata", {{"resourceVersion", std::to_string(rv)}}}}}};
    out += line.dump() + "\n";
  }
  if (batch.closed) ended_ = true;
  return !ended_;
}

}  // namespace wsim::serve
