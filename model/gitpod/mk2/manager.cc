// Upstream: gitpod-io/gitpod @ 4f45d02eac95 components/ws-manager-mk2/main.go and controllers/
// workspace_controller.go SetupWithManager (watches: Workspace, owned pods, node deletion).
#include "model/gitpod/mk2/manager.h"

#include "model/gitpod/conditions.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"

namespace wsim::gitpod::mk2 {
namespace {

// The pods informer's index of pods by controller owner (the Workspace name).
constexpr const char* kOwnerIndex = "owner";

std::unique_ptr<kube::Informer> make_informer(GitpodWorld& world, const std::string& kind,
                                              const std::string& namespace_) {
  WSIM_ASSERT(!kind.empty());
  kube::InformerOptions options;
  options.identity = Mk2Manager::kActor;
  options.kind = kind;
  options.namespace_ = namespace_;
  options.trace_changes = false;
  return std::make_unique<kube::Informer>(world.sim(), world.api(), options);
}

}  // namespace

Mk2Manager::Mk2Manager(GitpodWorld& world, ManagerOptions options)
    : world_(world),
      versions_(world.versions()),
      options_(options),
      client_(world.sim(), world.api(), kActor),
      retry_stream_(world.sim().stream("gitpod.manager.retry")) {
  WSIM_ASSERT(versions_.mk2());
  WSIM_ASSERT_GT(options_.workspace_workers, 0);
}

Mk2Manager::~Mk2Manager() { stop(); }

void Mk2Manager::start() {
  if (up_) return;
  up_ = true;
  world_.sim().record(kActor, "start", "", "ok");
  queue_ = std::make_shared<WorkQueue>(world_.sim());
  timeout_queue_ = std::make_shared<WorkQueue>(world_.sim());
  workspaces_ = make_informer(world_, kWorkspaceKind, kNamespace);
  pods_ = make_informer(world_, "Pod", kNamespace);
  pods_->add_index(kOwnerIndex, [](const kube::Object& pod) {
    std::string owner = pod_owner(pod);
    return owner.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::move(owner)};
  });
  nodes_ = make_informer(world_, "Node", "");
  workspaces_->on_change([this](const kube::Object& o, bool deleted) { on_workspace(o, deleted); });
  pods_->on_change([this](const kube::Object& o, bool deleted) { on_pod(o, deleted); });
  nodes_->on_change([this](const kube::Object& o, bool deleted) { on_node(o, deleted); });
  workspaces_->start();
  pods_->start();
  nodes_->start();
  client_.share(kWorkspaceKind, workspaces_.get());
  client_.share("Pod", pods_.get());
  client_.share("Node", nodes_.get());
  EventLoop& loop = world_.sim().loop();
  for (int i = 0; i < options_.workspace_workers; ++i) {
    actors_.push_back(loop.spawn("ws-manager/worker", workspace_worker(queue_)));
  }
  for (int i = 0; i < options_.timeout_workers; ++i) {
    actors_.push_back(loop.spawn("ws-manager/timeout", timeout_worker(timeout_queue_)));
  }
  // stop() cleared the last incarnation's actors: exactly this incarnation's workers run.
  WSIM_ASSERT_EQ(actors_.size(),
                 static_cast<std::size_t>(options_.workspace_workers + options_.timeout_workers));
}

void Mk2Manager::stop() {
  if (!up_) return;
  up_ = false;
  world_.sim().record(kActor, "stop", "", "ok");
  for (ActorId id : actors_) world_.sim().loop().cancel(id);
  actors_.clear();
  for (auto* q : {&queue_, &timeout_queue_}) {
    if (*q) (*q)->shutdown();
    q->reset();
  }
  timeout_checks_.clear();
  for (const char* kind : {kWorkspaceKind, "Pod", "Node"}) client_.share(kind, nullptr);
  client_.stop();
  for (auto* informer : {&workspaces_, &pods_, &nodes_}) {
    if (*informer) (*informer)->stop();
    informer->reset();
  }
  // on_workspace/on_pod test queue_ alone: both queues and every worker are gone together.
  WSIM_ASSERT(actors_.empty());
  WSIM_ASSERT(timeout_queue_ == nullptr);
}

