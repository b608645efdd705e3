// Rbac: RBAC-lite of the fake API server (ApiServer::deny / allow): everything is allowed unless
// a (identity, verb, kind) triple is denied; an empty kind denies every kind. sim/kube internal:
// the ApiServer (api_server_impl.h) owns one and asks it about every client request.
//
// Single-threaded. Invariant: only named identities are denied (asserted on deny and lookup).
//
// Not modelled: roles, bindings, groups, resource names, subresources, aggregation.
#pragma once

#include <set>
#include <string>
#include <tuple>

#include "sim/kube/api_request.h"

namespace wsim::kube {

class ObjectStore;

class Rbac {
 public:
  // REQUIRES: `identity` non-empty.
  void deny(const std::string& identity, Verb verb, const std::string& kind);
  // Lifts a deny() (exactly the same triple).
  void allow(const std::string& identity, Verb verb, const std::string& kind);
  // Ok, or Forbidden with Kubernetes' message. Apply needs "patch", and "create" when the object
  // does not exist yet in `store` (server-side apply).
  Status authorize(const std::string& identity, const Request& request,
                   const ObjectStore& store) const;

 private:
  bool is_denied(const std::string& identity, Verb verb, const std::string& kind) const;

  std::set<std::tuple<std::string, Verb, std::string>> denied_;
};

}  // namespace wsim::kube
