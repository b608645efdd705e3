// mk1 wiring and the gRPC API (manager.go at 724ed7a92a^ and c8c4c3bda92c; docs/systems/gitpod.md
// §7.1, §7.7 step 1, §8.1, §8.5).
#include "model/gitpod/mk1/manager.h"

#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::gitpod::mk1 {
namespace {

std::unique_ptr<kube::Informer> make_informer(GitpodWorld& world, const std::string& kind) {
  WSIM_ASSERT(!kind.empty());
  kube::InformerOptions options;
  options.identity = Mk1Manager::kActor;
  options.kind = kind;
  options.namespace_ = kNamespace;
  options.trace_changes = false;
  // controller-runtime's default SyncPeriod, v0.8.2 / v0.14.6 (manager.Options.SyncPeriod unset in
  // cmd/run.go): every cached object is re-delivered as an update every 10 hours.
  options.resync_ms = 10 * kHourMs;
  return std::make_unique<kube::Informer>(world.sim(), world.api(), options);
}

}  // namespace

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kUnknown:
      return "UNKNOWN";
    case Phase::kPending:
      return "PENDING";
    case Phase::kCreating:
      return "CREATING";
    case Phase::kInitializing:
      return "INITIALIZING";
    case Phase::kRunning:
      return "RUNNING";
    case Phase::kInterrupted:
      return "INTERRUPTED";
    case Phase::kStopping:
      return "STOPPING";
    case Phase::kStopped:
      return "STOPPED";
  }
  WSIM_ASSERT_MSG(false, "phase " << static_cast<int>(phase) << " has no name");
  return "?";
}

Mk1Manager::Mk1Manager(GitpodWorld& world, Mk1Options options)
    : world_(world),
      versions_(world.versions()),
      options_(options),
      client_(world.sim(), world.api(), kActor),
      retry_stream_(world.sim().stream("gitpod.manager.retry")) {
  WSIM_ASSERT(versions_.mk1());
  WSIM_ASSERT_GT(options_.workers, 0);
}

Mk1Manager::~Mk1Manager() { stop(); }

bool Mk1Manager::plis_era() const { return versions_.plis(); }

bool Mk1Manager::lists(const std::string& instance) const {
  WSIM_ASSERT(!instance.empty());
  kube::ApiServer& api = world_.api();
  if (api.peek(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)}) != nullptr) return true;
  return plis_era() &&
         api.peek(kube::ObjectRef{"ConfigMap", kNamespace, plis_name(instance)}) != nullptr;
}

bool Mk1Manager::direct_reads() const { return versions_.era == ManagerEra::kMk1PlisDirect; }

Task<kube::Result<kube::Object>> Mk1Manager::read(kube::ObjectRef ref) {
  WSIM_ASSERT(!ref.name.empty());
  if (direct_reads()) co_return co_await client_.reader().get(std::move(ref));
  co_return co_await client_.get(std::move(ref));
}

void Mk1Manager::start() {
  if (up_) return;
  up_ = true;
  world_.sim().record(kActor, "start", "", "ok");
  pool_ = std::make_shared<EventPool>(world_.sim());
  cm_queue_ = std::make_shared<WorkQueue>(world_.sim());
  pod_queue_ = std::make_shared<WorkQueue>(world_.sim());
  pods_ = make_informer(world_, "Pod");
  configmaps_ = make_informer(world_, "ConfigMap");
  pods_->on_change([this](const kube::Object& o, bool deleted) { on_pod(o, deleted); });
  configmaps_->on_change(
      [this](const kube::Object& o, bool deleted) { on_config_map(o, deleted); });
  pods_->start();
  configmaps_->start();
  client_.share("Pod", pods_.get());
  client_.share("ConfigMap", configmaps_.get());
  // At startup every existing workspace counts as active, so nobody times out at once (§7.4).
  for (auto& [instance, at_ms] : activity_ms_) at_ms = world_.sim().now_ms();
  EventLoop& loop = world_.sim().loop();
  for (int i = 0; i < options_.workers; ++i)
    actors_.push_back(loop.spawn("ws-manager/monitor", worker(pool_)));
  actors_.push_back(
      loop.spawn("ws-manager/configmap-reconciler", config_map_reconciler(cm_queue_)));
  actors_.push_back(loop.spawn("ws-manager/pod-reconciler", pod_reconciler(pod_queue_)));
  actors_.push_back(loop.spawn("ws-manager/housekeeping", housekeeping()));
  // stop() cleared the last incarnation's actors: the workers, two reconcilers, housekeeping.
  WSIM_ASSERT_EQ(actors_.size(), static_cast<std::size_t>(options_.workers + 3));
}

