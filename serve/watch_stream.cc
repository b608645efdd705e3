#include "serve/watch_stream.h"

#include <utility>

#include "serve/codec.h"
#include "serve/table.h"

namespace wsim::serve {
namespace {

constexpr std::int64_t kWaitMs = 1000;  // Longest single wait: the stream re-checks its bounds.

}  // namespace

WatchStream::WatchStream(World& world, WatchRequest request)
    : world_(world), request_(std::move(request)) {
  const auto now = std::chrono::steady_clock::now();
  deadline_ = now + std::chrono::milliseconds(request_.duration_ms);
  next_bookmark_ = now + std::chrono::milliseconds(request_.bookmark_interval_ms);
  if (world_.lockstep()) {
    watch_id_ = world_.open_watch(request_.resource->kind, request_.namespace_);
  }
}

WatchStream::~WatchStream() {
  if (watch_id_ != 0) world_.close_watch(watch_id_);
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
  const auto left_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now).count();
  const WatchBatch batch =
      world_.wait_events(request_.resource->kind, request_.namespace_, after_rv_,
                         std::min<std::int64_t>(kWaitMs, left_ms), watch_id_);
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
    const bool was = in_scope_.count(ref) > 0;
    const bool is =
        event.type != kube::WatchEventType::kDeleted && request_.selector.matches(event.object);
    if (is) {
      in_scope_.insert(ref);
      send(was ? "MODIFIED" : "ADDED", event.object, out);
    } else if (was) {
      in_scope_.erase(ref);
      send("DELETED", event.object, out);
    }
  }
  if (!batch.events.empty()) after_rv_ = std::max(after_rv_, batch.events.back().resource_version);
  if (request_.bookmarks && std::chrono::steady_clock::now() >= next_bookmark_) {
    next_bookmark_ =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(request_.bookmark_interval_ms);
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
