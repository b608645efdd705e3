// The client request path (docs/architecture.md §3): request latency → interceptor chain →
// RBAC-lite → apply → response latency. The request is applied by an event-loop callback when it
// reaches the server, so a client that is cancelled (restarted) while its request is in flight
// still gets the request applied — the intermediate state a restart leaves behind. One trace event
// per request, recorded when the request reaches the server.
#include "sim/kube/client.h"

#include <algorithm>
#include <string>

#include "sim/kube/api_server_impl.h"

namespace wsim::kube {

std::string_view request_object(const Request& request, std::string& out) {
  const ObjectRef& ref = request.ref;
  WSIM_ASSERT(ref.namespace_.empty() || !is_cluster_scoped(ref.kind));  // Normalized by send().
  out.clear();
  out += ref.kind;
  const bool collection = request.verb == Verb::kList || request.verb == Verb::kWatch;
  if (!ref.namespace_.empty()) {
    out += '/';
    out += ref.namespace_;
  }
  if (!collection) {
    out += '/';
    out += ref.name;
  }
  return out;
}

std::string ApiServer::Impl::choice_key(const Request& request) const {
  if (!sim_.choices().keys_needed()) return {};
  std::string object;
  request_object(request, object);
  return "api " + object;
}

DurationMs ApiServer::Impl::draw_latency() {
  const DurationMs latency_ms =
      api_latency_.range(options_.min_latency_ms, options_.max_latency_ms);
  WSIM_ASSERT_GE(latency_ms, options_.min_latency_ms);
  WSIM_ASSERT_LE(latency_ms, options_.max_latency_ms);
  return latency_ms;
}

Delivery<Response> ApiServer::Impl::send(const std::string& identity,
                                         std::shared_ptr<Request> request) {
  WSIM_ASSERT(request != nullptr);
  Delivery<Response> reply(sim_.loop());
  const TimeMs sent_ms = sim_.now_ms();
  // normalize() in place (no ObjectRef moved out and back).
  if (is_cluster_scoped(request->ref.kind)) request->ref.namespace_.clear();
  const KeyScope scope(sim_.choices(), choice_key(*request));
  const DurationMs latency = draw_latency();
  // std::function needs a copyable callable: the (large) request is shared, not copied.
  sim_.loop().schedule(latency, [this, identity, request, reply, sent_ms]() {
    arrive(identity, *request, reply, sent_ms);
  });
  return reply;
}

Response ApiServer::Impl::timeout_response() const {
  WSIM_ASSERT_GT(options_.client_timeout_ms, 0);
  Response response;
  response.status =
      Status::Error(Code::kTimeout, "no response from the API server within " +
                                        std::to_string(options_.client_timeout_ms) +
                                        " ms (the request may or may not have been applied)");
  return response;
}

bool ApiServer::Impl::answer_intercepted(const std::string& identity, Request& request,
                                         InterceptorChain::Intercepted intercepted,
                                         Delivery<Response>& reply, TimeMs timeout_at,
                                         std::string& fault_detail) {
  const TimeMs now = sim_.now_ms();
  WSIM_ASSERT_GE(timeout_at, now);
  const char* verb = verb_name(request.verb);
  switch (intercepted.action) {
    case FaultAction::kLoseRequest:
      sim_.record(identity, verb, request_object(request, object_text_), "lost",
                  intercepted.detail + ": request not applied, client times out");
      reply.deliver(timeout_response(), timeout_at);
      return true;
    case FaultAction::kLoseResponse:
      fault_detail = intercepted.detail + ": applied, response lost, client times out";
      return false;
    default: {
      WSIM_ASSERT(!intercepted.status.ok());  // Every other action answers an error.
      Response response;
      response.status = std::move(intercepted.status);
      sim_.record(identity, verb, request_object(request, object_text_),
                  code_name(response.status.code), intercepted.detail);
      reply.deliver(std::move(response), now + draw_latency());
      return true;
    }
  }
}

void ApiServer::Impl::arrive(const std::string& identity, Request& request,
                             Delivery<Response> reply, TimeMs sent_ms) {
  const TimeMs now = sim_.now_ms();
  WSIM_ASSERT_GE(now, sent_ms);  // A request never arrives before it was sent.
  const TimeMs timeout_at = std::max(now, sent_ms + options_.client_timeout_ms);
  const KeyScope scope(sim_.choices(), choice_key(request));
  const char* verb = verb_name(request.verb);

  std::string fault_detail;  // Set when the response is lost (the request is applied).
  if (auto intercepted = interceptors_.intercept(identity, request)) {
    if (answer_intercepted(identity, request, std::move(*intercepted), reply, timeout_at,
                           fault_detail)) {
      return;
    }
    WSIM_ASSERT(!fault_detail.empty());
  }
  const bool lose_response = !fault_detail.empty();

  if (Status allowed = rbac_.authorize(identity, request, store_); !allowed.ok()) {
    Response response;
    response.status = std::move(allowed);
    sim_.record(identity, verb, request_object(request, object_text_),
                code_name(response.status.code), response.status.message);
    reply.deliver(std::move(response), now + draw_latency());
    return;
  }

  Response response = execute(identity, request);
  std::string detail;
  if (!response.status.ok()) {
    detail = response.status.message;
  } else if (request.verb != Verb::kGet && request.verb != Verb::kList) {
    detail = "rv " + std::to_string(store_.resource_version());
  }
  if (lose_response) detail = detail.empty() ? fault_detail : detail + "; " + fault_detail;
  sim_.record(identity, verb, request_object(request, object_text_),
              code_name(response.status.code), std::move(detail));
  if (lose_response) {
    // A watch whose response is lost never reaches its client: close it at once.
    if (request.verb == Verb::kWatch && response.watcher_id != 0) close_watch(response.watcher_id);
    reply.deliver(timeout_response(), timeout_at);
    return;
  }
  reply.deliver(std::move(response), now + draw_latency());
}

Response ApiServer::Impl::execute(const std::string& identity, Request& request) {
  const std::uint64_t rv_before_execute = store_.resource_version();
  Response response = execute_verb(identity, request);
  // Reads never write; a failed request writes nothing either.
  if (request.verb == Verb::kGet || request.verb == Verb::kList) {
    WSIM_ASSERT_EQ(store_.resource_version(), rv_before_execute);
  }
  if (!response.status.ok()) WSIM_ASSERT_EQ(store_.resource_version(), rv_before_execute);
  // The resourceVersion never goes back.
  WSIM_ASSERT_GE(store_.resource_version(), rv_before_execute);
  return response;
}

Response ApiServer::Impl::execute_verb(const std::string& identity, Request& request) {
  // Past the interceptor chain and RBAC: the request reaches the store now.
  WSIM_ASSERT(request.ref.namespace_.empty() || !is_cluster_scoped(request.ref.kind));
  Response response;
  switch (request.verb) {
    case Verb::kGet: {
      const auto* slot = store_.find(request.ref);  // find() normalizes.
      if (slot) {
        response.object = **slot;
      } else {
        response.status = Status::Error(
            Code::kNotFound, request.ref.kind + " \"" + request.ref.name + "\" not found");
      }
      break;
    }
    case Verb::kList:
      response.items = store_.list(request.ref.kind, request.ref.namespace_, request.selector);
      response.resource_version = store_.resource_version();
      break;
    case Verb::kWatch:
      response = watches_.start_watch(identity, request);
      break;
    case Verb::kCreate: {
      auto result = store_.create(std::move(request.object));
      response.status = std::move(result.status);
      response.object = std::move(result.value);
      break;
    }
    case Verb::kUpdate: {
      auto result = store_.update(std::move(request.object), request.subresource);
      response.status = std::move(result.status);
      response.object = std::move(result.value);
      break;
    }
    case Verb::kPatch: {
      auto result = store_.patch(request.ref, request.patch, request.subresource);
      response.status = std::move(result.status);
      response.object = std::move(result.value);
      break;
    }
    case Verb::kDelete:
      response.status = store_.remove(request.ref, request.delete_options);
      break;
    case Verb::kApply: {
      auto result = store_.apply(std::move(request.object));
      response.status = std::move(result.status);
      response.object = std::move(result.value);
      break;
    }
  }
  return response;
}

// --- Client ---
//
// The Client methods are plain functions that package the request and return a coroutine that
// sends it when awaited (lazily, like a coroutine would) and awaits the response.

namespace {

using RequestPtr = std::shared_ptr<Request>;

Task<Result<Object>> object_call(ApiServer::Impl* impl, std::string identity, RequestPtr request) {
  WSIM_ASSERT(impl != nullptr);
  Response response = co_await impl->send(identity, std::move(request));
  co_return Result<Object>{std::move(response.status), std::move(response.object)};
}

Task<Result<std::vector<Object>>> list_call(ApiServer::Impl* impl, std::string identity,
                                            RequestPtr request) {
  WSIM_ASSERT(impl != nullptr);
  Response response = co_await impl->send(identity, std::move(request));
  // The one copy of a list: the caller owns (and may change) what it gets.
  std::vector<Object> items;
  items.reserve(response.items.size());
  for (const std::shared_ptr<const Object>& item : response.items) items.push_back(*item);
  WSIM_ASSERT_EQ(items.size(), response.items.size());
  // A failed list has no items.
  if (!response.status.ok()) WSIM_ASSERT(items.empty());
  co_return Result<std::vector<Object>>{std::move(response.status), std::move(items)};
}

Task<Status> status_call(ApiServer::Impl* impl, std::string identity, RequestPtr request) {
  WSIM_ASSERT(impl != nullptr);
  Response response = co_await impl->send(identity, std::move(request));
  co_return std::move(response.status);
}

RequestPtr make_request(Verb verb, ObjectRef ref) {
  auto request = std::make_shared<Request>();
  request->verb = verb;
  request->ref = std::move(ref);
  return request;
}

}  // namespace

Task<Result<Object>> Client::get(ObjectRef ref) {
  WSIM_ASSERT(server_ != nullptr);
  return object_call(server_->impl_.get(), identity_, make_request(Verb::kGet, std::move(ref)));
}

Task<Result<std::vector<Object>>> Client::list(std::string kind, std::string namespace_,
                                               LabelSelector selector) {
  WSIM_ASSERT(server_ != nullptr);
  RequestPtr request =
      make_request(Verb::kList, ObjectRef{std::move(kind), std::move(namespace_), ""});
  request->selector = std::move(selector);
  return list_call(server_->impl_.get(), identity_, std::move(request));
}

Task<Result<Object>> Client::create(Object object) {
  WSIM_ASSERT(server_ != nullptr);
  RequestPtr request = make_request(Verb::kCreate, ObjectRef::of(object));
  request->object = std::move(object);
  return object_call(server_->impl_.get(), identity_, std::move(request));
}

Task<Result<Object>> Client::update(Object object, Subresource subresource) {
  WSIM_ASSERT(server_ != nullptr);
  RequestPtr request = make_request(Verb::kUpdate, ObjectRef::of(object));
  request->object = std::move(object);
  request->subresource = subresource;
  return object_call(server_->impl_.get(), identity_, std::move(request));
}

Task<Result<Object>> Client::patch(ObjectRef ref, MergePatch patch, Subresource subresource) {
  WSIM_ASSERT(server_ != nullptr);
  RequestPtr request = make_request(Verb::kPatch, std::move(ref));
  request->patch = std::move(patch);
  request->subresource = subresource;
  return object_call(server_->impl_.get(), identity_, std::move(request));
}

Task<Status> Client::remove(ObjectRef ref, DeleteOptions options) {
  WSIM_ASSERT(server_ != nullptr);
  RequestPtr request = make_request(Verb::kDelete, std::move(ref));
  request->delete_options = std::move(options);
  return status_call(server_->impl_.get(), identity_, std::move(request));
}

Task<Result<Object>> Client::apply(Object object, std::string field_manager) {
  WSIM_ASSERT(server_ != nullptr);
  RequestPtr request = make_request(Verb::kApply, ObjectRef::of(object));
  request->object = std::move(object);
  request->field_manager = std::move(field_manager);
  return object_call(server_->impl_.get(), identity_, std::move(request));
}

}  // namespace wsim::kube
