// RFC 6902 JSON patches with the API server's bounds (k8s.io/apiserver
// pkg/endpoints/handlers/patch.go and pkg/server/config.go @ v1.32):
//  - at most kJsonPatchOpsMax operations (more: 413 RequestEntityTooLarge, checked by the
//    handler before anything is applied);
//  - `copy` operations may add at most kJsonPatchCopyBytesMax bytes in all (the apiserver's
//    JSONPatchMaxCopyBytes, given to evanphx/json-patch as AccumulatedCopySizeLimit): a patch
//    of a few copies can otherwise double the object each time (18 copies: 5 GB);
//  - [invented] the patched document nests at most kJsonDepthMax deep (validation.h), so that
//    walking it cannot exhaust the stack; Kubernetes bounds this when it decodes the result.
//
// Threading: pure functions.
#pragma once

#include <cstddef>
#include <string>

#include "serve/codec.h"

namespace wsim::serve {

inline constexpr std::size_t kJsonPatchOpsMax = 10000;
inline constexpr std::size_t kJsonPatchCopyBytesMax = 3u << 20;

// Applies `patch` (an array of operations) to `doc` operation by operation. False with
// `error` (doc then holds a partial result: the caller discards it) when an operation fails or
// a bound is passed. Throws nlohmann::json::exception on malformed operations, as Json::patch.
bool apply_json_patch_bounded(const Json& patch, Json& doc, std::string& error);

// The serialized size (approximate: strings and numbers as their text, plus punctuation) and
// the nesting depth of `value`, without recursion; stops counting past `bytes_max`.
void measure_json(const Json& value, std::size_t bytes_max, std::size_t& bytes, std::size_t& depth);

}  // namespace wsim::serve
