// RBAC-lite of the fake API server (rbac.h): denied triples and Kubernetes' Forbidden message
// (k8s.io/apiserver pkg/endpoints/handlers/responsewriters/errors.go forbiddenMessage).
#include "sim/kube/rbac.h"

#include "sim/kube/object_store.h"

namespace wsim::kube {

void Rbac::deny(const std::string& identity, Verb verb, const std::string& kind) {
  WSIM_ASSERT(!identity.empty());
  denied_.emplace(identity, verb, kind);
  WSIM_ASSERT(is_denied(identity, verb, kind));
}

void Rbac::allow(const std::string& identity, Verb verb, const std::string& kind) {
  WSIM_ASSERT(!identity.empty());
  denied_.erase(std::make_tuple(identity, verb, kind));
  WSIM_ASSERT_EQ(denied_.count(std::make_tuple(identity, verb, kind)), 0u);
}

bool Rbac::is_denied(const std::string& identity, Verb verb, const std::string& kind) const {
  if (denied_.empty()) return false;
  WSIM_ASSERT(!identity.empty());  // Paired with deny(): only named identities are denied.
  return denied_.count(std::make_tuple(identity, verb, kind)) != 0 ||
         denied_.count(std::make_tuple(identity, verb, std::string())) != 0;
}

Status Rbac::authorize(const std::string& identity, const Request& request,
                       const ObjectStore& store) const {
  if (denied_.empty()) return Status::Ok();
  const std::string& kind = request.ref.kind;
  Verb verb = request.verb;
  bool deny = false;
  if (verb == Verb::kApply) {
    // Server-side apply is a patch, and a create when the object does not exist yet.
    verb = Verb::kPatch;
    deny = is_denied(identity, Verb::kPatch, kind);
    if (!deny && !store.find(request.ref) && is_denied(identity, Verb::kCreate, kind)) {
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
