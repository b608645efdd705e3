// ApiServer: construction (the fault points and choice streams, declared in a fixed order: the
// order is part of every run's choices) and the public surface, each call handed to its room
// (api_server_impl.h): the store (store.cc), the watch hub (watch.cc), the interceptor chain
// (interceptors.cc), RBAC-lite (rbac.cc); the client path is in client.cc.
#include "sim/kube/api_server.h"

#include "sim/kube/api_server_impl.h"

namespace wsim::kube {

const char* verb_name(Verb verb) {
  switch (verb) {
    case Verb::kGet:
      return "get";
    case Verb::kList:
      return "list";
    case Verb::kWatch:
      return "watch";
    case Verb::kCreate:
      return "create";
    case Verb::kUpdate:
      return "update";
    case Verb::kPatch:
      return "patch";
    case Verb::kDelete:
      return "delete";
    case Verb::kApply:
      return "apply";
  }
  WSIM_ASSERT_MSG(false, "verb_name: not a Verb: " << static_cast<int>(verb));
  return "unknown";
}

ApiServer::Impl::Impl(Sim& sim, const ApiServerOptions& options)
    : sim_(sim),
      options_(options),
      watches_(sim, options),
      store_(sim, options, watches_),
      interceptors_(sim, watches_) {
  WatchDraws watch;
  InterceptorDraws chain;
  watch.latency = sim.stream("kube.watch");
  watch.faults = sim.stream("kube.watch.faults");
  api_latency_ = sim.stream("kube.api.latency");
  chain.api_faults = sim.stream("kube.api.faults");
  // Swarm defaults (enable ratio per run, fire ratio per evaluation); a scenario may force them.
  Faults& faults = sim.faults();
  faults.declare(kFaultConflict,
                 "API answers 409 Conflict to an update/patch/delete without applying it",
                 Ratio{1, 3}, Ratio{1, 20});
  faults.declare(kFaultError5xx, "API answers 500 or 503 without applying the request", Ratio{1, 3},
                 Ratio{1, 20});
  faults.declare(kFaultThrottle, "API answers 429 Too Many Requests without applying", Ratio{1, 4},
                 Ratio{1, 20});
  faults.declare(kFaultLostRequest, "request lost on the way: not applied, the client times out",
                 Ratio{1, 4}, Ratio{1, 50});
  faults.declare(kFaultLostResponse, "response lost: the request was applied, the client times out",
                 Ratio{1, 4}, Ratio{1, 50});
  // Pins on these count requests (sim/core/fault.h; docs/shrinking.md §6).
  for (const char* name :
       {kFaultConflict, kFaultError5xx, kFaultThrottle, kFaultLostRequest, kFaultLostResponse}) {
    FaultId id = 0;
    WSIM_ASSERT(faults.find(name, id));
    faults.set_per_request(id);
  }
  watch.expire = faults.declare(
      kFaultWatchExpire, "a watch expires with 410 Gone; the informer relists (coalescing events)",
      Ratio{1, 3}, Ratio{1, 100});
  watch.drops = sim.stream("kube.watch.drop");
  watch.drop = faults.declare(
      kFaultWatchDrop,
      "a watch ends without 410 (connection dropped); the informer re-watches from its last rv",
      Ratio{1, 4}, Ratio{1, 50}, SwarmStream::kSecond);
  chain.restart = sim.stream("kube.apiserver.restart");
  chain.restart_fault = faults.declare(kFaultApiServerRestart,
                                       "kube-apiserver restarts: down for 5-60 s (503 to every "
                                       "request), every watch ends and informers relist after "
                                       "their backoff",
                                       Ratio{1, 6}, Ratio{1, 1000});
  WSIM_ASSERT_NE(watch.expire, watch.drop);
  watches_.set_draws(std::move(watch));
  interceptors_.set_draws(std::move(chain));
}

std::uint64_t ApiServer::Impl::resource_version() const {
  // Paired: every write of the store is emitted into the hub with its resourceVersion.
  WSIM_ASSERT_EQ(store_.resource_version(), watches_.resource_version());
  return store_.resource_version();
}

ApiServer::ApiServer(Sim& sim, ApiServerOptions options)
    : sim_(sim), options_(std::move(options)), impl_(std::make_unique<Impl>(sim, options_)) {
  WSIM_ASSERT_LE(options_.min_latency_ms, options_.max_latency_ms);
  WSIM_ASSERT_LE(options_.watch_min_latency_ms, options_.watch_max_latency_ms);
  if (options_.default_fault_rules) impl_->interceptors().install_default_rules();
  WSIM_ASSERT_EQ(current_resource_version(), 0u);  // A new server is empty.
}

ApiServer::~ApiServer() = default;

// --- RBAC-lite (rbac.cc) ---

void ApiServer::deny(const std::string& identity, Verb verb, const std::string& kind) {
  WSIM_ASSERT(!identity.empty());
  impl_->rbac().deny(identity, verb, kind);
}

void ApiServer::allow(const std::string& identity, Verb verb, const std::string& kind) {
  WSIM_ASSERT(!identity.empty());
  impl_->rbac().allow(identity, verb, kind);
}

// --- The interceptor chain (interceptors.cc) ---

InterceptorId ApiServer::add_interceptor(InterceptorRule rule) {
  WSIM_ASSERT_GE(rule.times, -1);  // -1 = unlimited, else how often it may fire.
  const InterceptorId id = impl_->interceptors().add(std::move(rule));
  WSIM_ASSERT_NE(id, 0u);
  return id;
}

void ApiServer::remove_interceptor(InterceptorId id) {
  WSIM_ASSERT_NE(id, 0u);
  impl_->interceptors().remove(id);
  WSIM_ASSERT_EQ(impl_->interceptors().fired(id), 0);  // Gone: it fires no more.
}

void ApiServer::clear_interceptors() {
  impl_->interceptors().clear();
  WSIM_ASSERT_EQ(impl_->interceptors().fired(1), 0);  // The first (default) rule is gone too.
}

int ApiServer::interceptor_fired(InterceptorId id) const {
  const int fired = impl_->interceptors().fired(id);
  WSIM_ASSERT_GE(fired, 0);
  return fired;
}

// --- Watches and listeners (watch.cc, listeners.cc) ---

void ApiServer::subscribe(const std::string& kind, Listener listener, ListenAt at) {
  WSIM_ASSERT(listener != nullptr);
  impl_->watches().subscribe(kind, std::move(listener), at);
}

void ApiServer::expire_watches(const std::string& identity) {
  impl_->watches().expire_all(identity);
  if (identity.empty()) WSIM_ASSERT_EQ(watch_count(), 0u);  // Every watch ends.
}

void ApiServer::drop_watches(const std::string& identity) {
  impl_->watches().drop_all(identity);
  if (identity.empty()) WSIM_ASSERT_EQ(watch_count(), 0u);
}

std::size_t ApiServer::watch_count() const { return impl_->watches().open_count(); }

std::vector<ApiServer::InformerCacheView> ApiServer::informer_caches() const {
  std::vector<InformerCacheView> out;
  for (const auto& [id, view] : impl_->informers()->views) {
    std::optional<InformerCacheView> one = view();
    if (one) out.push_back(std::move(*one));
  }
  WSIM_ASSERT_LE(out.size(), impl_->informers()->views.size());
  return out;
}

// --- The store: the synchronous server_* surface (store.cc) ---
//
// Each write checks its result against the store: a failed write wrote nothing (the
// resourceVersion did not move), a successful one is at or below the current resourceVersion
// (listeners inside the write may have written more since).

namespace {

void check_write(const Status& status, std::uint64_t rv_before, std::uint64_t rv_after) {
  if (!status.ok()) WSIM_ASSERT_EQ(rv_after, rv_before);
  WSIM_ASSERT_GE(rv_after, rv_before);
}

}  // namespace

const Object* ApiServer::peek(const ObjectRef& ref) const {
  const auto* slot = impl_->store().find(ref);  // find() normalizes.
  if (slot != nullptr) WSIM_ASSERT_EQ((*slot)->kind, ref.kind);
  return slot ? slot->get() : nullptr;
}

const Object* ApiServer::peek(const ObjectRefView& ref) const {
  const auto* slot = impl_->store().find(ref);
  if (slot != nullptr) WSIM_ASSERT((*slot)->kind == ref.kind);
  return slot ? slot->get() : nullptr;
}

std::vector<const Object*> ApiServer::peek_list(const std::string& kind,
                                                const std::string& namespace_,
                                                const LabelSelector& selector) const {
  std::vector<const Object*> out = impl_->store().peek_list(kind, namespace_, selector);
  if (!kind.empty() && !out.empty()) WSIM_ASSERT_EQ(out.front()->kind, kind);
  if (!namespace_.empty() && !out.empty()) WSIM_ASSERT_EQ(out.back()->meta.namespace_, namespace_);
  return out;
}

std::size_t ApiServer::object_count() const {
  const std::size_t count = impl_->store().object_count();
  // Every stored object took at least one write (its create).
  WSIM_ASSERT_LE(count, impl_->store().resource_version());
  return count;
}

std::uint64_t ApiServer::current_resource_version() const {
  const std::uint64_t rv = impl_->resource_version();
  WSIM_ASSERT_GE(rv, impl_->store().object_count());
  return rv;
}

Result<Object> ApiServer::server_create(Object object, const std::string& actor) {
  const std::uint64_t rv_before = current_resource_version();
  Result<Object> created = impl_->store().create(std::move(object));
  check_write(created.status, rv_before, current_resource_version());
  if (created.ok()) WSIM_ASSERT_EQ(created.value.meta.resource_version, rv_before + 1);
  return created;
}

Result<Object> ApiServer::server_update(Object object, Subresource subresource,
                                        const std::string& actor) {
  const std::uint64_t rv_before = current_resource_version();
  Result<Object> updated = impl_->store().update(std::move(object), subresource);
  check_write(updated.status, rv_before, current_resource_version());
  return updated;
}

Result<Object> ApiServer::server_patch(const ObjectRef& ref, const MergePatch& patch,
                                       Subresource subresource, const std::string& actor) {
  const std::uint64_t rv_before = current_resource_version();
  Result<Object> patched = impl_->store().patch(ref, patch, subresource);
  check_write(patched.status, rv_before, current_resource_version());
  return patched;
}

Status ApiServer::server_delete(const ObjectRef& ref, const DeleteOptions& options,
                                const std::string& actor) {
  const std::uint64_t rv_before = current_resource_version();
  Status status = impl_->store().remove(ref, options);
  check_write(status, rv_before, current_resource_version());
  return status;
}

Result<Object> ApiServer::server_apply(Object object, const std::string& field_manager,
                                       const std::string& actor) {
  const std::uint64_t rv_before = current_resource_version();
  Result<Object> applied = impl_->store().apply(std::move(object));
  check_write(applied.status, rv_before, current_resource_version());
  return applied;
}

void ApiServer::server_finalize(const ObjectRef& ref, const std::string& actor) {
  const Object* before = peek(ref);
  const bool deleting = before != nullptr && before->meta.deletion_ms.has_value();
  const std::uint64_t rv_before = current_resource_version();
  impl_->store().finalize(ref);
  // Only a deleting object is finalized: anything else is left as it was.
  if (!deleting) WSIM_ASSERT_EQ(current_resource_version(), rv_before);
}

}  // namespace wsim::kube
