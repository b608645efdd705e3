// Upstream: kubernetes/kubernetes pkg/controller/deployment @ c91999aea603 (see the header;
// docs/fidelity.md K1–K6).
#include "sim/kube/controllers/deployment_controller.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <system_error>
#include <utility>

namespace wsim::kube {

namespace {

constexpr const char* kTemplatePrefix = "template.";
constexpr const char* kTemplateLabels = "template.labels.";
constexpr const char* kTemplateSpec = "template.spec.";

bool starts_with(const std::string& text, std::string_view prefix) {
  WSIM_ASSERT(!prefix.empty());
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

std::string quoted(const std::string& name) {
  WSIM_ASSERT(!name.empty());  // Names a stored object.
  return "\"" + name + "\"";
}

// progress.go syncRolloutStatus's isCompleteDeployment: every active pod is of the current
// template and the last rollout completed.
bool is_complete_deployment(const Condition* progressing, const DeploymentObservation& obs) {
  if (progressing != nullptr) WSIM_ASSERT_EQ(progressing->type, "Progressing");
  return obs.replicas == obs.updated && progressing != nullptr &&
         progressing->reason == "NewReplicaSetAvailable";
}

// deployment_util.go DeploymentTimedOut: never after a completed rollout; stays timed out; else
// no progress for longer than the deadline.
bool timed_out(const Condition* progressing, const DeploymentObservation& obs) {
  WSIM_ASSERT_GE(obs.progress_deadline_ms, 0);
  WSIM_ASSERT_LE(obs.last_progress_ms, obs.now_ms);  // Progress is observed, not foreseen.
  if (progressing == nullptr || progressing->reason == "NewReplicaSetAvailable") return false;
  return obs.now_ms - obs.last_progress_ms > obs.progress_deadline_ms;
}

}  // namespace

std::string pod_template_hash(const Object& deployment) {
  WSIM_ASSERT_EQ(deployment.kind, "Deployment");
  // FNV-1a (32 bit) over the template keys in map (sorted) order, then Kubernetes'
  // SafeEncodeString over the decimal rendering, like pkg/controller.ComputeHash.
  std::uint32_t hash = 2166136261u;
  auto mix = [&hash](std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash ^= c;
      hash *= 16777619u;
    }
  };
  for (const auto& [key, value] : deployment.spec) {
    if (!starts_with(key, kTemplatePrefix)) continue;
    mix(key);
    mix("=");
    mix(value);
    mix("\n");
  }
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (char c : std::to_string(hash)) {
    out += kAlphabet[static_cast<unsigned char>(c) % kAlphabet.size()];
  }
  return out;
}

namespace {

// Writes `value` (decimal, like std::to_string) at `key`, unless `status` holds that already:
// then nothing is written and the map stays shared with the deployment's, so an unchanged status
// compares by one pointer (docs/performance.md §13.3).
void set_count(Fields& status, const char* key, std::int64_t value) {
  char text[24];
  const auto [end, error] = std::to_chars(text, text + sizeof(text), value);
  WSIM_ASSERT(error == std::errc());
  const std::string_view decimal(text, static_cast<std::size_t>(end - text));
  auto it = status.find(key);
  if (it != status.end() && it->second == decimal) return;
  status.insert_or_assign(key, std::string(decimal));
}

// The deployment's status with the replica counts of `obs`.
Fields replica_counts(const Object& deployment, const DeploymentObservation& obs,
                      std::int64_t unavailable) {
  WSIM_ASSERT_GE(unavailable, 0);
  Fields status = deployment.status;
  set_count(status, "replicas", obs.replicas);
  set_count(status, "updatedReplicas", obs.updated);
  set_count(status, "readyReplicas", obs.ready);
  set_count(status, "availableReplicas", obs.available);
  set_count(status, "unavailableReplicas", unavailable);
  set_count(status, "observedGeneration", deployment.meta.generation);
  return status;
}

// Sets `type` to True/False with `reason` and the message `message()` makes, which is called only
// when the condition changes: an unchanged condition builds no strings and leaves a shared list
// undetached (docs/performance.md §14.2).
template <typename MessageFn>
void set_condition_lazily(SharedVector<Condition>& conditions, const char* type, const char* status,
                          const char* reason, TimeMs now_ms, MessageFn&& message) {
  if (condition_holds(conditions, type, status, reason)) return;
  const bool changed = set_condition(conditions.mutable_vector(),
                                     Condition{type, status, reason, message(), 0}, now_ms);
  WSIM_ASSERT(changed);
}

void set_available_condition(SharedVector<Condition>& conditions, bool available, TimeMs now_ms) {
  WSIM_ASSERT_GE(now_ms, 0);
  if (available) {
    set_condition_lazily(conditions, "Available", "True", "MinimumReplicasAvailable", now_ms,
                         [] { return std::string("Deployment has minimum availability."); });
  } else {
    set_condition_lazily(
        conditions, "Available", "False", "MinimumReplicasUnavailable", now_ms,
        [] { return std::string("Deployment does not have minimum availability."); });
  }
}

}  // namespace

DeploymentStatusUpdate compute_deployment_status(const Object& deployment,
                                                 const DeploymentObservation& obs) {
  DeploymentStatusUpdate update;
  const std::int64_t spec_replicas =
      std::max<std::int64_t>(0, int_field(deployment.spec, "replicas", 1));
  const std::int64_t unavailable = std::max<std::int64_t>(0, spec_replicas - obs.available);

  update.status = replica_counts(deployment, obs, unavailable);
  update.conditions = deployment.conditions;
  set_available_condition(update.conditions, obs.available >= spec_replicas, obs.now_ms);

  update.complete = obs.updated == spec_replicas && obs.replicas == spec_replicas &&
                    obs.available == spec_replicas;

  const std::int64_t prev_replicas = int_field(deployment.status, "replicas", 0);
  const std::int64_t prev_updated = int_field(deployment.status, "updatedReplicas", 0);
  const std::int64_t prev_ready = int_field(deployment.status, "readyReplicas", 0);
  const std::int64_t prev_available = int_field(deployment.status, "availableReplicas", 0);
  const bool made_progress = obs.updated > prev_updated || obs.ready > prev_ready ||
                             obs.available > prev_available ||
                             (obs.replicas - obs.updated) < (prev_replicas - prev_updated);
  const Condition* progressing = find_condition(deployment.conditions, "Progressing");
  // The messages are built only for a condition that changes (set_condition_lazily).
  auto progressing_true = [&](const char* reason, const char* before, const char* after) {
    set_condition_lazily(update.conditions, "Progressing", "True", reason, obs.now_ms,
                         [&] { return before + quoted(obs.replica_set) + after; });
  };

  // pkg/controller/deployment/sync.go getNewReplicaSet: a created ReplicaSet is
  // NewReplicaSetCreated; an existing one is FoundNewReplicaSet only when there is no Progressing
  // condition yet. A pure scale (kScaled) writes no Progressing condition (sync.go sync →
  // syncDeploymentStatus, which keeps the conditions).
  if (obs.change == RolloutChange::kNewReplicaSet) {
    progressing_true("NewReplicaSetCreated", "Created new replica set ", "");
    update.progressed = true;
  } else if (obs.change == RolloutChange::kFoundReplicaSet && progressing == nullptr) {
    progressing_true("FoundNewReplicaSet", "Found new replica set ", "");
    update.progressed = true;
  } else if (is_complete_deployment(progressing, obs)) {
    // progress.go syncRolloutStatus: no progress is estimated for a completed rollout whose pods
    // are all of the current template (a scale, a pod turning unready, a resync).
  } else if (update.complete) {
    progressing_true("NewReplicaSetAvailable", "ReplicaSet ", " has successfully progressed.");
  } else if (made_progress) {
    progressing_true("ReplicaSetUpdated", "ReplicaSet ", " is progressing.");
    update.progressed = true;
  } else if (timed_out(progressing, obs)) {
    set_condition_lazily(
        update.conditions, "Progressing", "False", "ProgressDeadlineExceeded", obs.now_ms,
        [&] { return "ReplicaSet " + quoted(obs.replica_set) + " has timed out progressing."; });
  }

  update.changed = update.status != deployment.status || update.conditions != deployment.conditions;
  // Complete means every replica updated and available (paired with observe()'s counts).
  if (update.complete) WSIM_ASSERT_EQ(obs.available, spec_replicas);
  if (update.progressed) WSIM_ASSERT(update.changed);
  return update;
}

DeploymentController::DeploymentController(Sim& sim, ApiServer& api,
                                           DeploymentControllerOptions options)
    : sim_(sim), api_(api), options_(options), stream_(sim.stream("kube.controller.deployment")) {
  probe_deadline_ = sim.probes().declare("kube.deployment.progress_deadline_exceeded",
                                         "a Deployment reported ProgressDeadlineExceeded");
  WSIM_ASSERT_EQ(api_.object_count(), 0u);  // Built with the cluster, before any object.
}

void DeploymentController::start() {
  WSIM_ASSERT_EQ(api_.object_count(), 0u);  // Listens from the first object on.
  api_.subscribe("Deployment", [this](const WatchEvent& event) { on_deployment(event); });
  api_.subscribe("Pod", [this](const WatchEvent& event) { on_pod(event); });
}

void DeploymentController::on_deployment(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Deployment");
  if (event.type == WatchEventType::kDeleted) {
    memory_.erase(event.object.meta.uid);
    return;
  }
  enqueue(ObjectRef::of(event.object));
}

void DeploymentController::on_pod(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Pod");
  const OwnerReference* owner = controller_of(event.object);
  if (owner == nullptr || owner->kind != "Deployment") return;
  enqueue(ObjectRef{"Deployment", event.object.meta.namespace_, owner->name});
}

void DeploymentController::enqueue(const ObjectRef& ref) {
  WSIM_ASSERT_EQ(ref.kind, "Deployment");
  if (!queued_.insert(ref).second) return;
  const DurationMs delay = draw_delay(stream_, options_.step);
  sim_.loop().schedule(delay, [this, ref] { sync(ref); });
}

void DeploymentController::sync(const ObjectRef& ref) {
  queued_.erase(ref);
  const Object* live = api_.peek(ref);
  if (live == nullptr || is_deleting(*live)) return;  // The GC removes the pods.
  const Object deployment = *live;
  ++counters_.syncs;
  Memory& memory = memory_[deployment.meta.uid];
  const std::string hash = pod_template_hash(deployment);
  WSIM_ASSERT(!hash.empty());
  const std::int64_t spec_replicas =
      std::max<std::int64_t>(0, int_field(deployment.spec, "replicas", 1));

  RolloutChange change = RolloutChange::kNone;
  if (deployment.meta.generation != int_field(deployment.status, "observedGeneration", 0)) {
    if (memory.hashes_seen.insert(hash).second) {
      change = RolloutChange::kNewReplicaSet;
    } else if (hash == memory.current_hash) {
      change = RolloutChange::kScaled;
    } else {
      change = RolloutChange::kFoundReplicaSet;
    }
  }

  if (std::optional<std::vector<const Object*>> current = retire_old_pods(deployment, hash)) {
    const auto have = static_cast<std::int64_t>(current->size());
    // Either creates (have < wanted) or scales down (have > wanted): `current` is read only
    // when nothing was written since retire_old_pods() listed it. At most a burst per sync.
    const std::int64_t allowed = burst_allowance(ref, memory, std::abs(spec_replicas - have));
    if (have < spec_replicas) create_pods(deployment, memory, hash, have, have + allowed);
    if (have > spec_replicas && allowed > 0) scale_down(std::move(*current), allowed);
  }

  // Status from the pods as they are now.
  const DeploymentObservation obs = observe(deployment, memory, hash, change);
  memory.current_hash = hash;
  const DeploymentStatusUpdate update = compute_deployment_status(deployment, obs);
  if (update.progressed) memory.last_progress_ms = obs.now_ms;
  if (update.changed) write_status(deployment, update);
  schedule_deadline(ref, memory, update, obs.progress_deadline_ms);
}

std::vector<const Object*> DeploymentController::owned_pods(const Object& deployment) const {
  WSIM_ASSERT_EQ(deployment.kind, "Deployment");
  WSIM_ASSERT(!deployment.meta.uid.empty());  // Owned = controlled by this uid.
  std::vector<const Object*> pods;
  for (const Object* pod : api_.peek_list("Pod", deployment.meta.namespace_)) {
    const OwnerReference* owner = controller_of(*pod);
    if (owner != nullptr && owner->uid == deployment.meta.uid) pods.push_back(pod);
  }
  return pods;
}

void DeploymentController::delete_pod(const ObjectRef& pod, const char* why) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  const Status status = api_.server_delete(pod, DeleteOptions{}, kActor);
  ++counters_.pods_deleted;
  sim_.record(kActor, "delete-pod", pod.to_string(), status.ok() ? "ok" : code_name(status.code),
              why);
}

