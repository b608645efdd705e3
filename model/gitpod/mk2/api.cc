// The mk2 gRPC API: components/ws-manager-mk2/service/manager.go @ 4f45d02eac95
// (StartWorkspace, StopWorkspace, MarkActive, modifyWorkspace).
#include "model/gitpod/conditions.h"
#include "model/gitpod/mk2/manager.h"
#include "model/gitpod/names.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"
#include "sim/kube/retry.h"

namespace wsim::gitpod::mk2 {
namespace {

kube::Object secret(const std::string& name) {
  WSIM_ASSERT(!name.empty());
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
    WSIM_ASSERT_EQ(other.meta.labels.value_or_empty(kLabelWorkspaceId), request.workspace_id);
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
    kube::Informer::ObjectView seen = workspaces_->get_shared(kNamespace, request.instance);
    if (seen && !status_str(*seen, kStatusOwnerToken).empty() &&
        !status_str(*seen, kStatusUrl).empty()) {
      co_return ApiReply{};
    }
  }
  co_return ApiReply{ApiCode::kFailedPrecondition, "workspace did not start in time"};
}

Task<kube::Status> Mk2Manager::modify_workspace_once(std::string name,
                                                     std::function<void(kube::Object&)> mutate) {
  WSIM_ASSERT(!name.empty());
  kube::Result<kube::Object> got =
      co_await client_.get(kube::ObjectRef(kWorkspaceKind, kNamespace, name));
  if (!got.ok()) co_return got.status;
  WSIM_ASSERT_EQ(got.value.meta.name, name);
  mutate(got.value);
  WSIM_ASSERT_EQ(got.value.meta.name, name);  // A mutation edits the status, never the identity.
  kube::Result<kube::Object> r =
      co_await client_.update(std::move(got.value), kube::Subresource::kStatus);
  co_return r.status;
}

Task<kube::Status> Mk2Manager::modify_workspace(std::string name,
                                                std::function<void(kube::Object&)> mutate) {
  WSIM_ASSERT(mutate != nullptr);
  // Named, not temporaries inside the co_await expression (g++ 12, sim/kube/README.md).
  const kube::Backoff backoff(10, 10, 2.0, 0.2);  // service/manager.go retryParams.
  std::function<Task<kube::Status>()> attempt = [this, name, mutate] {
    return modify_workspace_once(name, mutate);
  };
  const kube::Status s =
      co_await kube::retry_on_conflict(world_.sim(), retry_stream_, backoff, attempt);
  co_return s;
}

// StopWorkspace: ABORT first sets Aborted (an error is only logged), then StoppedByRequest with
// the grace period; NotFound is success; any other error (a Conflict that outlasted the 10
// steps, a 5xx) fails the RPC.
Task<ApiReply> Mk2Manager::stop_workspace(std::string instance, StopPolicy policy) {
  WSIM_ASSERT(!instance.empty());
  if (!up_) co_return ApiReply{ApiCode::kUnavailable, "ws-manager is down"};
  if (maintenance_) co_return ApiReply{ApiCode::kFailedPrecondition, "under maintenance"};
  const std::string grace = policy == StopPolicy::kNormal ? "30s" : "1s";
  // The message decide_action reads back as the pod's grace (B2).
  WSIM_ASSERT(parse_grace(grace).has_value());
  if (policy == StopPolicy::kAbort) {
    std::function<void(kube::Object&)> abort = [this](kube::Object& ws) {
      set_cond(ws, kCondAborted, true, "StopWorkspaceRequest", "", world_.sim().now_ms());
    };
    const kube::Status aborted = co_await modify_workspace(instance, abort);
    world_.sim().record(kActor, "abort-request", instance,
                        aborted.ok() ? "ok" : kube::code_name(aborted.code));
  }
  std::function<void(kube::Object&)> stop = [this, grace](kube::Object& ws) {
    set_cond(ws, kCondStoppedByRequest, true, "", grace, world_.sim().now_ms());
  };
  const kube::Status stopped = co_await modify_workspace(instance, stop);
  world_.sim().record(kActor, "stop-request", instance,
                      stopped.ok() ? "ok" : kube::code_name(stopped.code),
                      stop_policy_name(policy));
  if (stopped.ok() || stopped.is(kube::Code::kNotFound)) co_return ApiReply{};
  co_return ApiReply{ApiCode::kInternal, "cannot stop workspace: " + stopped.message};
}

// MarkActive (service/manager.go @ 4f45d02eac95 MarkActive, docs/fidelity.md G16): reads the
// Workspace from the cache, then modifyWorkspace(LastActivity), whose error is only logged ("was
// unable to update status"): the RPC still answers OK, so an acknowledged MarkActive can have
// lost its activity. On the first call (no FirstUserActivity in the cached CR) upstream then
// writes FirstUserActivity with a second modifyWorkspace whose error fails the RPC.
// Simplified: on the first call the two writes are one; a failure loses both and fails the RPC
// (upstream's outcome when the FirstUserActivity write fails). Not modelled: the split outcome
// (LastActivity lost, FirstUserActivity written, RPC OK), and the Closed flag (the workload never
// closes a workspace).
Task<ApiReply> Mk2Manager::mark_active(std::string instance) {
  WSIM_ASSERT(!instance.empty());
  if (!up_) co_return ApiReply{ApiCode::kUnavailable, "ws-manager is down"};
  kube::Result<kube::Object> got =
      co_await client_.get(kube::ObjectRef(kWorkspaceKind, kNamespace, instance));
  if (!got.ok()) co_return ApiReply{ApiCode::kNotFound, "no such workspace"};
  WSIM_ASSERT_EQ(got.value.kind, std::string(kWorkspaceKind));
  const bool first_call = !cond_present(got.value, kCondFirstUserActivity);
  std::function<void(kube::Object&)> mark = [this](kube::Object& ws) {
    const TimeMs now_ms = world_.sim().now_ms();
    set_status_time(ws, kStatusLastActivityMs, now_ms);
    if (!cond_present(ws, kCondFirstUserActivity)) {
      set_cond(ws, kCondFirstUserActivity, true, "", "", now_ms);
    }
    WSIM_ASSERT_EQ(status_time(ws, kStatusLastActivityMs).value_or(-1), now_ms);  // Read back.
  };
  const kube::Status r = co_await modify_workspace(instance, mark);
  if (r.ok()) co_return ApiReply{};
  if (first_call) co_return ApiReply{ApiCode::kInternal, kube::code_name(r.code)};
  world_.sim().record(kActor, "mark-active", instance, kube::code_name(r.code),
                      "lastActivity not written; answered OK");
  co_return ApiReply{};
}

}  // namespace wsim::gitpod::mk2
