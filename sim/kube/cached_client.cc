// CachedClient (cached_client.h): controller-runtime's delegating client over the informer cache.
#include "sim/kube/cached_client.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "sim/core/assert.h"
#include "sim/kube/api_server.h"

namespace wsim::kube {

CachedClient::CachedClient(Sim& sim, ApiServer& server, std::string identity)
    : sim_(sim), server_(server), writer_(server.client(std::move(identity))) {
  WSIM_ASSERT(!writer_.identity().empty());
}

CachedClient::~CachedClient() {
  stop();
  WSIM_ASSERT(owned_.empty());  // No informer of this client outlives it.
}

void CachedClient::share(const std::string& kind, Informer* informer) {
  WSIM_ASSERT(!kind.empty());
  if (informer == nullptr) {
    shared_.erase(kind);
    return;
  }
  // A cache informer this client started for the kind meanwhile (a read while the owner was
  // down) is dropped: the shared one replaces it.
  if (auto it = owned_.find(kind); it != owned_.end()) {
    it->second->stop();
    owned_.erase(it);
  }
  shared_[kind] = informer;
  WSIM_ASSERT_EQ(owned_.count(kind), 0u);  // One informer serves a kind: shared or owned.
}

void CachedClient::stop() {
  for (auto& [kind, informer] : owned_) {
    WSIM_ASSERT(informer != nullptr);
    informer->stop();
  }
  owned_.clear();
}

const Informer* CachedClient::informer_for(const std::string& kind) const {
  WSIM_ASSERT(!kind.empty());
  if (auto it = shared_.find(kind); it != shared_.end()) return it->second;
  if (auto it = owned_.find(kind); it != owned_.end()) return it->second.get();
  return nullptr;
}

Informer& CachedClient::informer(const std::string& kind) {
  WSIM_ASSERT(!kind.empty());
  if (auto it = shared_.find(kind); it != shared_.end()) return *it->second;
  auto it = owned_.find(kind);
  if (it == owned_.end()) {
    InformerOptions options;
    options.identity = writer_.identity();
    options.kind = kind;
    options.trace_changes = false;
    it = owned_.emplace(kind, std::make_unique<Informer>(sim_, server_, options)).first;
    it->second->start();
  }
  WSIM_ASSERT(it->second != nullptr);
  return *it->second;
}

Task<void> CachedClient::wait_synced(std::string kind) {
  WSIM_ASSERT(!kind.empty());
  // Polls instead of awaiting the informer's own signal: no reference to an informer is held
  // across a suspension, so a shared informer that is stopped and replaced meanwhile (the
  // manager restarted) or an owned one dropped by share() / stop() is never touched again.
  while (!informer(kind).synced()) co_await sim_.loop().sleep(kSyncPollMs);
}

Task<Result<Object>> CachedClient::get(ObjectRef ref) {
  co_await wait_synced(ref.kind);
  Informer::ObjectView cached = informer(ref.kind).get_shared(ref.namespace_, ref.name);
  Result<Object> out;
  if (cached) {
    WSIM_ASSERT_EQ(cached->meta.name, ref.name);  // The cache answers for the object asked.
    WSIM_ASSERT_EQ(cached->kind, ref.kind);
    out.value = *cached;  // The one copy: the caller may change it (and write it back).
  } else {
    out.status = Status::Error(Code::kNotFound, ref.kind + " \"" + ref.name + "\" not found");
  }
  co_return out;
}

Task<Result<std::vector<Object>>> CachedClient::list(std::string kind, std::string namespace_,
                                                     LabelSelector selector) {
  co_await wait_synced(kind);
  std::vector<Object> out;
  // Filter the shared views first: only what the caller gets is copied.
  for (const Informer::ObjectView& object : informer(kind).list_shared()) {
    if (!namespace_.empty() && object->meta.namespace_ != namespace_) continue;
    if (!selector.matches(object->meta.labels)) continue;
    out.push_back(*object);
  }
  // Sorted by namespace, then name, like the API server's lists (the cache is ordered so).
  WSIM_ASSERT(std::is_sorted(out.begin(), out.end(), [](const Object& a, const Object& b) {
    return std::tie(a.meta.namespace_, a.meta.name) < std::tie(b.meta.namespace_, b.meta.name);
  }));
  Result<std::vector<Object>> result;
  result.value = std::move(out);
  co_return result;
}

}  // namespace wsim::kube