// No std::array of informers across the co_await: g++ 12 destroys brace-initialised aggregates
// living across a co_await twice (sim/kube/README.md).
Task<void> Mk2Manager::wait_for_caches() {
  if (workspaces_) co_await workspaces_->wait_synced();
  if (pods_) co_await pods_->wait_synced();
  if (nodes_) co_await nodes_->wait_synced();
}

namespace {

// service/manager.go extractWorkspaceStatus (@ 4f45d02eac95 :1035-1054): the CR phase as the API's
// WorkspacePhase; ImageBuild is PENDING, an unset phase the zero value UNKNOWN.
std::string api_phase(const std::string& cr_phase) {
  if (cr_phase == kPhasePending || cr_phase == "ImageBuild") return "PENDING";
  if (cr_phase == kPhaseCreating) return "CREATING";
  if (cr_phase == kPhaseInitializing) return "INITIALIZING";
  if (cr_phase == kPhaseRunning) return "RUNNING";
  if (cr_phase == kPhaseStopping) return "STOPPING";
  if (cr_phase == kPhaseStopped) return "STOPPED";
  return "UNKNOWN";
}

}  // namespace

bool Mk2Manager::lists(const std::string& instance) const {
  WSIM_ASSERT(!instance.empty());
  return world_.api().peek(kube::ObjectRef{kWorkspaceKind, kNamespace, instance}) != nullptr;
}

void Mk2Manager::on_workspace(const kube::Object& ws, bool deleted) {
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  timeout_checks_.erase(ws.meta.name);  // The cached object changed: its deadlines may have.
  // The subscriber controller (controllers/subscriber_controller.go @ 4f45d02eac95 Reconcile
  // :48-75): on a change of the cached CR, publish its status — nothing for a deleted CR
  // (NotFound), nothing while PodRejected is True (the re-creation chatter is hidden, :64-68).
  // Simplified: every cache change publishes at once (upstream: a coalescing work queue whose
  // predicate drops updates that change neither the status nor the ports, :104-133).
  if (!deleted && !cond_true(ws, kCondPodRejected)) {
    publish_status(ws.meta.name, api_phase(phase(ws)));
  }
  if (!queue_) return;
  WSIM_ASSERT(timeout_queue_ != nullptr);  // start() makes both queues, stop() drops both.
  queue_->add(ws.meta.name);
  if (!deleted) timeout_queue_->add(ws.meta.name);
}

void Mk2Manager::on_pod(const kube::Object& pod, bool deleted) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  if (!queue_) return;
  const std::string owner = pod_owner(pod);
  if (!owner.empty()) queue_->add(owner);
}

void Mk2Manager::on_node(const kube::Object& node, bool deleted) {
  WSIM_ASSERT_EQ(node.kind, std::string("Node"));
  WSIM_ASSERT(!node.meta.name.empty());  // Matched against runtime.nodeName below.
  if (!queue_ || !deleted || !workspaces_) return;
  // §3.6: node deletion enqueues every workspace whose runtime.nodeName is that node.
  for (const kube::Informer::ObjectView& ws : workspaces_->list_shared()) {
    if (ws->status_or(kStatusNodeName, "") == node.meta.name) queue_->add(ws->meta.name);
  }
}

std::vector<kube::Object> Mk2Manager::owned_pods(const std::string& name) const {
  WSIM_ASSERT(!name.empty());
  std::vector<kube::Object> out;
  if (!pods_) return out;
  // An index by controller owner (client-go Indexers), not a scan of every pod per reconcile:
  // the cost of a reconcile stays flat with 1,000 workspaces. Same pods, same order.
  for (const kube::Informer::ObjectView& pod : pods_->by_index(kOwnerIndex, name)) {
    WSIM_ASSERT_EQ(pod_owner(*pod), name);
    out.push_back(*pod);
  }
  return out;
}

ActionInputs Mk2Manager::action_inputs() const {
  ActionInputs in;
  in.versions = &versions_;
  in.now_ms = world_.sim().now_ms();
  in.pod_recreation_max_retries = world_.settings().pod_recreation_max_retries;
  in.pod_recreation_backoff_ms = world_.settings().pod_recreation_backoff_ms;
  WSIM_ASSERT_GE(in.pod_recreation_max_retries, 0);  // normalize: 0..100.
  WSIM_ASSERT_GE(in.pod_recreation_backoff_ms, 0);   // 0 means the 15 s default.
  return in;
}

}  // namespace wsim::gitpod::mk2