void Mk1Manager::stop() {
  if (!up_) return;
  up_ = false;
  world_.sim().record(kActor, "stop", "", "ok");
  for (ActorId id : actors_) world_.sim().loop().cancel(id);
  actors_.clear();
  if (pool_) pool_->shutdown();
  pool_.reset();
  for (auto* q : {&cm_queue_, &pod_queue_}) {
    if (*q) (*q)->shutdown();
    q->reset();
  }
  pods_seen_.clear();
  for (const char* kind : {"Pod", "ConfigMap"}) client_.share(kind, nullptr);
  client_.stop();
  for (auto* informer : {&pods_, &configmaps_}) {
    if (*informer) (*informer)->stop();
    informer->reset();
  }
  initializing_.clear();
  finalizing_.clear();
  probing_.clear();
  for (auto& [instance, at_ms] : activity_ms_) at_ms = 0;
}

void Mk1Manager::on_pod(const kube::Object& pod, bool deleted) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  if (!pool_) return;
  WSIM_ASSERT(pod_queue_ != nullptr);  // start() makes the pool and both queues together.
  if (!plis_era()) {
    // Finalizer era: PodReconciler (predicate: the pod has a gitpod/id annotation).
    if (pod.meta.annotations.count(kAnnId) > 0) pod_queue_->add(pod.meta.name);
    return;
  }
  // PLIS era: PodPoolFeeder adds every event with its object.
  auto id = pod.meta.annotations.find(kAnnId);
  if (id == pod.meta.annotations.end()) return;
  pool_->add(MonitorEvent(id->second, MonitorEvent::Kind::kPod, deleted, pod));
}

void Mk1Manager::on_config_map(const kube::Object& cm, bool deleted) {
  WSIM_ASSERT_EQ(cm.kind, std::string("ConfigMap"));
  if (!cm_queue_ || !plis_era()) return;
  WSIM_ASSERT(pool_ != nullptr);
  if (direct_reads()) {
    // monitor.go @ 08774bd177^ enqueueEvent: every ConfigMap watch event goes to the pool with
    // its object. A Deleted one is dropped here: upstream deletes the PLIS with Foreground
    // propagation, so its last events carry DeletionGracePeriodSeconds, which onConfigMapEvent
    // ignores.
    auto id = cm.meta.annotations.find(kAnnId);
    if (deleted || id == cm.meta.annotations.end()) return;
    pool_->add(MonitorEvent(id->second, MonitorEvent::Kind::kConfigMap, false, cm));
    return;
  }
  cm_queue_->add(cm.meta.name);  // ConfigmapReconciler: For(&ConfigMap{}), every event.
}

void Mk1Manager::spawn_once(std::set<std::string>& running, const std::string& instance,
                            const std::string& what, Task<void> task) {
  WSIM_ASSERT(!instance.empty());
  WSIM_ASSERT(up_);  // Only a running manager starts actors; stop() cancels them.
  if (!running.insert(instance).second) return;
  actors_.push_back(
      world_.sim().loop().spawn("ws-manager/" + what + " " + instance, std::move(task)));
}

