// The mk2 gRPC API: components/ws-manager-mk2/service/manager.go (research §4.1–§4.3).
#include "model/gitpod/conditions.h"
#include "model/gitpod/mk2/manager.h"
#include "model/gitpod/names.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"

namespace wsim::gitpod::mk2 {
namespace {

kube::Object secret(const std::string& name) {
  kube::Object s;
  s.kind = "Secret";
  s.meta.name = name;
  s.meta.namespace_ = kNamespace;
  s.data["token"] = "x";
  return s;
}

}  // namespace

// §4.1.
Task<ApiReply> Mk2Manager::start_workspace(StartRequest request) {
  WSIM_ASSERT(!request.instance.empty());
  WSIM_ASSERT(!request.workspace_id.empty());
  if (!up_) co_return ApiReply{ApiCode::kUnavailable, "ws-manager is down"};
  if (maintenance_) co_return ApiReply{ApiCode::kFailedPrecondition, "under maintenance"};
  kube::Object ws;
  ws.kind = kWorkspaceKind;
  ws.meta.name = request.instance;
  ws.meta.namespace_ = kNamespace;
  ws.meta.labels[kLabelWorkspaceId] = request.workspace_id;
  ws.meta.finalizers.push_back(kFinalizer);
  ws.spec[kSpecWorkspaceId] = request.workspace_id;
  ws.spec[kSpecType] = request.type;
  // Duplicate check: list-then-create, not atomic (S9 may race).
  kube::LabelSelector selector;
  selector.match_labels[kLabelWorkspaceId] = request.workspace_id;
  kube::Result<std::vector<kube::Object>> existing =
      co_await client_.list(kWorkspaceKind, kNamespace, selector);
  if (!existing.ok()) co_return ApiReply{ApiCode::kInternal, "cannot list workspaces"};
  for (const kube::Object& other : existing.value) {
    if (phase(other) != kPhaseStopped) {
      co_return ApiReply{ApiCode::kAlreadyExists, "workspace " + other.meta.name + " exists"};
    }
  }
  for (const std::string& name :
       {env_secret_name(request.instance), tokens_secret_name(request.instance)}) {
    kube::Result<kube::Object> s = co_await client_.create(secret(name));
    if (!s.ok() && !s.status.is(kube::Code::kAlreadyExists)) {
      co_return ApiReply{ApiCode::kInternal, "cannot create secret"};
    }
  }
  kube::Result<kube::Object> created = co_await client_.create(ws);
  world_.sim().record(kActor, "create-workspace", request.instance,
                      created.ok() ? "ok" : kube::code_name(created.status.code));
  if (created.status.is(kube::Code::kAlreadyExists)) {
    co_return ApiReply{ApiCode::kAlreadyExists, "workspace exists"};
  }
  if (!created.ok()) co_return ApiReply{ApiCode::kInternal, created.status.message};
  // Poll every 100 ms for up to 30 s for ownerToken and url (set by a reconcile that saw a pod).
  for (int i = 0; i < 300; ++i) {
    co_await world_.sim().loop().sleep(100);
    if (!workspaces_) break;
    std::optional<kube::Object> seen = workspaces_->get(kNamespace, request.instance);
    if (seen.has_value() && !status_str(*seen, kStatusOwnerToken).empty() &&
        !status_str(*seen, kStatusUrl).empty()) {
      co_return ApiReply{};
    }
  }
  co_return ApiReply{ApiCode::kFailedPrecondition, "workspace did not start in time"};
}

// §4.2.
Task<ApiReply> Mk2Manager::stop_workspace(std::string instance, StopPolicy policy) {
  if (!up_) co_return ApiReply{ApiCode::kUnavailable, "ws-manager is down"};
  if (maintenance_) co_return ApiReply{ApiCode::kFailedPrecondition, "under maintenance"};
  const std::string grace = policy == StopPolicy::kNormal ? "30s" : "1s";
  DurationMs backoff_ms = 10;
  for (int attempt = 0; attempt < 10; ++attempt) {
    kube::Result<kube::Object> got =
        co_await client_.get(kube::ObjectRef{kWorkspaceKind, kNamespace, instance});
    if (got.status.is(kube::Code::kNotFound)) co_return ApiReply{};
    if (got.ok()) {
      const TimeMs now_ms = world_.sim().now_ms();
      set_cond(got.value, kCondStoppedByRequest, true, "", grace, now_ms);
      if (policy == StopPolicy::kAbort) set_cond(got.value, kCondAborted, true, "", "", now_ms);
      kube::Result<kube::Object> r = co_await client_.update(got.value, kube::Subresource::kStatus);
      world_.sim().record(kActor, "stop-request", instance,
                          r.ok() ? "ok" : kube::code_name(r.status.code), stop_policy_name(policy));
      if (r.ok()) co_return ApiReply{};
      if (r.status.is(kube::Code::kNotFound)) co_return ApiReply{};
    }
    co_await world_.sim().loop().sleep(backoff_ms);
    backoff_ms *= 2;
  }
  co_return ApiReply{ApiCode::kInternal, "cannot stop workspace"};
}

// §4.3.
Task<ApiReply> Mk2Manager::mark_active(std::string instance) {
  if (!up_) co_return ApiReply{ApiCode::kUnavailable, "ws-manager is down"};
  kube::Result<kube::Object> got =
      co_await client_.get(kube::ObjectRef{kWorkspaceKind, kNamespace, instance});
  if (!got.ok()) co_return ApiReply{ApiCode::kNotFound, "no such workspace"};
  const TimeMs now_ms = world_.sim().now_ms();
  set_status_time(got.value, kStatusLastActivityMs, now_ms);
  if (!cond_present(got.value, kCondFirstUserActivity)) {
    set_cond(got.value, kCondFirstUserActivity, true, "", "", now_ms);
  }
  kube::Result<kube::Object> r = co_await client_.update(got.value, kube::Subresource::kStatus);
  co_return r.ok() ? ApiReply{} : ApiReply{ApiCode::kInternal, kube::code_name(r.status.code)};
}

}  // namespace wsim::gitpod::mk2
