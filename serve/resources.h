// The REST resources `wsim serve` exposes: which sim/kube kinds, under which API group, version
// and plural, namespaced or not. Discovery documents (/api, /apis, /apis/<group>/<version>) and
// URL routing both come from this one table.
//
// Threading: constant data, safe from any thread.
#pragma once

#include <string>
#include <vector>

namespace wsim::serve {

struct Resource {
  std::string kind;      // sim/kube Object::kind, e.g. "Deployment".
  std::string group;     // "" for the core group.
  std::string version;   // "v1".
  std::string plural;    // URL segment, e.g. "deployments".
  std::string singular;  // e.g. "deployment".
  bool namespaced = true;
  bool has_status = true;  // Serves the `status` subresource.
  std::vector<std::string> short_names;

  // "v1" for the core group, "apps/v1" otherwise.
  std::string api_version() const;
};

// Every served resource, core group first, then by group. Invariant: (group, plural) unique and
// kind unique.
const std::vector<Resource>& resources();

// nullptr when no served resource matches.
const Resource* find_by_plural(const std::string& group, const std::string& version,
                               const std::string& plural);
const Resource* find_by_kind(const std::string& kind);

// The API groups other than core, in table order, without duplicates.
std::vector<std::string> api_groups();

}  // namespace wsim::serve