std::optional<std::vector<const Object*>> DeploymentController::retire_old_pods(
    const Object& deployment, const std::string& hash) {
  WSIM_ASSERT(!hash.empty());
  bool old_running = false;
  std::vector<const Object*> current;
  std::vector<ObjectRef> retire;  // Deleted after the scan: the store is not written during it.
  for (const Object* pod : owned_pods(deployment)) {
    auto label = pod->meta.labels.find("pod-template-hash");
    if (label == pod->meta.labels.end() || label->second != hash) {
      if (pod_is_terminal(*pod)) continue;
      old_running = true;
      if (!is_deleting(*pod)) retire.push_back(ObjectRef::of(*pod));
    } else if (pod_is_active(*pod)) {
      current.push_back(pod);
    }
  }
  for (const ObjectRef& pod : retire) delete_pod(pod, "old template");
  if (old_running) return std::nullopt;
  WSIM_ASSERT(retire.empty());  // Nothing written: `current` still points into the store.
  return current;
}

// kubernetes pkg/controller/replicaset/replica_set.go@c91999aea603 manageReplicas: a sync
// creates or deletes at most BurstReplicas (500) pods; the rest waits for the next sync, which
// the real controller reaches once its informer saw those 500 (expectations) through a client
// limited to --kube-api-qps 20 (kube-controller-manager's default): 25 s for a burst. Here the
// next pods wait kBurstReplicas / kClientQps seconds of virtual time, so `replicas: 1000000`
// costs what it costs a real cluster (20 pods/s), not one sync creating a million objects.
// Below a burst nothing changes (no delay, no extra wake-up): existing runs are unaffected.
// slowStartBatch's batches (1, 2, 4, ... creates at once) are not modelled: the sim creates one
// pod at a time and stops at the first refused create, where upstream finishes the failing
// batch (its creates run concurrently); the two differ only after a failed create.
std::int64_t DeploymentController::burst_allowance(const ObjectRef& ref, Memory& memory,
                                                   std::int64_t diff) {
  WSIM_ASSERT_GE(diff, 0);
  const TimeMs now_ms = sim_.now_ms();
  if (now_ms < memory.burst_resume_ms) return 0;  // A wake-up at burst_resume_ms is pending.
  if (diff <= kBurstReplicas) return diff;
  memory.burst_resume_ms = now_ms + kBurstReplicas * kSecondMs / kClientQps;
  WSIM_ASSERT_GT(memory.burst_resume_ms, now_ms);
  sim_.loop().schedule(memory.burst_resume_ms - now_ms, [this, ref] { enqueue(ref); });
  return kBurstReplicas;
}

