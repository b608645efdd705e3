// Parsing of resource request paths and their options (delete options, patch bodies), shared by
// the handlers of server.cc. One request = one Target.
//
// Threading: pure functions.
#pragma once

#include <string>

#include "serve/codec.h"
#include "serve/resources.h"
#include "sim/kube/client.h"

namespace wsim::serve {

struct Target {
  const Resource* resource = nullptr;
  std::string namespace_;  // From the path; empty = all namespaces / cluster-scoped.
  std::string name;        // Empty = the collection.
  bool status = false;     // The status subresource.
  bool scale = false;      // The scale subresource (autoscaling/v1 Scale).
  bool finalize = false;   // namespaces/NAME/finalize.

  kube::ObjectRef ref() const {
    return kube::ObjectRef{resource->kind, resource->namespaced ? namespace_ : "", name};
  }
};

// Parses /api/v1/... and /apis/<group>/<version>/... resource paths. False with `error` (and
// `code`: 404 for an unknown resource) otherwise.
bool parse_target(const std::string& path, Target& target, int& code, std::string& error);

// DeleteOptions from a (possibly empty) JSON body and the query's propagationPolicy /
// gracePeriodSeconds. False with `error` naming the field.
bool parse_delete_options(const std::string& body, const std::string& propagation_query,
                          const std::string& grace_query, kube::DeleteOptions& out,
                          std::string& error);

enum class PatchType { kMerge, kJson, kStrategicMerge, kApply, kUnsupported };
PatchType patch_type(const std::string& content_type);

// Applies a merge, JSON or strategic-merge patch (patch.h: the merge keys of `kind`) to
// `current` (the served JSON of an object). False with `error` on a malformed patch.
bool apply_patch(PatchType type, const Json& patch, Json& current, std::string& error,
                 const std::string& kind = "");

}  // namespace wsim::serve
