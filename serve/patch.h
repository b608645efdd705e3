// Strategic merge patch over the served JSON of an object, with the patch merge keys and
// strategies of the built-in kinds (k8s.io/api types' `patchStrategy` / `patchMergeKey` tags,
// e.g. PodSpec.Containers `patchStrategy:"merge" patchMergeKey:"name"`), and the directives
// kubectl sends: `$patch` (replace / delete / merge, in maps and list elements), `$retainKeys`,
// `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`; null deletes a field. Custom
// kinds have no merge keys (their lists are replaced, as a merge patch does).
//
// Upstream: k8s.io/apimachinery pkg/util/strategicpatch/patch.go@v0.32.0 (mergeMap, mergeSlice,
// mergeSliceWithoutSpecialElements, deleteMatchingEntries) [reconstructed: rules, not code].
//
// Threading: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wsim::serve {

// How the list at `path` (field names from the object's root, list indices left out) merges in
// a strategic merge patch of `kind`: `merge` false = replaced; `key` empty with merge = a set of
// primitives (union).
struct ListStrategy {
  bool merge = false;
  std::string key;
};
ListStrategy list_strategy(const std::string& kind, const std::vector<std::string>& path);

// Applies `patch` to `target` (both objects). False with `error` on a malformed patch.
bool strategic_merge(const std::string& kind, const nlohmann::json& patch, nlohmann::json& target,
                     std::string& error);

}  // namespace wsim::serve