void DeploymentController::create_pods(const Object& deployment, Memory& memory,
                                       const std::string& hash, std::int64_t have,
                                       std::int64_t wanted) {
  WSIM_ASSERT_GE(have, 0);
  const std::string replica_set = deployment.meta.name + "-" + hash;
  for (std::int64_t i = have; i < wanted; ++i) {
    Object pod;
    pod.kind = "Pod";
    pod.meta.namespace_ = deployment.meta.namespace_;
    for (const auto& [key, value] : deployment.spec) {
      if (starts_with(key, kTemplateLabels)) {
        pod.meta.labels[key.substr(std::string_view(kTemplateLabels).size())] = value;
      } else if (starts_with(key, kTemplateSpec)) {
        pod.spec[key.substr(std::string_view(kTemplateSpec).size())] = value;
      }
    }
    pod.meta.labels["pod-template-hash"] = hash;
    pod.meta.owner_references.push_back(
        OwnerReference{"Deployment", deployment.meta.name, deployment.meta.uid, true, true});
    Result<Object> created;
    for (int attempt = 0; attempt < 8; ++attempt) {
      pod.meta.name = replica_set + "-" + std::to_string(memory.next_pod_index++);
      created = api_.server_create(pod, kActor);
      if (!created.status.is(Code::kAlreadyExists)) break;
    }
    sim_.record(kActor, "create-pod", "Pod/" + pod.meta.namespace_ + "/" + pod.meta.name,
                created.ok() ? "ok" : code_name(created.status.code));
    if (!created.ok()) break;  // E.g. Forbidden: the namespace is terminating.
    ++counters_.pods_created;
  }
}

