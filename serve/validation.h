// Request validation the API server does before an object reaches storage, worded as
// Kubernetes words it (apimachinery pkg/api/validation ValidateObjectMeta, pkg/util/validation
// IsDNS1123Subdomain / IsDNS1123Label / IsDNS1035Label; pkg/apis/apps/validation
// ValidateDeploymentSpec; the JSON decoder's type errors):
//
//  - metadata.name: required; a DNS-1123 subdomain (253 characters) for most kinds, a DNS-1123
//    label (63) for Namespaces, a DNS-1035 label (63) for Services → 422 Invalid;
//  - int32 fields of the apps kinds (spec.replicas, minReadySeconds, revisionHistoryLimit,
//    progressDeadlineSeconds) and the pod's int64 terminationGracePeriodSeconds: a JSON value
//    of another type or out of range is the decoder's 400 BadRequest ("json: cannot unmarshal
//    string into Go struct field DeploymentSpec.spec.replicas of type int32"); a negative
//    value is 422 Invalid ("must be greater than or equal to 0");
//  - a JSON body nested deeper than kJsonDepthMax is 400 (Go's encoding/json words it "exceeded
//    max depth"), before it is parsed into a tree (every walk over a parsed body recurses).
//
// Not modelled: the rest of each kind's validation (containers, selectors vs labels, ...).
//
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "serve/codec.h"
#include "serve/resources.h"

namespace wsim::serve {

// [invented] Kubernetes decodes bodies with Go's encoding/json bound, 10000. Ours is lower: the
// codec walks a body recursively, and 9990 levels overflowed an 8 MiB stack under ASan (the
// fuzz build; 5000 did not). No Kubernetes object nests anywhere near 1000.
inline constexpr std::size_t kJsonDepthMax = 1000;
// [invented] Grace periods are clamped here (100 years) so that now + grace cannot overflow
// (Kubernetes computes it with Go time arithmetic; sim/kube asserts on overflow).
inline constexpr std::int64_t kGraceSecondsMax = 100LL * 365 * 24 * 3600;

struct Invalid {
  int code = 0;         // 0 = valid; 400 or 422.
  std::string field;    // "metadata.name".
  std::string message;  // The Status message (Kubernetes' wording).
  std::string cause;    // details.causes[0].message for 422.
};

// Name rules of `kind`: "" when `name` is valid, else the messages joined by "; ".
std::string name_problems(const std::string& kind, const std::string& name);

// Validates a create/update body (already parsed) of `resource`, and clamps
// terminationGracePeriodSeconds to kGraceSecondsMax. `name` is the object's name for messages.
Invalid validate_object(Json& body, const Resource& resource);

// The body's "Kind.group" for messages: "Deployment.apps", "ConfigMap".
std::string qualified_kind(const Resource& resource);

}  // namespace wsim::serve
