#include "serve/world.h"

#include <cassert>
#include <chrono>
#include <utility>

namespace wsim::serve {

World::World(Sim& sim, kube::ApiServer& api, std::size_t history_events)
    : sim_(&sim), api_(&api), history_max_(history_events) {
  assert(history_events > 0);
  std::lock_guard<std::mutex> lock(mutex_);
  floor_rv_ = api.current_resource_version();
  api.subscribe("", [this](const kube::WatchEvent& event) { record(event); });
}

World::World(std::map<kube::ObjectRef, kube::Object> objects, std::deque<LoggedEvent> history,
             std::uint64_t resource_version, std::uint64_t floor_rv, TimeMs at_ms)
    : snapshot_(std::move(objects)),
      snapshot_rv_(resource_version),
      snapshot_ms_(at_ms),
      history_(std::move(history)),
      history_max_(history_.size() + 1),
      floor_rv_(floor_rv) {}

void World::record(const kube::WatchEvent& event) {
  history_.push_back(LoggedEvent{event.object.meta.resource_version, event.type, event.object});
  while (history_.size() > history_max_) {
    floor_rv_ = history_.front().resource_version;
    history_.pop_front();
  }
  changed_.notify_all();
}

std::uint64_t World::resource_version() {
  std::lock_guard<std::mutex> lock(mutex_);
  return api_ ? api_->current_resource_version() : snapshot_rv_;
}

TimeMs World::now_ms() {
  std::lock_guard<std::mutex> lock(mutex_);
  return sim_ ? sim_->now_ms() : snapshot_ms_;
}

kube::Result<kube::Object> World::get(const kube::ObjectRef& ref) {
  std::lock_guard<std::mutex> lock(mutex_);
  const kube::Object* found = nullptr;
  if (api_) {
    found = api_->peek(ref);
  } else {
    auto it = snapshot_.find(ref);
    if (it != snapshot_.end()) found = &it->second;
  }
  if (found == nullptr) {
    return {
        kube::Status::Error(kube::Code::kNotFound, ref.kind + " \"" + ref.name + "\" not found"),
        {}};
  }
  return {kube::Status::Ok(), *found};
}

std::vector<kube::Object> World::list(const std::string& kind, const std::string& namespace_,
                                      std::uint64_t& resource_version) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<kube::Object> out;
  if (api_) {
    for (const kube::Object* object : api_->peek_list(kind, namespace_)) out.push_back(*object);
    resource_version = api_->current_resource_version();
    return out;
  }
  for (const auto& [ref, object] : snapshot_) {  // std::map: namespace, name, kind order.
    if (ref.kind == kind && (namespace_.empty() || ref.namespace_ == namespace_)) {
      out.push_back(object);
    }
  }
  resource_version = snapshot_rv_;
  return out;
}

kube::Status World::refuse_write() const {
  return kube::Status::Error(kube::Code::kForbidden,
                             "wsim serves a replayed run read-only: writes are refused "
                             "(run `wsim serve` for a writable world)");
}

kube::Result<kube::Object> World::create(kube::Object object, const std::string& actor) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!api_) return {refuse_write(), {}};
  return api_->server_create(std::move(object), actor);
}

kube::Result<kube::Object> World::update(kube::Object object, kube::Subresource subresource,
                                         const std::string& actor) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!api_) return {refuse_write(), {}};
  return api_->server_update(std::move(object), subresource, actor);
}

kube::Result<kube::Object> World::modify(const kube::ObjectRef& ref, const Mutation& mutation,
                                         kube::Subresource subresource, const std::string& actor) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!api_) return {refuse_write(), {}};
  const kube::Object* current = api_->peek(ref);
  if (current == nullptr) {
    return {
        kube::Status::Error(kube::Code::kNotFound, ref.kind + " \"" + ref.name + "\" not found"),
        {}};
  }
  kube::Object changed = *current;
  kube::Status status = mutation(changed);
  if (!status.ok()) return {status, {}};
  if (kube::ObjectRef::of(changed) != ref) {
    return {kube::Status::Error(kube::Code::kInvalid,
                                ref.kind + " \"" + ref.name +
                                    "\" is invalid: metadata.name: the patch may not change the "
                                    "name or namespace"),
            {}};
  }
  return api_->server_update(std::move(changed), subresource, actor);
}

kube::Status World::remove(const kube::ObjectRef& ref, const kube::DeleteOptions& options,
                           const std::string& actor) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!api_) return refuse_write();
  return api_->server_delete(ref, options, actor);
}

kube::Result<kube::Object> World::apply(kube::Object object, const std::string& field_manager,
                                        const std::string& actor) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!api_) return {refuse_write(), {}};
  return api_->server_apply(std::move(object), field_manager, actor);
}

WatchBatch World::wait_events(const std::string& kind, const std::string& namespace_,
                              std::uint64_t after_rv, std::int64_t wait_ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto collect = [&](WatchBatch& batch) {
    batch.resource_version = api_ ? api_->current_resource_version() : snapshot_rv_;
    batch.closed = closed_;
    if (after_rv < floor_rv_) {
      batch.gone = true;
      return true;
    }
    for (const LoggedEvent& event : history_) {
      if (event.resource_version <= after_rv || event.object.kind != kind) continue;
      if (!namespace_.empty() && event.object.meta.namespace_ != namespace_) continue;
      batch.events.push_back(event);
    }
    return closed_ || !batch.events.empty();
  };
  WatchBatch batch;
  if (collect(batch)) return batch;
  changed_.wait_for(lock, std::chrono::milliseconds(wait_ms));
  batch = WatchBatch{};
  collect(batch);
  return batch;
}

void World::advance(DurationMs step_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!sim_ || closed_) return;
  sim_->loop().run_until(sim_->now_ms() + step_ms);
}

void World::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  changed_.notify_all();
}

}  // namespace wsim::serve
