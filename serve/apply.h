// Field ownership over JSON documents: metadata.managedFields (FieldsV1), server-side apply
// (conflicts between managers, --force-conflicts, removal of fields a manager no longer applies)
// and the Update entries of ordinary writes.
//
// Upstream: sigs.k8s.io/structured-merge-diff/v4 merge/update.go@v4.4.2 (Updater.Apply, Update:
// conflicts only where the applied value differs from the live one; force moves ownership;
// prune of fields the applier dropped and nobody else owns), fieldpath/serialize.go (FieldsV1:
// "f:", "k:", "v:" and "." members), k8s.io/apiserver pkg/endpoints/handlers/fieldmanager
// internal/conflict.go@v0.32.0 (the 409 message and causes) [reconstructed: rules, not code].
// Simplifications: one version per kind; list types come from patch.h's merge keys (a list
// with no merge key is atomic); status is never owned through the main resource.
//
// Threading: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace wsim::serve {

struct ApplyConflict {
  std::string message;  // Kubernetes' wording: "Apply failed with 1 conflict: conflict with ...".
  nlohmann::json causes = nlohmann::json::array();  // metav1.StatusCause list.
};

struct FieldManagerInput {
  std::string kind;
  std::string api_version;
  std::string manager;
  std::string time;  // RFC 3339: the managedFields entry's time.
};

// Server-side apply of `config` by `in.manager` to `live` (the served object; null = none yet).
// On success `out` is the new object with managedFields. False with `conflict` when a field the
// config sets to another value is owned by another manager and `force` is false; false with
// `error` (conflict.message empty) on a malformed config.
bool server_side_apply(const FieldManagerInput& in, const nlohmann::json* live,
                       const nlohmann::json& config, bool force, nlohmann::json& out,
                       ApplyConflict& conflict, std::string& error);

// An ordinary write (create, update, patch) by `in.manager`: fields it changed from `before`
// (null for a create) to `after` become its (operation Update) and leave every other manager;
// fields gone from `after` leave every manager. Writes `after`'s metadata.managedFields.
void track_update(const FieldManagerInput& in, const nlohmann::json* before, nlohmann::json& after);

}  // namespace wsim::serve
