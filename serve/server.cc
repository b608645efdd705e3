// Server (server.h): the REST front-end's handlers (Api: list, watch, get, create, update, apply,
// patch, delete, scale, finalize), routing, discovery and health paths, and the lockstep path
// through the simulation (through_simulation). Any exception becomes a 500 Status; bodies nested
// deeper than kJsonDepthMax are refused before parsing. Bounds and threading: server.h.
#include "serve/server.h"

#include <cassert>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "serve/apply.h"
#include "serve/crd.h"
#include "serve/discovery.h"
#include "serve/http_server.h"
#include "serve/json_patch.h"
#include "serve/openapi.h"
#include "serve/protobuf_body.h"
#include "serve/request.h"
#include "serve/selector.h"
#include "serve/table.h"
#include "serve/validation.h"
#include "serve/watch_stream.h"
#include "serve/yaml_body.h"

namespace wsim::serve {
namespace {

// Invalid UTF-8 (a name from a percent-encoded path, a selector) is replaced by U+FFFD, as
// Go's encoding/json does, instead of throwing.
void reply(http::Response& res, int code, const Json& body) {
  res.status = code;
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

void reply_status(http::Response& res, const kube::Status& status, const Resource* resource,
                  const std::string& name) {
  reply(res, http_code(status.code), status_document(status, resource, name));
}

void reply_bad_request(http::Response& res, const std::string& message) {
  reply(res, 400, status_document(400, "BadRequest", message));
}

// `message` is "field: what" (codec.h); kubectl prints the causes.
void reply_invalid(http::Response& res, const Target& t, const std::string& name,
                   const std::string& message) {
  Json doc =
      status_document(422, "Invalid", t.resource->kind + " \"" + name + "\" is invalid: " + message,
                      t.resource->group, t.resource->plural, name);
  const std::size_t colon = message.find(": ");
  doc["details"]["causes"] = {
      {{"reason", "FieldValueInvalid"}, {"message", message}, {"field", message.substr(0, colon)}}};
  reply(res, 422, doc);
}

// A validation failure (validation.h): 400 for the decoder's type errors, else 422 Invalid with
// the cause kubectl prints.
void reply_validation(http::Response& res, const Target& t, const Json& body,
                      const Invalid& invalid) {
  if (invalid.code == 400) return reply_bad_request(res, invalid.message);
  const Json meta = body.is_object() ? body.value("metadata", Json::object()) : Json::object();
  const std::string name = meta.is_object() && meta.value("name", Json()).is_string()
                               ? meta["name"].get<std::string>()
                               : t.name;
  Json doc =
      status_document(422, "Invalid", invalid.message, t.resource->group, t.resource->plural, name);
  doc["details"]["causes"] = {
      {{"reason", "FieldValueInvalid"}, {"message", invalid.cause}, {"field", invalid.field}}};
  reply(res, 422, doc);
}

// The client's name for traces: the User-Agent's product ("kubectl"), else "serve".
std::string actor_of(const http::Request& req) {
  const std::string agent = req.get_header_value("User-Agent");
  const std::string product = agent.substr(0, agent.find('/'));
  return product.empty() ? "serve" : http::sanitize_utf8(product);
}

bool parse_json(const std::string& body, Json& out) {
  out = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  return !out.is_discarded();
}

// The handlers of one resource request; `t` is the parsed path.
struct Api {
  World& world;
  const ServerOptions& options;
  std::string body;  // The request body as JSON text (protobuf bodies are converted).

  Json encode(const kube::Object& object, const Target& t) const {
    const auto kept = world.document(object);
    return encode_object(object, *t.resource, options.epoch_wall_ms, kept.get());
  }
  // Keeps `doc` as the client's document of the stored `object` (codec.h KeptDocument); a CRD
  // (re)registers its kind.
  // Returns the object as stored after it (a CRD is accepted with a status write).
  kube::Object keep(const Json& doc, const kube::Object& object, const Target& t) const;
  // The served JSON of `object` with `doc`'s status (`status` true) or everything but status.
  Json document_for_update(const Json& body, const Target& t) const;
  void finalize(const http::Request& req, http::Response& res, const Target& t) const;
  void remove_collection(const http::Request& req, http::Response& res, const Target& t) const;
  bool dry_run = false;  // ?dryRun=All: validated and answered, not written.

  void list(const http::Request& req, http::Response& res, const Target& t) const;
  void watch(const http::Request& req, http::Response& res, const Target& t) const;
  void get(const http::Request& req, http::Response& res, const Target& t) const;
  void create(const http::Request& req, http::Response& res, const Target& t) const;
  void update(const http::Request& req, http::Response& res, const Target& t) const;
  void patch(const http::Request& req, http::Response& res, const Target& t) const;
  void remove(const http::Request& req, http::Response& res, const Target& t) const;
  // Validates and decodes a create/update/apply document and checks it against the path;
  // false after replying.
  bool decode_json(const Json& body, http::Response& res, const Target& t,
                   kube::Object& object) const;
  Json dry_run_answer(const Json& doc, kube::Object object, const Target& t,
                      const kube::Object* existing) const;
  kube::Status conflict_status(const Target& t) const;
  void apply(const http::Request& req, http::Response& res, const Target& t,
             const Json& config) const;
  Json scale_document(const kube::Object& object, const Target& t) const;
  void scale(const http::Request& req, http::Response& res, const Target& t,
             const Json* patch = nullptr, PatchType type = PatchType::kMerge) const;
};

bool parse_selector_of(const http::Request& req, http::Response& res, Selector& selector) {
  std::string error;
  if (parse_selector(req.get_param_value("labelSelector"), req.get_param_value("fieldSelector"),
                     selector, error)) {
    return true;
  }
  reply_bad_request(res, error);
  return false;
}

// resourceVersion query values: "" and "0" = any; else a decimal resourceVersion.
bool parse_rv(const std::string& text, std::uint64_t& out) {
  out = 0;
  if (text.empty()) return true;
  if (text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) return false;
  out = std::stoull(text);
  return true;
}

// Go's strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False. Absent = false.
bool parse_bool(const std::string& text, bool& out) {
  static const std::set<std::string> yes = {"1", "t", "T", "TRUE", "true", "True"};
  static const std::set<std::string> no = {"", "0", "f", "F", "FALSE", "false", "False"};
  out = yes.count(text) > 0;
  return out || no.count(text) > 0;
}

bool bool_param(const http::Request& req, const char* name) {
  bool value = false;
  parse_bool(req.get_param_value(name), value);
  return value;
}

// The list continue token: the resourceVersion of the first page and the last key served
// ("namespace/name"), base64 of JSON like the API server's (an opaque string to clients).
std::string continue_token(std::uint64_t rv, const kube::Object& last) {
  const Json token = {{"rv", rv}, {"start", last.meta.namespace_ + "/" + last.meta.name}};
  return base64_text(token.dump());
}

bool parse_continue(const std::string& text, std::uint64_t& rv, std::string& start) {
  const Json token = Json::parse(unbase64_text(text), nullptr, false);
  if (!token.is_object() || !token.value("rv", Json()).is_number_unsigned() ||
      !token.value("start", Json()).is_string()) {
    return false;
  }
  rv = token["rv"].get<std::uint64_t>();
  start = token["start"].get<std::string>();
  return true;
}

std::string now_time(World& world, const ServerOptions& options) {
  return rfc3339(options.epoch_wall_ms + world.now_ms());
}

// The field manager of a write: ?fieldManager=, else the User-Agent's product (as the API
// server's prefixFromUserAgent).
std::string manager_of(const http::Request& req) {
  const std::string manager = req.get_param_value("fieldManager");
  if (!manager.empty()) return manager;
  const std::string agent = req.get_header_value("User-Agent");
  const std::string product = agent.substr(0, agent.find('/'));
  return product.empty() ? "unknown" : product.substr(0, 128);
}

FieldManagerInput manager_input(const http::Request& req, const Target& t, World& world,
                                const ServerOptions& options) {
  return {t.resource->kind, t.resource->api_version(), manager_of(req), now_time(world, options)};
}

void Api::list(const http::Request& req, http::Response& res, const Target& t) const {
  Selector selector;
  if (!parse_selector_of(req, res, selector)) return;
  std::uint64_t asked_rv = 0;
  if (!parse_rv(req.get_param_value("resourceVersion"), asked_rv)) {
    return reply_bad_request(
        res, "resourceVersion: invalid value \"" + req.get_param_value("resourceVersion") + "\"");
  }
  std::uint64_t rv = 0;
  const std::vector<kube::Object> objects = world.list(t.resource->kind, t.namespace_, rv);
  if (asked_rv > rv) {
    return reply(res, 504,
                 status_document(504, "Timeout",
                                 "Too large resource version: " + std::to_string(asked_rv) +
                                     ", current: " + std::to_string(rv)));
  }
  if (req.get_param_value("resourceVersionMatch") == "Exact" && asked_rv != rv) {
    return reply(res, 410,
                 status_document(410, "Expired",
                                 "too old resource version: " + std::to_string(asked_rv) + " (" +
                                     std::to_string(rv) + ")"));
  }
  // Pagination: after the continue token's key, at most `limit` objects; the page keeps the
  // first page's resourceVersion (the objects are the current ones: see serve/README.md).
  std::string start;
  const std::string token = req.get_param_value("continue");
  if (!token.empty() && !parse_continue(token, rv, start)) {
    return reply_bad_request(res, "continue key is not valid: illegal base64 data");
  }
  std::size_t limit = 0;
  const std::string limit_text = req.get_param_value("limit");
  if (!limit_text.empty() && limit_text.find_first_not_of("0123456789") == std::string::npos &&
      limit_text.size() < 10) {
    limit = std::stoul(limit_text);
  }
  std::vector<kube::Object> matching;
  std::string next;
  std::size_t remaining = 0;
  for (const kube::Object& object : objects) {
    if (!start.empty() && object.meta.namespace_ + "/" + object.meta.name <= start) continue;
    if (!selector.matches(object)) continue;
    if (limit != 0 && matching.size() == limit) {
      ++remaining;
      continue;
    }
    matching.push_back(object);
  }
  if (remaining > 0) next = continue_token(rv, matching.back());
  Json metadata = {{"resourceVersion", std::to_string(rv)}};
  if (!next.empty()) {
    metadata["continue"] = next;
    metadata["remainingItemCount"] = remaining;
  }
  if (wants_table(req.get_header_value("Accept"))) {
    Json table = table_of(matching, *t.resource, rv, world.now_ms(), options.epoch_wall_ms);
    table["metadata"] = metadata;
    return reply(res, 200, table);
  }
  Json items = Json::array();
  for (const kube::Object& object : matching) items.push_back(encode(object, t));
  reply(res, 200,
        {{"kind", t.resource->kind + "List"},
         {"apiVersion", t.resource->api_version()},
         {"metadata", metadata},
         {"items", items}});
}

void Api::watch(const http::Request& req, http::Response& res, const Target& t) const {
  WatchRequest request;
  request.resource = t.resource;
  request.namespace_ = t.namespace_;
  if (!parse_selector_of(req, res, request.selector)) return;
  if (!parse_rv(req.get_param_value("resourceVersion"), request.resource_version)) {
    return reply_bad_request(res, "resourceVersion: invalid value");
  }
  request.from_now = request.resource_version == 0;
  request.bookmarks = bool_param(req, "allowWatchBookmarks");
  request.table = wants_table(req.get_header_value("Accept"));
  request.duration_ms = options.watch_max_ms;
  const std::string timeout_s = req.get_param_value("timeoutSeconds");
  if (!timeout_s.empty() && timeout_s.find_first_not_of("0123456789") == std::string::npos &&
      timeout_s.size() < 9) {
    request.duration_ms = std::min<std::int64_t>(request.duration_ms, std::stoll(timeout_s) * 1000);
  }
  request.bookmark_interval_ms = options.bookmark_interval_ms;
  request.epoch_wall_ms = options.epoch_wall_ms;
  auto stream = std::make_shared<WatchStream>(world, std::move(request));
  // Not "application/json": httplib would gzip it (kubectl accepts gzip) and hold the events in
  // the compressor until the stream ends. Kubernetes' own watch media type parameter instead.
  res.set_chunked_content_provider("application/json;stream=watch",
                                   [stream](std::size_t, http::DataSink& sink) {
                                     std::string lines;
                                     const bool more = stream->next(lines);
                                     if (!lines.empty() && !sink.write(lines.data(), lines.size()))
                                       return false;
                                     if (!more) sink.done();
                                     return sink.is_writable();
                                   });
}

void Api::get(const http::Request& req, http::Response& res, const Target& t) const {
  const kube::Result<kube::Object> found = world.get(t.ref());
  if (!found.ok()) return reply_status(res, found.status, t.resource, t.name);
  if (t.scale) return reply(res, 200, scale_document(found.value, t));
  if (wants_table(req.get_header_value("Accept")) && !t.status) {
    return reply(res, 200,
                 table_of({found.value}, *t.resource, found.value.meta.resource_version,
                          world.now_ms(), options.epoch_wall_ms));
  }
  reply(res, 200, encode(found.value, t));
}

bool Api::decode_json(const Json& sent, http::Response& res, const Target& t,
                      kube::Object& object) const {
  Json body = sent;
  const Invalid invalid = validate_object(body, *t.resource);
  if (invalid.code != 0) {
    reply_validation(res, t, body, invalid);
    return false;
  }
  std::string error;
  if (!decode_object(body, *t.resource, object, error)) {
    const Json name = body.is_object() && body.value("metadata", Json::object()).is_object()
                          ? body.value("metadata", Json::object()).value("name", Json())
                          : Json();
    reply_invalid(res, t, name.is_string() ? name.get<std::string>() : t.name, error);
    return false;
  }
  if (t.resource->namespaced && object.meta.namespace_.empty()) {
    object.meta.namespace_ = t.namespace_;
  }
  if (t.resource->namespaced && object.meta.namespace_ != t.namespace_) {
    reply_bad_request(res,
                      "the namespace of the provided object does not match the namespace "
                      "sent on the request");
    return false;
  }
  if (!t.name.empty() && object.meta.name != t.name) {
    reply_bad_request(res, "the name of the object (" + object.meta.name +
                               ") does not match the name on the URL (" + t.name + ")");
    return false;
  }
  return true;
}

kube::Object Api::keep(const Json& doc, const kube::Object& object, const Target& t) const {
  if (t.resource->kind != "CustomResourceDefinition") {
    world.keep(keep_document(doc, *t.resource, object.meta.uid, options.epoch_wall_ms));
    return object;
  }
  // A CRD: its kind is served from now on, and it is accepted at once (status conditions).
  std::string error;
  register_crd(doc, error);  // Validated in decode_json.
  Json accepted = doc;
  accepted["status"] = crd_status(doc, now_time(world, options));
  kube::Object with_status;
  if (decode_object(accepted, *t.resource, with_status, error)) {
    with_status.meta.resource_version = 0;
    const kube::Result<kube::Object> written =
        world.update(std::move(with_status), kube::Subresource::kStatus, "apiextensions");
    if (written.ok()) {
      world.keep(
          keep_document(accepted, *t.resource, written.value.meta.uid, options.epoch_wall_ms));
      return written.value;
    }
  }
  world.keep(keep_document(doc, *t.resource, object.meta.uid, options.epoch_wall_ms));
  return object;
}

// What a dry run answers for `object` (not stored): as if created or updated now.
Json Api::dry_run_answer(const Json& doc, kube::Object object, const Target& t,
                         const kube::Object* existing) const {
  if (existing != nullptr) {
    object.meta.uid = existing->meta.uid;
    object.meta.creation_ms = existing->meta.creation_ms;
    object.meta.generation = existing->meta.generation;
    object.meta.resource_version = existing->meta.resource_version;
  } else {
    object.meta.uid = "dry-run";
    object.meta.creation_ms = world.now_ms();
    object.meta.generation = 1;
  }
  const auto kept = keep_document(doc, *t.resource, object.meta.uid, options.epoch_wall_ms);
  return encode_object(object, *t.resource, options.epoch_wall_ms, kept.get());
}

void Api::create(const http::Request& req, http::Response& res, const Target& t) const {
  Json doc;
  if (!parse_json(this->body, doc)) return reply_bad_request(res, "the request body is not JSON");
  kube::Object object;
  if (!decode_json(doc, res, t, object)) return;
  if (!doc.contains("metadata") || !doc["metadata"].is_object()) doc["metadata"] = Json::object();
  if (t.resource->namespaced) doc["metadata"]["namespace"] = object.meta.namespace_;
  track_update(manager_input(req, t, world, options), nullptr, doc);
  const std::string name = object.meta.name;
  if (dry_run) {
    const kube::Result<kube::Object> found = world.get(kube::ObjectRef::of(object));
    if (found.ok()) {
      return reply_status(
          res,
          kube::Status::Error(kube::Code::kAlreadyExists,
                              t.resource->plural + " \"" + name + "\" already exists"),
          t.resource, name);
    }
    return reply(res, 201, dry_run_answer(doc, object, t, nullptr));
  }
  const kube::Result<kube::Object> created = world.create(std::move(object), actor_of(req));
  if (!created.ok()) return reply_status(res, created.status, t.resource, name);
  reply(res, 201, encode(keep(doc, created.value, t), t));
}

Json Api::document_for_update(const Json& body, const Target& t) const {
  const kube::Result<kube::Object> current = world.get(t.ref());
  if (!current.ok()) return body;
  Json served = encode(current.value, t);
  if (t.status) {
    if (body.is_object() && body.contains("status")) served["status"] = body["status"];
    if (body.is_object() && body.contains("metadata")) {
      served["metadata"]["resourceVersion"] = body["metadata"].value("resourceVersion", Json());
    }
    return served;
  }
  Json doc = body;
  if (served.contains("status") && doc.is_object()) doc["status"] = served["status"];
  if (doc.is_object() && doc.contains("metadata") && doc["metadata"].is_object() &&
      !doc["metadata"].contains("managedFields") && served["metadata"].contains("managedFields")) {
    doc["metadata"]["managedFields"] = served["metadata"]["managedFields"];
  }
  return doc;
}

void Api::update(const http::Request& req, http::Response& res, const Target& t) const {
  if (t.scale) return scale(req, res, t);
  if (t.finalize) return finalize(req, res, t);
  Json body;
  if (!parse_json(this->body, body)) return reply_bad_request(res, "the request body is not JSON");
  Json doc = document_for_update(body, t);
  kube::Object object;
  if (!decode_json(doc, res, t, object)) return;
  const kube::Result<kube::Object> before = world.get(t.ref());
  if (before.ok()) {
    const Json served = encode(before.value, t);
    track_update(manager_input(req, t, world, options), &served, doc);
  }
  if (dry_run) {
    if (!before.ok()) return reply_status(res, before.status, t.resource, t.name);
    if (object.meta.resource_version != 0 &&
        object.meta.resource_version != before.value.meta.resource_version) {
      return reply_status(res, conflict_status(t), t.resource, t.name);
    }
    return reply(res, 200, dry_run_answer(doc, object, t, &before.value));
  }
  const auto subresource = t.status ? kube::Subresource::kStatus : kube::Subresource::kMain;
  const kube::Result<kube::Object> updated =
      world.update(std::move(object), subresource, actor_of(req));
  if (!updated.ok()) return reply_status(res, updated.status, t.resource, t.name);
  reply(res, 200, encode(keep(doc, updated.value, t), t));
}

kube::Status Api::conflict_status(const Target& t) const {
  return kube::Status::Error(kube::Code::kConflict,
                             "Operation cannot be fulfilled on " + t.resource->plural + " \"" +
                                 t.name +
                                 "\": the object has been modified; please apply your changes "
                                 "to the latest version and try again");
}

// Server-side apply (apply.h): the configuration merged into the served object with field
// ownership, then written as an update (or a create).
void Api::apply(const http::Request& req, http::Response& res, const Target& t,
                const Json& config) const {
  if (t.status || t.scale) {
    return reply_bad_request(res, "server-side apply of a subresource is not supported");
  }
  if (req.get_param_value("fieldManager").empty()) {
    return reply(res, 422,
                 status_document(422, "Invalid",
                                 "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required "
                                 "value: is required for apply patch"));
  }
  kube::Object probe;
  if (!decode_json(config, res, t, probe)) return;
  const kube::Result<kube::Object> current = world.get(t.ref());
  const Json live = current.ok() ? encode(current.value, t) : Json();
  Json out;
  ApplyConflict conflict;
  std::string error;
  if (!server_side_apply(manager_input(req, t, world, options), current.ok() ? &live : nullptr,
                         config, bool_param(req, "force"), out, conflict, error)) {
    if (conflict.message.empty()) return reply_invalid(res, t, t.name, error);
    Json doc = status_document(409, "Conflict", conflict.message, t.resource->group,
                               t.resource->plural, t.name);
    doc["details"]["causes"] = conflict.causes;
    return reply(res, 409, doc);
  }
  kube::Object object;
  if (!decode_json(out, res, t, object)) return;
  if (dry_run) {
    return reply(res, current.ok() ? 200 : 201,
                 dry_run_answer(out, object, t, current.ok() ? &current.value : nullptr));
  }
  kube::Result<kube::Object> written =
      current.ok() ? world.update(std::move(object), kube::Subresource::kMain, actor_of(req))
                   : world.create(std::move(object), actor_of(req));
  if (!written.ok()) return reply_status(res, written.status, t.resource, t.name);
  reply(res, current.ok() ? 200 : 201, encode(keep(out, written.value, t), t));
}

void Api::patch(const http::Request& req, http::Response& res, const Target& t) const {
  const PatchType type = patch_type(req.get_header_value("Content-Type"));
  if (type == PatchType::kUnsupported) {
    return reply(res, 415,
                 status_document(415, "UnsupportedMediaType",
                                 "the body of the request was in an unknown format - "
                                 "accepted media types include: "
                                 "application/json-patch+json, "
                                 "application/merge-patch+json, "
                                 "application/apply-patch+yaml, "
                                 "application/strategic-merge-patch+json"));
  }
  Json body;
  std::string error;
  if (type == PatchType::kApply) {
    if (!parse_apply_body(this->body, body, error)) return reply_bad_request(res, error);
    return apply(req, res, t, body);
  }
  if (!parse_json(this->body, body)) return reply_bad_request(res, "the patch is not JSON");
  if (type == PatchType::kJson && body.is_array() && body.size() > kJsonPatchOpsMax) {
    return reply(res, 413,
                 status_document(413, "RequestEntityTooLarge",
                                 "Request entity too large: The allowed maximum operations in a "
                                 "JSON patch is " +
                                     std::to_string(kJsonPatchOpsMax) + ", got " +
                                     std::to_string(body.size())));
  }
  if (t.scale) return scale(req, res, t, &body, type);
  // Applied to the object read; a write that meets a newer version is retried on it (as the API
  // server's patcher does), unless the patch names a resourceVersion (a precondition).
  const bool precondition = body.is_object() &&
                            body.value("metadata", Json::object()).is_object() &&
                            body.value("metadata", Json::object()).contains("resourceVersion");
  for (int attempt = 0;; ++attempt) {
    const kube::Result<kube::Object> current = world.get(t.ref());
    if (!current.ok()) return reply_status(res, current.status, t.resource, t.name);
    const Json served = encode(current.value, t);
    Json patched = served;
    kube::Object object;
    if (!apply_patch(type, body, patched, error, t.resource->kind)) {
      return reply_invalid(res, t, t.name, error);
    }
    const Invalid invalid = validate_object(patched, *t.resource);
    if (invalid.code != 0) return reply_validation(res, t, patched, invalid);
    if (!decode_object(patched, *t.resource, object, error)) {
      return reply_invalid(res, t, t.name, error);
    }
    if (patched.contains("metadata") && patched["metadata"].is_object()) {
      patched["metadata"].erase("managedFields");
      const Json owned = served["metadata"].value("managedFields", Json());
      if (!owned.is_null()) patched["metadata"]["managedFields"] = owned;
    }
    track_update(manager_input(req, t, world, options), &served, patched);
    if (dry_run) return reply(res, 200, dry_run_answer(patched, object, t, &current.value));
    if (kube::ObjectRef::of(object) != t.ref()) {
      return reply_invalid(res, t, t.name,
                           "metadata.name: the patch may not change the name or namespace");
    }
    object.meta.uid = current.value.meta.uid;
    const auto subresource = t.status ? kube::Subresource::kStatus : kube::Subresource::kMain;
    const kube::Result<kube::Object> written =
        world.update(std::move(object), subresource, actor_of(req));
    if (!written.ok() && written.status.code == kube::Code::kConflict && !precondition &&
        attempt < 5) {
      continue;
    }
    if (!written.ok()) return reply_status(res, written.status, t.resource, t.name);
    return reply(res, 200, encode(keep(patched, written.value, t), t));
  }
}

// k8s.io/apiserver pkg/registry/generic/registry/store.go@017bebad01ef Store.finalizeDelete: an
// object deleted at once is answered with a Success Status naming it (details: name, group, the
// resource's plural as "kind", uid), unless its registry sets ReturnDeletedObject — Pods
// (pkg/registry/core/pod/storage) and [reconstructed] Services and PersistentVolumeClaims; a
// Namespace is always held by its finalizer first. Custom resources get the Status.
bool returns_deleted_object(const Resource& resource) {
  return !resource.custom && resource.group.empty() &&
         (resource.kind == "Pod" || resource.kind == "Service" ||
          resource.kind == "PersistentVolumeClaim" || resource.kind == "Namespace");
}

Json success_document(const kube::Object& deleted, const Resource& resource) {
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", Json::object()},
          {"status", "Success"},
          {"details",
           {{"name", deleted.meta.name},
            {"group", resource.group},
            {"kind", resource.plural},
            {"uid", deleted.meta.uid}}}};
}

void Api::remove(const http::Request& req, http::Response& res, const Target& t) const {
  kube::DeleteOptions delete_options;
  std::string error;
  if (!parse_delete_options(req.body, req.get_param_value("propagationPolicy"),
                            req.get_param_value("gracePeriodSeconds"), delete_options, error)) {
    return reply_bad_request(res, error);
  }
  const kube::Result<kube::Object> before = world.get(t.ref());
  if (dry_run) {
    if (!before.ok()) return reply_status(res, before.status, t.resource, t.name);
    return reply(res, 200, encode(before.value, t));
  }
  const Json before_json = before.ok() ? encode(before.value, t) : Json();
  const kube::Status status = world.remove(t.ref(), delete_options, actor_of(req));
  if (!status.ok()) return reply_status(res, status, t.resource, t.name);
  const kube::Result<kube::Object> after = world.get(t.ref());
  if (after.ok()) return reply(res, 200, encode(after.value, t));  // Waiting for finalizers.
  if (t.resource->kind == "CustomResourceDefinition" && before_json.is_object()) {
    unregister_crd(before_json);
  }
  if (!before.ok()) return reply(res, 200, status_document(200, "", "deleted"));
  if (returns_deleted_object(*t.resource)) return reply(res, 200, before_json);
  reply(res, 200, success_document(before.value, *t.resource));
}

// deletecollection: every object of the collection the selectors match, deleted one by one;
// answers the list of what was deleted (as the API server does).
void Api::remove_collection(const http::Request& req, http::Response& res, const Target& t) const {
  Selector selector;
  if (!parse_selector_of(req, res, selector)) return;
  kube::DeleteOptions delete_options;
  std::string error;
  if (!parse_delete_options(req.body, req.get_param_value("propagationPolicy"),
                            req.get_param_value("gracePeriodSeconds"), delete_options, error)) {
    return reply_bad_request(res, error);
  }
  std::uint64_t rv = 0;
  Json items = Json::array();
  for (const kube::Object& object : world.list(t.resource->kind, t.namespace_, rv)) {
    if (!selector.matches(object)) continue;
    items.push_back(encode(object, t));
    if (dry_run) continue;
    const kube::Status status =
        world.remove(kube::ObjectRef::of(object), delete_options, actor_of(req));
    if (!status.ok() && status.code != kube::Code::kNotFound) {
      return reply_status(res, status, t.resource, object.meta.name);
    }
  }
  reply(res, 200,
        {{"kind", t.resource->kind + "List"},
         {"apiVersion", t.resource->api_version()},
         {"metadata", {{"resourceVersion", std::to_string(world.resource_version())}}},
         {"items", items}});
}

// autoscaling/v1 Scale of a Deployment or ReplicaSet.
Json Api::scale_document(const kube::Object& object, const Target& t) const {
  const Json served = encode(object, t);
  std::string selector;
  const Json match = served["spec"].value("selector", Json::object()).value("matchLabels", Json());
  if (match.is_object()) {
    for (const auto& [key, value] : match.items()) {
      if (value.is_string())
        selector += (selector.empty() ? "" : ",") + key + "=" + value.get<std::string>();
    }
  }
  Json metadata = served["metadata"];
  metadata.erase("managedFields");
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", metadata},
          {"spec", {{"replicas", served["spec"].value("replicas", Json(1))}}},
          {"status",
           {{"replicas", served["status"].value("replicas", Json(0))}, {"selector", selector}}}};
}

// PUT or PATCH of the scale subresource: spec.replicas of the Scale becomes the object's.
void Api::scale(const http::Request& req, http::Response& res, const Target& t, const Json* patch,
                PatchType type) const {
  const kube::Result<kube::Object> current = world.get(t.ref());
  if (!current.ok()) return reply_status(res, current.status, t.resource, t.name);
  Json scale = scale_document(current.value, t);
  std::string error;
  if (patch != nullptr) {
    if (!apply_patch(type == PatchType::kStrategicMerge ? PatchType::kMerge : type, *patch, scale,
                     error)) {
      return reply_invalid(res, t, t.name, error);
    }
  } else if (!parse_json(this->body, scale)) {
    return reply_bad_request(res, "the request body is not JSON");
  }
  const Json replicas = scale.value("spec", Json::object()).value("replicas", Json());
  if (!replicas.is_number_integer() || replicas.get<std::int64_t>() < 0 ||
      replicas.get<std::int64_t>() > 2147483647) {
    return reply_invalid(res, t, t.name,
                         "spec.replicas: Invalid value: must be a non-negative "
                         "32-bit integer");
  }
  Json doc = encode(current.value, t);
  doc["spec"]["replicas"] = replicas;
  const Json served = doc;
  Target main = t;
  main.scale = false;
  track_update(manager_input(req, main, world, options), &served, doc);
  kube::Object object;
  if (!decode_json(doc, res, main, object)) return;
  if (dry_run) return reply(res, 200, scale);
  const kube::Result<kube::Object> written =
      world.update(std::move(object), kube::Subresource::kMain, actor_of(req));
  if (!written.ok()) return reply_status(res, written.status, t.resource, t.name);
  keep(doc, written.value, main);
  reply(res, 200, scale_document(written.value, t));
}

// PUT namespaces/NAME/finalize: the namespace's spec.finalizers become the body's.
void Api::finalize(const http::Request& req, http::Response& res, const Target& t) const {
  Json body;
  if (!parse_json(this->body, body) || !body.is_object()) {
    return reply_bad_request(res, "the request body is not a Namespace");
  }
  const kube::Result<kube::Object> current = world.get(t.ref());
  if (!current.ok()) return reply_status(res, current.status, t.resource, t.name);
  Json doc = encode(current.value, t);
  doc["spec"]["finalizers"] = body.value("spec", Json::object()).value("finalizers", Json::array());
  Target main = t;
  main.finalize = false;
  kube::Object object;
  if (!decode_json(doc, res, main, object)) return;
  if (dry_run) return reply(res, 200, doc);
  const kube::Result<kube::Object> written = world.modify(
      t.ref(),
      [&](kube::Object& stored) {
        stored.spec = object.spec;
        return kube::Status::Ok();
      },
      kube::Subresource::kMain, actor_of(req));
  if (!written.ok()) return reply_status(res, written.status, t.resource, t.name);
  keep(doc, written.value, main);
  reply(res, 200, encode(written.value, t));
}

// metadata.generateName without a name: the name gets a suffix, as the API server does (the
// suffix is deterministic: World::generated_suffix()).
void name_generated(Api& api) {
  Json body;
  if (!parse_json(api.body, body) || !body.is_object() || !body["metadata"].is_object()) return;
  Json& meta = body["metadata"];
  if (meta.contains("name") || !meta["generateName"].is_string()) return;
  meta["name"] = meta["generateName"].get<std::string>() + api.world.generated_suffix();
  api.body = body.dump();
}

// Dispatches a resource request; false when the path is no resource (404 sent).
void dispatch(Api api, const http::Request& req, http::Response& res) {
  Target t;
  int code = 404;
  std::string error;
  if (!parse_target(req.path, t, code, error)) {
    return reply(res, code, status_document(code, "NotFound", error));
  }
  if (req.method != "GET" && api.world.read_only()) {
    return reply(
        res, 403,
        status_document(403, "Forbidden",
                        "wsim serves a replayed run read-only: " + req.method + " " + req.path +
                            " is refused (run `wsim serve` for a writable "
                            "world)",
                        t.resource->group, t.resource->plural, t.name));
  }
  api.body = req.body;
  if (req.get_header_value("Content-Type").rfind(kProtobufMediaType, 0) == 0) {
    Json converted;
    if (req.method == "PATCH") error = "protobuf patches are not supported: send JSON";
    if (req.method == "PATCH" || !protobuf_to_json(req.body, converted, error)) {
      return reply(res, 415, status_document(415, "UnsupportedMediaType", error));
    }
    api.body = converted.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  if (req.method == "POST" && !api.world.read_only()) name_generated(api);
  if (req.has_param("dryRun")) {
    const std::string dry = req.get_param_value("dryRun");
    if (dry != "All") {
      return reply_bad_request(
          res, "dryRun: Unsupported value: \"" + dry + "\": supported values: \"All\"");
    }
    api.dry_run = true;
  }
  const bool collection = t.name.empty();
  bool watch = false;
  if (!parse_bool(req.get_param_value("watch"), watch)) {
    return reply_bad_request(
        res, "watch: invalid boolean \"" + req.get_param_value("watch") + "\" (strconv.ParseBool)");
  }
  if (req.method == "GET") {
    if (collection && watch) return api.watch(req, res, t);
    return collection ? api.list(req, res, t) : api.get(req, res, t);
  }
  const bool sub = t.status || t.scale || t.finalize;
  if (req.method == "POST" && collection && !sub) return api.create(req, res, t);
  if (req.method == "PUT" && !collection) return api.update(req, res, t);
  if (req.method == "PATCH" && !collection && !t.finalize) return api.patch(req, res, t);
  if (req.method == "DELETE" && !collection && !sub) return api.remove(req, res, t);
  if (req.method == "DELETE" && collection && !sub) return api.remove_collection(req, res, t);
  reply(res, 405,
        status_document(405, "MethodNotAllowed", req.method + " is not supported on " + req.path));
}

bool is_watch(const http::Request& req) { return req.method == "GET" && bool_param(req, "watch"); }

// The trace's verb and object of a request: "create", "Pod/ws-a/workspace".
void describe(const http::Request& req, RequestTicket& ticket) {
  Target t;
  int code = 0;
  std::string error;
  const bool parsed = parse_target(req.path, t, code, error);
  const bool collection = !parsed || t.name.empty();
  static const std::map<std::string, std::string> kVerbs = {
      {"POST", "create"}, {"PUT", "update"}, {"PATCH", "patch"}, {"DELETE", "delete"}};
  auto verb = kVerbs.find(req.method);
  ticket.verb = req.method == "GET"    ? (collection ? "list" : "get")
                : verb != kVerbs.end() ? verb->second
                                       : req.method;
  if (!parsed) {
    ticket.object = http::sanitize_utf8(req.path);
    return;
  }
  std::string name = t.name.empty() ? "*" : t.name;
  if (req.method == "POST") {  // The created object's name (generateName: "prefix*").
    const Json body = Json::parse(req.body, nullptr, false);
    const Json meta = body.is_object() ? body.value("metadata", Json::object()) : Json::object();
    if (meta.is_object() && meta.value("name", Json()).is_string()) {
      name = meta["name"].get<std::string>();
    } else if (meta.is_object() && meta.value("generateName", Json()).is_string()) {
      name = meta["generateName"].get<std::string>() + "*";
    }
  }
  ticket.object = t.resource->kind + "/" + (t.namespace_.empty() ? "" : t.namespace_ + "/") + name +
                  (t.status ? "/status" : "");
  const std::string selector = req.get_param_value("labelSelector");
  if (!selector.empty()) ticket.object += "?" + selector;
  // The trace is JSON: names from a percent-encoded path may be any bytes.
  ticket.object = http::sanitize_utf8(ticket.object);
}

// Lockstep: the request is served on the simulation thread at a virtual instant, after a
// latency and through the fault points of the external system (serve/external_system.h).
void through_simulation(World& world, const ServerOptions& options, const http::Request& req,
                        http::Response& res) {
  world.request_entered();
  RequestTicket ticket;
  ticket.method = req.method;
  ticket.actor = "ext/" + actor_of(req);
  std::string query;
  for (const auto& [key, value] : req.params)
    query += key + "=" + value + "&";  // multimap: sorted.
  ticket.key = req.method + " " + req.path + "?" + query + "\n" + req.body;
  describe(req, ticket);
  ticket.execute = [&world, &options, &req, &res] {
    // On the simulation thread: an exception here would end the run without a bundle.
    try {
      dispatch(Api{world, options, ""}, req, res);
    } catch (const std::exception& e) {
      res = http::Response{};
      reply(res, 500,
            status_document(500, "InternalError",
                            std::string("Internal error occurred: ") + e.what()));
    }
    return res.status;
  };
  ticket.fail = [&res, &req](int code) {
    std::string reason = "InternalError";
    std::string message = "Internal error occurred: injected by wsim (serve.error5xx)";
    if (code == 409) {
      reason = "Conflict";
      message = "Operation cannot be fulfilled on " + req.path +
                ": the object has been modified; please apply your changes to the latest "
                "version and try again";
    } else if (code == 503) {
      reason = "ServiceUnavailable";
      message = "the server is currently unable to handle the request";
    } else if (code == 504) {
      reason = "Timeout";
      message =
          "the server was unable to return a response in the time allotted, but may still be "
          "processing the request";
    }
    reply(res, code, status_document(code, reason, message));
    return code;
  };
  ticket.result = [&res] {
    std::string text = std::to_string(res.status);
    if (res.status < 400) return text;
    const Json body = Json::parse(res.body, nullptr, false);
    if (body.is_object() && body["reason"].is_string()) {
      text += " " + body["reason"].get<std::string>();
    }
    return text;
  };
  if (!world.submit(ticket)) {
    reply(res, 503,
          status_document(503, "ServiceUnavailable",
                          "wsim serve: the run is over (the simulation has ended)"));
  }
}

}  // namespace

Server::Server(World& world, ServerOptions options) : world_(world), options_(std::move(options)) {
  http::HttpServerOptions http_options;
  http_options.limits.body_bytes_max = options_.body_bytes_max;
  http_options.worker_threads = options_.worker_threads;
  http_options.streams_max = options_.streams_max;
  http_options.connections_max = options_.connections_max;
  http_ = std::make_unique<http::HttpServer>(
      http_options, [this](const http::Request& req, http::Response& res) { handle(req, res); });
}

Server::~Server() { stop(); }

bool Server::http_idle(std::size_t parked, std::uint64_t& rounds) const {
  return http_->idle(parked, rounds);
}

Unread Server::unread_bytes() { return http_->unread(); }

int Server::bind(std::string& error) {
  port_ = http_->bind(kLoopback, options_.port, error);
  return port_;
}

void Server::run() {
  assert(port_ >= 0);
  if (!stopped_) http_->run();
}

void Server::stop() {
  stopped_ = true;
  world_.close();
  if (http_) http_->stop();
}

std::size_t Server::open_connections() const { return http_->open_connections(); }
std::size_t Server::open_streams() const { return http_->open_streams(); }

namespace {

// "/apis/G/V" -> {G, V}; false for any other shape.
bool group_version_path(const std::string& path, std::string& group, std::string& version) {
  if (path.rfind("/apis/", 0) != 0) return false;
  const std::string rest = path.substr(6);
  const std::size_t slash = rest.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= rest.size()) return false;
  if (rest.find('/', slash + 1) != std::string::npos) return false;
  group = rest.substr(0, slash);
  version = rest.substr(slash + 1);
  return true;
}

// /api/v1/X... and /apis/G/V/X...: a resource request.
bool resource_path(const std::string& path) {
  if (path.rfind("/api/v1/", 0) == 0) return path.size() > 8;
  if (path.rfind("/apis/", 0) != 0) return false;
  const std::size_t group_end = path.find('/', 6);
  if (group_end == std::string::npos || group_end == 6) return false;
  const std::size_t version_end = path.find('/', group_end + 1);
  if (version_end == std::string::npos || version_end == group_end + 1) return false;
  return path.size() > version_end + 1;
}

// /healthz, /readyz, /livez, optionally with /ping, /etcd or /log.
bool health_path(const std::string& path) {
  for (const char* check : {"/healthz", "/readyz", "/livez"}) {
    const std::string base = check;
    if (path == base) return true;
    for (const char* sub : {"/ping", "/etcd", "/log"}) {
      if (path == base + sub) return true;
    }
  }
  return false;
}

// Health: "ok"; ?verbose lists the checks, as the API server does.
void reply_health(const http::Request& req, http::Response& res) {
  std::string text = "ok";
  if (req.has_param("verbose")) {
    const std::string check = req.path.substr(1, req.path.find('/', 1) - 1);
    text = "[+]ping ok\n[+]log ok\n[+]etcd ok\n" + check + " check passed\n";
  }
  res.status = 200;
  res.set_content(text, "text/plain; charset=utf-8");
}

// kubectl auth can-i: wsim serve has no authorization, so every review is allowed (honest).
void reply_access_review(const http::Request& req, http::Response& res) {
  Json review = Json::parse(req.body, nullptr, false);
  if (!review.is_object()) review = Json::object();
  review["status"] = {{"allowed", true},
                      {"reason", "wsim serve authorizes every request (no RBAC)"}};
  reply(res, 201, review);
}

// kubectl auth can-i --list: the rules of the reviewing user, which are "everything" for the
// same reason (no authorization); `incomplete` false, as no authorizer was left out.
void reply_rules_review(const http::Request& req, http::Response& res) {
  Json review = Json::parse(req.body, nullptr, false);
  if (!review.is_object()) review = Json::object();
  const Json all = Json::array({"*"});
  review["status"] = {
      {"resourceRules", Json::array({{{"verbs", all}, {"apiGroups", all}, {"resources", all}}})},
      {"nonResourceRules", Json::array({{{"verbs", all}, {"nonResourceURLs", all}}})},
      {"incomplete", false}};
  reply(res, 201, review);
}

// /openapi/v3/api/v1 and /openapi/v3/apis/G/V.
void reply_openapi_v3(const http::Request& req, http::Response& res) {
  const std::string rest = req.path.substr(std::string("/openapi/v3/").size());
  Json doc;
  std::string group;
  std::string version;
  if (rest == "api/v1") {
    doc = openapi_v3_group_version("", "v1");
  } else if (group_version_path("/" + rest, group, version)) {
    doc = openapi_v3_group_version(group, version);
  }
  if (doc.is_null()) {
    return reply(res, 404, status_document(404, "NotFound", "no such group version"));
  }
  reply(res, 200, doc);
}

void not_found(const http::Request& req, http::Response& res) {
  reply(res, 404,
        status_document(404, "NotFound",
                        "the server could not find the requested resource (" + req.path + ")"));
}

}  // namespace

