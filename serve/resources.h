// The REST resources `wsim serve` exposes: which sim/kube kinds, under which API group, version
// and plural, namespaced or not. Discovery documents (/api, /apis, /apis/<group>/<version>),
// OpenAPI, URL routing and the codec's per-kind shapes all come from this list, which is the
// fake API's kind registry (sim/kube/kinds.h: the built-in kinds and the custom kinds of the
// registered systems, those marked `served`): a kind is added there (and, when it has a shape of
// its own, in codec.cc's per-kind rules).
//
// Custom resources: a CustomResourceDefinition created through the front-end registers its kind
// (register_custom); deleting it stops serving the kind (unregister_custom). These registrations
// are process-wide (every World of the process sees the same custom kinds) and stay in serve/:
// the simulated store does not learn them.
//
// Threading: the list is guarded by a mutex, and a Resource pointer handed out stays valid (and
// unchanged) for the life of the process.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  bool has_scale = false;  // Serves the `scale` subresource (spec.replicas).
  bool top_level = false;  // No spec: every top-level field is kept (Event, Lease-like kinds).
  bool custom = false;     // Defined by a CustomResourceDefinition.
  // A custom kind's OpenAPI v3 schema (the CRD version's openAPIV3Schema), null otherwise.
  nlohmann::json schema;
  std::vector<std::string> categories;

  // "v1" for the core group, "apps/v1" otherwise.
  std::string api_version() const;
};

// Every served resource (the registry's: built-in first, core group first, then the systems'
// kinds; then the front-end's CRDs in registration order). Invariant: (group, version, plural)
// unique.
std::vector<const Resource*> resources();

// nullptr when no served resource matches.
const Resource* find_by_plural(const std::string& group, const std::string& version,
                               const std::string& plural);
// The first served resource of `kind` (core v1 Event before events.k8s.io/v1 Event).
const Resource* find_by_kind(const std::string& kind);
const Resource* find_by_api_version(const std::string& api_version, const std::string& kind);

// The API groups other than core, in table order, without duplicates.
std::vector<std::string> api_groups();

// Serves a custom kind (from a CRD); an existing registration of the same group/version/plural
// is replaced. False with `error` when it would shadow a built-in resource.
bool register_custom(const Resource& resource, std::string& error);
// Stops serving every version of `group`/`plural` (the CRD was deleted).
void unregister_custom(const std::string& group, const std::string& plural);

}  // namespace wsim::serve
