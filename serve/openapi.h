// OpenAPI documents of the served kinds: /openapi/v3 (the index), /openapi/v3/api/v1 and
// /openapi/v3/apis/<group>/<version> (paths with their PATCH operations and parameters, so
// kubectl sees server-side field validation and does no client-side validation; schemas with
// x-kubernetes-group-version-kind, so `kubectl explain` finds them), and /openapi/v2 (Swagger 2.0
// JSON of the same schemas). Built-in kinds have the fields wsim's users write most (spec.replicas,
// containers, ports, ...), with short descriptions; other fields are allowed
// (x-kubernetes-preserve-unknown-fields). A custom kind's schema is its CRD's openAPIV3Schema.
//
// Threading: pure functions over the resource registry (resources.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace wsim::serve {

nlohmann::json openapi_v3_index();
// Null when no served resource is in `group`/`version` ("" = core).
nlohmann::json openapi_v3_group_version(const std::string& group, const std::string& version);
nlohmann::json openapi_v2();

}  // namespace wsim::serve
