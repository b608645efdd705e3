// World (world.h): the live world (every call into sim/kube under the one mutex, the bounded change
// history for watches) and the read-only snapshot of a replayed run. The invariants, including
// lockstep's, are in world.h; the lockstep half of the class is in world_lockstep.cc.
#include "serve/world.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <utility>

namespace wsim::serve {

World::World(Sim& sim, kube::ApiServer& api, std::size_t history_events)
    : sim_(&sim), api_(&api), history_max_(history_events) {
  assert(history_events > 0);
  Guard lock(*this);
  floor_rv_ = api.current_resource_version();
  // Called inside the write, before the listener below gets the same change (in order).
  api.subscribe(
      "",
      [this](const kube::WatchEvent& event) {
        if (event.previous != nullptr) {
          previous_[event.object.meta.resource_version] =
              std::make_shared<const kube::Object>(*event.previous);
        }
      },
      kube::ListenAt::kInsideWrite);
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

World::Guard::Guard(World& world) : world_(world) {
  // The thread test first: only the simulation thread may read sim_lock_.
  const bool held = world.lockstep_ && std::this_thread::get_id() == world.sim_thread_ &&
                    world.sim_lock_.owns_lock();
  if (!held) {
    world_.mutex_.lock();
    locked_ = true;
  }
}

World::Guard::~Guard() {
  if (locked_) world_.mutex_.unlock();
}

std::string World::generated_suffix() {
  Guard lock(*this);
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";  // Kubernetes' own set.
  std::uint64_t x = ++generated_ * 0x9e3779b97f4a7c15ULL;
  x ^= x >> 29;
  std::string out;
  for (int i = 0; i < 5; ++i, x /= 27) out += kAlphabet[x % 27];
  return out;
}

std::shared_ptr<const KeptDocument> World::document(const kube::Object& object) {
  std::lock_guard<std::mutex> lock(documents_mutex_);
  auto it = documents_.find(object.meta.uid);
  return it == documents_.end() ? nullptr : it->second;
}

void World::keep(std::shared_ptr<const KeptDocument> kept) {
  if (kept == nullptr || kept->uid.empty()) return;
  std::lock_guard<std::mutex> lock(documents_mutex_);
  documents_[kept->uid] = std::move(kept);
}

void World::record(const kube::WatchEvent& event) {
  if (event.type == kube::WatchEventType::kDeleted) {
    std::lock_guard<std::mutex> lock(documents_mutex_);
    documents_.erase(event.object.meta.uid);
  }
  LoggedEvent logged{event.object.meta.resource_version, event.type, event.object, 0, nullptr};
  const auto previous = previous_.find(logged.resource_version);
  if (previous != previous_.end()) logged.previous = previous->second;
  previous_.erase(previous_.begin(), previous_.upper_bound(logged.resource_version));
  if (lockstep_) {
    const TimeMs now = sim_->now_ms();
    const DurationMs delay =
        lockstep_options_.delivery_delay ? lockstep_options_.delivery_delay(event.object) : 0;
    TimeMs& last = last_deliver_ms_[event.object.kind];
    logged.deliver_ms = std::max(last, now + delay);
    last = logged.deliver_ms;
    if (logged.deliver_ms > now) {
      sim_->loop().schedule(logged.deliver_ms - now, [this] { dirty_ = true; });
    }
    for (const auto& [id, slot] : watches_) {
      if (slot.kind == event.object.kind) dirty_ = true;
    }
  }
  history_.push_back(std::move(logged));
  while (history_.size() > history_max_) {
    floor_rv_ = history_.front().resource_version;
    history_.pop_front();
  }
  changed_.notify_all();
}

std::uint64_t World::resource_version() {
  Guard lock(*this);
  return api_ ? api_->current_resource_version() : snapshot_rv_;
}

TimeMs World::now_ms() {
  Guard lock(*this);
  return sim_ ? sim_->now_ms() : snapshot_ms_;
}

kube::Result<kube::Object> World::get(const kube::ObjectRef& ref) {
  Guard lock(*this);
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
  Guard lock(*this);
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
  Guard lock(*this);
  if (!api_) return {refuse_write(), {}};
  return api_->server_create(std::move(object), actor);
}

kube::Result<kube::Object> World::update(kube::Object object, kube::Subresource subresource,
                                         const std::string& actor) {
  Guard lock(*this);
  if (!api_) return {refuse_write(), {}};
  return api_->server_update(std::move(object), subresource, actor);
}

kube::Result<kube::Object> World::modify(const kube::ObjectRef& ref, const Mutation& mutation,
                                         kube::Subresource subresource, const std::string& actor) {
  Guard lock(*this);
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
  Guard lock(*this);
  if (!api_) return refuse_write();
  return api_->server_delete(ref, options, actor);
}

kube::Result<kube::Object> World::apply(kube::Object object, const std::string& field_manager,
                                        const std::string& actor) {
  Guard lock(*this);
  if (!api_) return {refuse_write(), {}};
  return api_->server_apply(std::move(object), field_manager, actor);
}

WatchBatch World::wait_events(const std::string& kind, const std::string& namespace_,
                              std::uint64_t after_rv, std::int64_t wait_ms,
                              std::uint64_t watch_id) {
  std::unique_lock<std::mutex> lock(mutex_);
  WatchSlot* slot = nullptr;
  if (watch_id != 0) {
    auto it = watches_.find(watch_id);
    if (it != watches_.end()) slot = &it->second;
  }
  auto collect = [&](WatchBatch& batch) {
    batch.resource_version = api_ ? api_->current_resource_version() : snapshot_rv_;
    batch.closed = closed_;
    if (after_rv < floor_rv_ || (slot != nullptr && slot->expired)) {
      batch.gone = true;
      return true;
    }
    auto first = std::upper_bound(
        history_.begin(), history_.end(), after_rv,
        [](std::uint64_t rv, const LoggedEvent& event) { return rv < event.resource_version; });
    for (auto it = first; it != history_.end(); ++it) {
      const LoggedEvent& event = *it;
      if (event.object.kind != kind) continue;
      if (!namespace_.empty() && event.object.meta.namespace_ != namespace_) continue;
      if (!deliverable(event)) break;  // Per kind in order: nothing later is deliverable yet.
      batch.events.push_back(event);
    }
    return closed_ || !batch.events.empty();
  };
  if (slot != nullptr) slot->cursor_rv = after_rv;
  WatchBatch batch;
  if (collect(batch)) return batch;
  if (slot != nullptr) {
    slot->waiting = true;
    ++activity_;
    changed_.notify_all();
  }
  changed_.wait_for(lock, std::chrono::milliseconds(wait_ms), [&] {
    WatchBatch probe;
    return collect(probe);
  });
  batch = WatchBatch{};
  collect(batch);
  if (slot != nullptr) {
    slot->waiting = false;
    ++activity_;
  }
  return batch;
}

void World::advance(DurationMs step_ms) {
  Guard lock(*this);
  if (!sim_ || closed_) return;
  sim_->loop().run_until(sim_->now_ms() + step_ms);
}

void World::close() {
  Guard lock(*this);
  closed_ = true;
  changed_.notify_all();
}

}  // namespace wsim::serve
