#include "serve/server.h"

#include <cassert>
#include <chrono>
#include <map>
#include <thread>
#include <utility>

#include "serve/discovery.h"
#include "serve/http_server.h"
#include "serve/json_patch.h"
#include "serve/protobuf_body.h"
#include "serve/request.h"
#include "serve/selector.h"
#include "serve/table.h"
#include "serve/validation.h"
#include "serve/watch_stream.h"

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
    return encode_object(object, *t.resource, options.epoch_wall_ms);
  }

  void list(const http::Request& req, http::Response& res, const Target& t) const;
  void watch(const http::Request& req, http::Response& res, const Target& t) const;
  void get(const http::Request& req, http::Response& res, const Target& t) const;
  void create(const http::Request& req, http::Response& res, const Target& t) const;
  void update(const http::Request& req, http::Response& res, const Target& t) const;
  void patch(const http::Request& req, http::Response& res, const Target& t) const;
  void remove(const http::Request& req, http::Response& res, const Target& t) const;
  // Decodes a create/update body and checks it against the path; false after replying.
  bool decode_body(const http::Request& req, http::Response& res, const Target& t,
                   kube::Object& object) const;
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
  if (wants_table(req.get_header_value("Accept"))) {
    std::vector<kube::Object> matching;
    for (const kube::Object& object : objects) {
      if (selector.matches(object)) matching.push_back(object);
    }
    return reply(res, 200,
                 table_of(matching, *t.resource, rv, world.now_ms(), options.epoch_wall_ms));
  }
  Json items = Json::array();
  for (const kube::Object& object : objects) {
    if (selector.matches(object)) items.push_back(encode(object, t));
  }
  reply(res, 200,
        {{"kind", t.resource->kind + "List"},
         {"apiVersion", t.resource->api_version()},
         {"metadata", {{"resourceVersion", std::to_string(rv)}}},
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
  request.bookmarks = req.get_param_value("allowWatchBookmarks") == "true";
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
  if (wants_table(req.get_header_value("Accept")) && !t.status) {
    return reply(res, 200,
                 table_of({found.value}, *t.resource, found.value.meta.resource_version,
                          world.now_ms(), options.epoch_wall_ms));
  }
  reply(res, 200, encode(found.value, t));
}

bool Api::decode_body(const http::Request& req, http::Response& res, const Target& t,
                      kube::Object& object) const {
  Json body;
  if (!parse_json(this->body, body)) {
    reply_bad_request(res, "the request body is not JSON");
    return false;
  }
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

void Api::create(const http::Request& req, http::Response& res, const Target& t) const {
  kube::Object object;
  if (!decode_body(req, res, t, object)) return;
  const std::string name = object.meta.name;
  const kube::Result<kube::Object> created = world.create(std::move(object), actor_of(req));
  if (!created.ok()) return reply_status(res, created.status, t.resource, name);
  reply(res, 201, encode(created.value, t));
}

void Api::update(const http::Request& req, http::Response& res, const Target& t) const {
  kube::Object object;
  if (!decode_body(req, res, t, object)) return;
  const auto subresource = t.status ? kube::Subresource::kStatus : kube::Subresource::kMain;
  const kube::Result<kube::Object> updated =
      world.update(std::move(object), subresource, actor_of(req));
  if (!updated.ok()) return reply_status(res, updated.status, t.resource, t.name);
  reply(res, 200, encode(updated.value, t));
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
                                 "application/strategic-merge-patch+json, "
                                 "application/apply-patch+yaml (JSON bodies)"));
  }
  Json body;
  if (!parse_json(this->body, body)) return reply_bad_request(res, "the patch is not JSON");
  if (type == PatchType::kJson && body.is_array() && body.size() > kJsonPatchOpsMax) {
    return reply(res, 413,
                 status_document(413, "RequestEntityTooLarge",
                                 "Request entity too large: The allowed maximum operations in a "
                                 "JSON patch is " +
                                     std::to_string(kJsonPatchOpsMax) + ", got " +
                                     std::to_string(body.size())));
  }
  if (type == PatchType::kApply) {
    if (t.status) return reply_bad_request(res, "server-side apply of status is not supported");
    kube::Object object;
    if (!decode_body(req, res, t, object)) return;
    std::string manager = req.get_param_value("fieldManager");
    const kube::Result<kube::Object> applied =
        world.apply(std::move(object), manager.empty() ? actor_of(req) : manager, actor_of(req));
    if (!applied.ok()) return reply_status(res, applied.status, t.resource, t.name);
    return reply(res, 200, encode(applied.value, t));
  }
  const auto subresource = t.status ? kube::Subresource::kStatus : kube::Subresource::kMain;
  const kube::Result<kube::Object> patched = world.modify(
      t.ref(),
      [&](kube::Object& object) {
        Json current = encode(object, t);
        std::string error;
        const Invalid invalid = apply_patch(type, body, current, error)
                                    ? validate_object(current, *t.resource)
                                    : Invalid{};
        if (invalid.code != 0) return kube::Status::Error(kube::Code::kInvalid, invalid.message);
        if (!error.empty() || !decode_object(current, *t.resource, object, error)) {
          return kube::Status::Error(kube::Code::kInvalid,
                                     t.resource->kind + " \"" + t.name + "\" is invalid: " + error);
        }
        return kube::Status::Ok();
      },
      subresource, actor_of(req));
  if (!patched.ok()) return reply_status(res, patched.status, t.resource, t.name);
  reply(res, 200, encode(patched.value, t));
}

void Api::remove(const http::Request& req, http::Response& res, const Target& t) const {
  kube::DeleteOptions delete_options;
  std::string error;
  if (!parse_delete_options(req.body, req.get_param_value("propagationPolicy"),
                            req.get_param_value("gracePeriodSeconds"), delete_options, error)) {
    return reply_bad_request(res, error);
  }
  const kube::Result<kube::Object> before = world.get(t.ref());
  const kube::Status status = world.remove(t.ref(), delete_options, actor_of(req));
  if (!status.ok()) return reply_status(res, status, t.resource, t.name);
  const kube::Result<kube::Object> after = world.get(t.ref());
  if (after.ok()) return reply(res, 200, encode(after.value, t));  // Waiting for finalizers.
  if (!before.ok()) return reply(res, 200, status_document(200, "", "deleted"));
  reply(res, 200, encode(before.value, t));
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
    return reply_bad_request(res, "dryRun is not supported by wsim serve");
  }
  const bool collection = t.name.empty();
  if (req.method == "GET") {
    if (collection &&
        (req.get_param_value("watch") == "true" || req.get_param_value("watch") == "1")) {
      return api.watch(req, res, t);
    }
    return collection ? api.list(req, res, t) : api.get(req, res, t);
  }
  if (req.method == "POST" && collection && !t.status) return api.create(req, res, t);
  if (req.method == "PUT" && !collection) return api.update(req, res, t);
  if (req.method == "PATCH" && !collection) return api.patch(req, res, t);
  if (req.method == "DELETE" && !collection && !t.status) return api.remove(req, res, t);
  reply(res, 405,
        status_document(405, "MethodNotAllowed", req.method + " is not supported on " + req.path));
}

bool is_watch(const http::Request& req) {
  return req.method == "GET" &&
         (req.get_param_value("watch") == "true" || req.get_param_value("watch") == "1");
}

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