void DeploymentController::scale_down(std::vector<const Object*> current, std::int64_t excess) {
  WSIM_ASSERT_GT(excess, 0);
  WSIM_ASSERT_LE(static_cast<std::size_t>(excess), current.size());
  std::sort(current.begin(), current.end(), [](const Object* a, const Object* b) {
    if (pod_is_ready(*a) != pod_is_ready(*b)) return !pod_is_ready(*a);
    if (a->meta.creation_ms != b->meta.creation_ms)
      return a->meta.creation_ms > b->meta.creation_ms;
    return a->meta.name > b->meta.name;
  });
  // The victims' refs first: a delete may write (and so move) the pods `current` points at.
  std::vector<ObjectRef> victims;
  for (std::int64_t i = 0; i < excess; ++i) {
    victims.push_back(ObjectRef::of(*current[static_cast<std::size_t>(i)]));
  }
  for (const ObjectRef& pod : victims) delete_pod(pod, "scale down");
}

DeploymentObservation DeploymentController::observe(const Object& deployment, const Memory& memory,
                                                    const std::string& hash,
                                                    RolloutChange change) const {
  DeploymentObservation obs;
  // Reads the stored pods in place (owned_pods() without the copies): nothing writes meanwhile.
  for (const Object* stored : api_.peek_list("Pod", deployment.meta.namespace_)) {
    const Object& pod = *stored;
    const OwnerReference* owner = controller_of(pod);
    if (owner == nullptr || owner->uid != deployment.meta.uid) continue;
    if (!pod_is_active(pod)) continue;
    ++obs.replicas;
    auto it = pod.meta.labels.find("pod-template-hash");
    if (it != pod.meta.labels.end() && it->second == hash) ++obs.updated;
    if (pod_is_ready(pod)) {
      ++obs.ready;
      ++obs.available;
    }
  }
  WSIM_ASSERT_LE(obs.updated, obs.replicas);
  WSIM_ASSERT_LE(obs.ready, obs.replicas);
  obs.replica_set = deployment.meta.name + "-" + hash;
  obs.change = change;
  obs.now_ms = sim_.now_ms();
  obs.last_progress_ms = memory.last_progress_ms;
  obs.progress_deadline_ms =
      int_field(deployment.spec, "progressDeadlineMs", options_.default_progress_deadline_ms);
  return obs;
}