Task<ApiReply> Mk1Manager::start_workspace(StartRequest request) {
  WSIM_ASSERT(!request.instance.empty());
  WSIM_ASSERT(!request.workspace_id.empty());
  if (!up_) co_return ApiReply{ApiCode::kUnavailable, "ws-manager is down"};
  if (maintenance_) co_return ApiReply{ApiCode::kFailedPrecondition, "under maintenance"};
  kube::LabelSelector selector;
  selector.match_labels[kLabelWorkspaceId] = request.workspace_id;
  // No conditional expressions around co_await: g++ 12 mis-destroys their temporaries.
  kube::Result<std::vector<kube::Object>> existing;
  if (direct_reads()) {
    existing = co_await client_.reader().list("Pod", kNamespace, selector);
  } else {
    existing = co_await client_.list("Pod", kNamespace, selector);
  }
  if (!existing.ok()) co_return ApiReply{ApiCode::kInternal, "cannot list pods"};
  if (!existing.value.empty()) co_return ApiReply{ApiCode::kAlreadyExists, "workspace exists"};
  kube::Object pod = world_.workspace_pod_template(request.instance, request.workspace_id);
  // handle_pod reads the workspace label (content init), the duplicate check selects by it.
  WSIM_ASSERT_EQ(pod.meta.labels.value_or_empty(kLabelWorkspaceId), request.workspace_id);
  pod.meta.annotations[kAnnId] = request.instance;
  pod.meta.annotations[kAnnNeverReady] = "true";
  // create.go (PLIS era): the start's trace id, removed by the monitor on RUNNING.
  if (plis_era()) pod.meta.annotations[kAnnTraceId] = request.instance;
  // Finalizer era: on the pod from creation since 2021-11-24 (8ff614266b, §8.1).
  if (!plis_era()) pod.meta.finalizers.push_back(kFinalizer);
  // The pod first, so housekeeping does not treat the rest as dangling (§7.1).
  kube::Result<kube::Object> created = co_await client_.create(pod);
  world_.sim().record(kActor, "create-pod", request.instance,
                      created.ok() ? "ok" : kube::code_name(created.status.code));
  if (!created.ok()) co_return ApiReply{ApiCode::kInternal, created.status.message};
  WSIM_ASSERT_EQ(created.value.meta.name, pod_name(request.instance));
  activity_ms_[request.instance] = world_.sim().now_ms();
  if (plis_era()) {
    kube::Object cm;
    cm.kind = "ConfigMap";
    cm.meta.name = plis_name(request.instance);
    cm.meta.namespace_ = kNamespace;
    cm.meta.labels = pod.meta.labels;
    cm.meta.annotations[kAnnId] = request.instance;
    cm.meta.annotations[kAnnPlis] = encode_plis(Plis{});
    WSIM_ASSERT(read_plis(cm).has_value());  // Paired: what encode_plis writes reads back.
    kube::Result<kube::Object> plis = co_await client_.create(cm);
    if (!plis.ok()) co_return ApiReply{ApiCode::kInternal, "cannot create PLIS"};
  }
  co_return ApiReply{};
}

Task<ApiReply> Mk1Manager::stop_workspace(std::string instance, StopPolicy policy) {
  if (!up_) co_return ApiReply{ApiCode::kUnavailable, "ws-manager is down"};
  if (maintenance_) co_return ApiReply{ApiCode::kFailedPrecondition, "under maintenance"};
  const DurationMs grace_ms = policy == StopPolicy::kNormal ? 30 * kSecondMs : kSecondMs;
  WSIM_ASSERT(!instance.empty());
  kube::Result<kube::Object> pod =
      co_await read(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)});
  if (pod.status.is(kube::Code::kNotFound))
    co_return ApiReply{ApiCode::kNotFound, "no such workspace"};
  if (!pod.ok()) co_return ApiReply{ApiCode::kInternal, "cannot get pod"};
  if (plis_era()) {
    // §7.7 step 1: no-op if already STOPPING; patch the PLIS (a failure is only a warning), then
    // delete the pod.
    if (pod_deleting(pod.value)) co_return ApiReply{};
    const PodStatus status = status_from_pod(pod.value, false);
    const std::string node = pod_node(pod.value);
    const TimeMs now_ms = world_.sim().now_ms();
    (void)co_await patch_plis(instance, [&](Plis& plis) {
      if (!plis.stopping_since_ms.has_value()) plis.stopping_since_ms = now_ms;
      plis.last_pod_phase = phase_name(Phase::kStopping);
      plis.last_pod_ever_ready = status.ever_ready;
      plis.last_pod_deployed = true;
      plis.host_ip = node;
      return true;
    });
    co_await delete_pod(instance, grace_ms);
    co_return ApiReply{};
  }
  // Finalizer era: the RPC only marks; the monitor deletes (§8.1).
  const bool marked = co_await mark_pod(instance, [&](kube::Object& p) {
    p.meta.annotations[kAnnStoppedByRequest] = std::to_string(grace_ms);
    if (policy == StopPolicy::kAbort) p.meta.annotations[kAnnAbortRequest] = "true";
    return true;
  });
  co_return marked ? ApiReply{} : ApiReply{ApiCode::kInternal, "cannot mark workspace"};
}

Task<ApiReply> Mk1Manager::mark_active(std::string instance) {
  if (!up_) co_return ApiReply{ApiCode::kUnavailable, "ws-manager is down"};
  WSIM_ASSERT(!instance.empty());
  activity_ms_[instance] = world_.sim().now_ms();
  co_return ApiReply{};
}

}  // namespace wsim::gitpod::mk1
