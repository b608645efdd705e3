// ApiServer construction, fault point declarations and RBAC-lite. The store is in store.cc,
// watches in watch.cc, the interceptor chain in interceptors.cc, the client path in client.cc.
#include "sim/kube/api_server.h"

#include "sim/kube/api_server_impl.h"

namespace wsim::kube {

namespace {
ApiServerObserver& api_server_observer() {
  static ApiServerObserver observer;
  return observer;
}
}  // namespace

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

ApiServer::Impl::Impl(Sim& s, const ApiServerOptions& o) : sim(s), options(o) {
  watch_latency = sim.stream("kube.watch");
  watch_faults = sim.stream("kube.watch.faults");
  api_latency = sim.stream("kube.api.latency");
  api_faults = sim.stream("kube.api.faults");
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
  fault_watch_expire = faults.declare(
      kFaultWatchExpire, "a watch expires with 410 Gone; the informer relists (coalescing events)",
      Ratio{1, 3}, Ratio{1, 100});
  watch_drops = sim.stream("kube.watch.drop");
  fault_watch_drop = faults.declare(
      kFaultWatchDrop,
      "a watch ends without 410 (connection dropped); the informer re-watches from its last rv",
      Ratio{1, 4}, Ratio{1, 50}, SwarmStream::kSecond);
  restart_draws = sim.stream("kube.apiserver.restart");
  fault_restart = faults.declare(kFaultApiServerRestart,
                                 "kube-apiserver restarts: down for 5-60 s (503 to every request), "
                                 "every watch ends and informers relist after their backoff",
                                 Ratio{1, 6}, Ratio{1, 1000});
}

ApiServer::ApiServer(Sim& sim, ApiServerOptions options)
    : sim_(sim), options_(std::move(options)), impl_(std::make_unique<Impl>(sim, options_)) {
  if (options_.default_fault_rules) impl_->install_default_rules();
  if (api_server_observer()) api_server_observer()(*this);
}

void set_api_server_observer(ApiServerObserver observer) {
  api_server_observer() = std::move(observer);
}

ApiServer::~ApiServer() = default;

// --- RBAC-lite ---

void ApiServer::deny(const std::string& identity, Verb verb, const std::string& kind) {
  WSIM_ASSERT(!identity.empty());
  impl_->denied.emplace(identity, verb, kind);
}

void ApiServer::allow(const std::string& identity, Verb verb, const std::string& kind) {
  WSIM_ASSERT(!identity.empty());
  impl_->denied.erase(std::make_tuple(identity, verb, kind));
}

bool ApiServer::Impl::is_denied(const std::string& identity, Verb verb,
                                const std::string& kind) const {
  if (denied.empty()) return false;
  WSIM_ASSERT(!identity.empty());  // Paired with deny(): only named identities are denied.
  return denied.count(std::make_tuple(identity, verb, kind)) != 0 ||
         denied.count(std::make_tuple(identity, verb, std::string())) != 0;
}

Status ApiServer::Impl::authorize(const std::string& identity, const Request& request) const {
  if (denied.empty()) return Status::Ok();
  const std::string& kind = request.ref.kind;
  Verb verb = request.verb;
  bool deny = false;
  if (verb == Verb::kApply) {
    // Server-side apply is a patch, and a create when the object does not exist yet.
    verb = Verb::kPatch;
    deny = is_denied(identity, Verb::kPatch, kind);
    if (!deny && !find(request.ref) && is_denied(identity, Verb::kCreate, kind)) {
      deny = true;
      verb = Verb::kCreate;
    }
  } else {
    deny = is_denied(identity, verb, kind);
  }
  if (!deny) return Status::Ok();
  std::string message = kind;
  if (!request.ref.name.empty()) message += " \"" + request.ref.name + "\"";
  message += " is forbidden: User \"" + identity + "\" cannot " + verb_name(verb) + " resource \"" +
             kind + "\"";
  message += request.ref.namespace_.empty()
                 ? " at the cluster scope"
                 : " in the namespace \"" + request.ref.namespace_ + "\"";
  return Status::Error(Code::kForbidden, message);
}

}  // namespace wsim::kube
