// The server-side listeners of the fake API server (listeners.h). The two inside-write groups
// keep the order of the two observer lists they replace (the store's per-kind indexes, then the
// all-kind oracles), so traces and verdicts are unchanged (issue #31 item 3).
#include "sim/kube/listeners.h"

#include "sim/core/assert.h"

namespace wsim::kube {

void Listeners::add(const std::string& kind, ApiServer::Listener listener, ListenAt at) {
  WSIM_ASSERT(listener != nullptr);
  const std::size_t before = size();
  if (at == ListenAt::kInOrder) {
    in_order_.emplace_back(kind, std::make_shared<const ApiServer::Listener>(std::move(listener)));
  } else if (!kind.empty()) {
    per_kind_.emplace_back(kind, std::move(listener));
  } else {
    all_kinds_.push_back(std::move(listener));
  }
  WSIM_ASSERT_EQ(size(), before + 1);
}

void Listeners::notify_inside_write(const WatchEvent& event) const {
  WSIM_ASSERT(!event.object.kind.empty());
  // kAdded has no previous state; every other change has one (paired with watch_hub.cc emit()).
  if (event.type == WatchEventType::kAdded) WSIM_ASSERT(event.previous == nullptr);
  if (event.type != WatchEventType::kAdded) WSIM_ASSERT(event.previous != nullptr);
  for (const auto& [kind, listener] : per_kind_) {
    if (kind == event.object.kind) listener(event);
  }
  for (const ApiServer::Listener& listener : all_kinds_) listener(event);
}

void Listeners::notify_in_order(const WatchEvent& event) const {
  WSIM_ASSERT(!event.object.kind.empty());
  // Index loop: a listener may subscribe another listener.
  for (std::size_t i = 0; i < in_order_.size(); ++i) {
    if (!in_order_[i].first.empty() && in_order_[i].first != event.object.kind) continue;
    std::shared_ptr<const ApiServer::Listener> listener = in_order_[i].second;  // May grow.
    WSIM_ASSERT(listener != nullptr);
    (*listener)(event);
  }
}

}  // namespace wsim::kube
