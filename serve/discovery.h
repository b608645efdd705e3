// Kubernetes discovery documents for the resources of resources.h: /version, /api, /apis,
// /api/v1 and /apis/<group>/<version> (the legacy, non-aggregated discovery every client falls
// back to).
//
// Threading: pure functions.
#pragma once

#include <string>

#include "serve/codec.h"

namespace wsim::serve {

Json version_document();
Json core_versions_document(const std::string& server_address);  // GET /api
Json group_list_document();                                      // GET /apis
// GET /api/v1 (group "") or /apis/<group>/<version>; null when no such group version.
Json resource_list_document(const std::string& group, const std::string& version);

}  // namespace wsim::serve