// The routes: discovery for GET, the resource handlers for every verb, 404 otherwise. Any
// exception a handler throws becomes a 500 InternalError Status here (and again in the HTTP
// layer, for what this misses): one request never ends the server.
void Server::handle(const http::Request& req, http::Response& res) {
  requests_.fetch_add(1);
  try {
    const bool protobuf = req.get_header_value("Content-Type").rfind(kProtobufMediaType, 0) == 0;
    if (!protobuf && http::json_depth(req.body) > kJsonDepthMax) {
      return reply_bad_request(res, "the request body could not be decoded: exceeded max depth " +
                                        std::to_string(kJsonDepthMax));
    }
    route(req, res);
  } catch (const std::exception& e) {
    res = http::Response{};
    reply(
        res, 500,
        status_document(500, "InternalError", std::string("Internal error occurred: ") + e.what()));
  }
}

void Server::route(const http::Request& req, http::Response& res) {
  const bool get = req.method == "GET" || req.method == "HEAD";
  std::string group;
  std::string version;
  if (get && (req.path == "/version" || req.path == "/version/")) {
    return reply(res, 200, version_document());
  }
  if (get && req.path == "/api") {
    return reply(res, 200,
                 core_versions_document(std::string(kLoopback) + ":" + std::to_string(port_)));
  }
  if (get && req.path == "/apis") return reply(res, 200, group_list_document());
  if (get && health_path(req.path)) return reply_health(req, res);
  if (req.method == "POST" &&
      req.path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews") {
    return reply_access_review(req, res);
  }
  if (req.method == "POST" && req.path == "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews") {
    return reply_rules_review(req, res);
  }
  if (get && req.path == "/openapi/v2") return reply(res, 200, openapi_v2());
  if (get && req.path == "/openapi/v3") return reply(res, 200, openapi_v3_index());
  if (get && req.path.rfind("/openapi/v3/", 0) == 0) return reply_openapi_v3(req, res);
  const bool core = req.path == "/api/v1";
  if (get && (core || group_version_path(req.path, group, version))) {
    if (core) version = "v1";
    const Json doc = resource_list_document(group, version);
    if (doc.is_null()) {
      return reply(res, 404,
                   status_document(404, "NotFound", "no group version " + group + "/" + version));
    }
    return reply(res, 200, doc);
  }
  if (!resource_path(req.path)) return not_found(req, res);
  if (world_.lockstep() && !is_watch(req)) return through_simulation(world_, options_, req, res);
  dispatch(Api{world_, options_, ""}, req, res);
}

}  // namespace wsim::serve