void DeploymentController::write_status(const Object& deployment,
                                        const DeploymentStatusUpdate& update) {
  WSIM_ASSERT(update.changed);
  MergePatch patch;
  for (const auto& [key, value] : update.status) patch.status[key] = value;
  patch.conditions = update.conditions.vector();
  Result<Object> written =
      api_.server_patch(ObjectRef::of(deployment), patch, Subresource::kStatus, kActor);
  ++counters_.status_writes;
  const Condition* p = find_condition(update.conditions, "Progressing");
  const Condition* a = find_condition(update.conditions, "Available");
  std::string detail = "replicas=" + update.status.at("replicas") +
                       " available=" + update.status.at("availableReplicas") +
                       " unavailable=" + update.status.at("unavailableReplicas");
  if (p != nullptr) detail += " Progressing=" + p->reason;
  if (a != nullptr) detail += " Available=" + a->reason;
  if (p != nullptr && p->reason == "ProgressDeadlineExceeded") {
    const Condition* before = find_condition(deployment.conditions, "Progressing");
    if (before == nullptr || before->reason != "ProgressDeadlineExceeded") {
      ++counters_.deadline_exceeded;
      sim_.probes().hit(probe_deadline_);
    }
  }
  sim_.record(kActor, "update-status", ObjectRef::of(deployment).to_string(),
              written.ok() ? "ok" : code_name(written.status.code), detail);
}

// Wakes up at the progress deadline while the rollout is incomplete.
void DeploymentController::schedule_deadline(const ObjectRef& ref, Memory& memory,
                                             const DeploymentStatusUpdate& update,
                                             DurationMs progress_deadline_ms) {
  WSIM_ASSERT_EQ(ref.kind, "Deployment");
  WSIM_ASSERT_GE(progress_deadline_ms, 0);
  const Condition* p = find_condition(update.conditions, "Progressing");
  const bool waiting = !update.complete && p != nullptr && p->reason != "NewReplicaSetAvailable" &&
                       p->reason != "ProgressDeadlineExceeded";
  if (!waiting) return;
  const TimeMs due = memory.last_progress_ms + progress_deadline_ms + 1;
  if (memory.deadline_timer_ms < due) {
    memory.deadline_timer_ms = due;
    sim_.loop().schedule(std::max<DurationMs>(0, due - sim_.now_ms()),
                         [this, ref] { enqueue(ref); });
  }
}

}  // namespace wsim::kube
