// Kubernetes JSON <-> sim/kube Object. sim/kube keeps spec and status as flat string maps keyed
// like JSON paths ("ownership.workspaceID", "template.labels.app"); this codec nests them into
// JSON objects and back, with the per-kind shapes kubectl's typed decoders need (integers for
// Deployment replicas, Pod nodeSelector as a map, Namespace spec.finalizers as a list, Secret
// data in base64, Node capacity). serve/README.md lists what is served and what is lost.
//
// Time: sim/kube times are virtual milliseconds; they are served as RFC 3339 timestamps of
// `epoch_wall_ms + virtual ms` (the front-end picks the epoch so that AGE columns make sense).
//
// Threading: pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "serve/resources.h"
#include "sim/kube/object.h"
#include "sim/kube/status.h"

namespace wsim::serve {

using Json = nlohmann::json;

// "2026-11-23T21:00:00Z" (second precision, as Kubernetes' metav1.Time).
std::string rfc3339(std::int64_t wall_ms);

// The JSON document a client wrote for an object (create, update, patch, apply), kept by the
// front-end so that what a client writes it reads back exactly: types, keys with dots, lists,
// fields sim/kube does not keep. sim/kube sees only `flat` (the document decoded, as before).
struct KeptDocument {
  std::string uid;    // The stored object's; a document of another uid is never used.
  Json doc;           // apiVersion, kind, metadata (client fields), spec, status, other fields.
  kube::Object flat;  // decode_object(doc): what sim/kube was given.
  Json rendered;      // The lossy rendering of `flat` (no apiVersion/kind/metadata).
};

// A KeptDocument for `doc` written to the object of `uid` (null if `doc` does not decode).
// events.k8s.io Events are kept in their core/v1 form.
std::shared_ptr<const KeptDocument> keep_document(const Json& doc, const Resource& resource,
                                                  const std::string& uid,
                                                  std::int64_t epoch_wall_ms);

// The object as the Kubernetes API serves it (apiVersion, kind, metadata, spec, status, data).
// With `kept` (of the same uid): the client's document, with every change sim/kube made since
// (the difference between the flat object's rendering then and now) applied to it; metadata the
// server owns always comes from `object`.
Json encode_object(const kube::Object& object, const Resource& resource, std::int64_t epoch_wall_ms,
                   const KeptDocument* kept = nullptr);

// Standard base64 (RFC 4648, padded); unbase64_text of malformed text is "".
std::string base64_text(const std::string& raw);
std::string unbase64_text(const std::string& text);

// An events.k8s.io/v1 Event body in core/v1 field names (regarding -> involvedObject, ...).
Json event_to_core(const Json& body);

// Decodes a request body into `out` (kind set from `resource`). Server-owned metadata (uid,
// creationTimestamp, generation, deletionTimestamp) is ignored, as sim/kube ignores it; the
// resourceVersion is kept (optimistic concurrency). Returns false with `error` naming the field
// ("metadata.labels.app: must be a string") on a malformed body.
bool decode_object(const Json& body, const Resource& resource, kube::Object& out,
                   std::string& error);

// HTTP code and Kubernetes reason of a sim/kube status code (NotFound -> 404 "NotFound",
// Gone -> 410 "Expired", ...).
int http_code(kube::Code code);
const char* status_reason(kube::Code code);

// A metav1.Status failure document. `kind_plural` and `name` fill `details` when non-empty.
Json status_document(int code, const std::string& reason, const std::string& message,
                     const std::string& group = "", const std::string& kind_plural = "",
                     const std::string& name = "");
Json status_document(const kube::Status& status, const Resource* resource = nullptr,
                     const std::string& name = "");

}  // namespace wsim::serve
