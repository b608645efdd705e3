// Deployment controller: Deployment → Pods (the ReplicaSet layer is folded in: pods are named
// <deployment>-<template hash>-<n> and owned directly by the Deployment, controller=true,
// blockOwnerDeletion=true). Strategy Recreate: pods of an old template are deleted and the new
// ones created once the old are gone.
//
// Upstream: kubernetes/kubernetes pkg/controller/deployment (sync.go getNewReplicaSet, sync,
// syncDeploymentStatus, calculateStatus; progress.go syncRolloutStatus; recreate.go
// rolloutRecreate; util/deployment_util.go DeploymentComplete, DeploymentProgressing,
// DeploymentTimedOut) @ c91999aea603. docs/fidelity.md lists each rule with its test.
//
// Status and conditions (the ones the GitLab ActualStateCalculator reads):
//   status: replicas (active pods), updatedReplicas, readyReplicas, availableReplicas (= ready,
//           minReadySeconds 0), unavailableReplicas (= max(spec.replicas - available, 0)),
//           observedGeneration
//   Available:   True MinimumReplicasAvailable   if available >= spec.replicas
//                False MinimumReplicasUnavailable otherwise
//   Progressing: a new template hash → True NewReplicaSetCreated; a template seen before →
//                True FoundNewReplicaSet only if there is no Progressing condition yet; a pure
//                replicas change → unchanged. Then, unless the rollout is complete
//                (isCompleteDeployment: replicas == updated and the condition is
//                NewReplicaSetAvailable — so a scale of a completed Deployment keeps
//                NewReplicaSetAvailable even if its new pod never becomes ready): True
//                NewReplicaSetAvailable once updated == replicas == available == spec.replicas;
//                True ReplicaSetUpdated on progress; False ProgressDeadlineExceeded after spec
//                "progressDeadlineMs" (default 600 s) without progress (never after
//                NewReplicaSetAvailable).
// Every status change is one write (status subresource); an unchanged status is not written.
// A sync creates or deletes at most 500 pods (BurstReplicas); after a full burst the next pods
// wait 25 s of virtual time (the real controller's 20 QPS client): see burst_allowance(),
// docs/fidelity.md K15.
//
// Spec keys read: "replicas" (default 1), "progressDeadlineMs", "template.labels.<k>",
// "template.spec.<k>" (copied to the pod spec as <k>, e.g. cpuMilli, nodeSelector,
// restartPolicy, terminationGracePeriodMs, readiness).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/controllers/controller_util.h"
#include "sim/kube/object.h"

namespace wsim::kube {

struct DeploymentControllerOptions {
  DelayRange step{10, 500};  // Delay of a sync after an event on the Deployment or its pods.
  DurationMs default_progress_deadline_ms = 600 * kSecondMs;
};

// The pod-template hash of a Deployment: FNV-1a over its "template.*" spec keys, rendered with the
// Kubernetes SafeEncodeString alphabet (10 characters).
std::string pod_template_hash(const Object& deployment);

// --- The status computation, as a pure function (unit-tested without a server). ---

enum class RolloutChange {
  kNone,             // Generation already observed.
  kNewReplicaSet,    // New generation with a template hash never seen: NewReplicaSetCreated.
  kFoundReplicaSet,  // New generation with a template hash seen before: FoundNewReplicaSet.
  kScaled,           // New generation, same template: the Progressing condition is kept.
};

struct DeploymentObservation {
  std::int64_t replicas = 0;   // Active pods, every template.
  std::int64_t updated = 0;    // Active pods of the current template.
  std::int64_t ready = 0;      // Active ready pods.
  std::int64_t available = 0;  // Active available pods (ready; minReadySeconds is 0).
  std::string replica_set;     // "<deployment>-<hash>", for messages.
  RolloutChange change = RolloutChange::kNone;
  TimeMs now_ms = 0;
  TimeMs last_progress_ms = 0;  // Last time the rollout made progress.
  DurationMs progress_deadline_ms = 600 * kSecondMs;
};

struct DeploymentStatusUpdate {
  Fields status;
  // Shared with the deployment's own list until a condition changes (copy-on-write).
  SharedVector<Condition> conditions;
  bool progressed = false;  // Progress this sync (resets the deadline clock).
  bool complete = false;
  bool changed = false;  // Differs from the deployment's current status / conditions.
};

DeploymentStatusUpdate compute_deployment_status(const Object& deployment,
                                                 const DeploymentObservation& observation);

// --- The controller. ---

class DeploymentController {
 public:
  static constexpr const char* kActor = "deployment-controller";

  DeploymentController(Sim& sim, ApiServer& api, DeploymentControllerOptions options = {});
  DeploymentController(const DeploymentController&) = delete;
  DeploymentController& operator=(const DeploymentController&) = delete;

  // Subscribes to Deployment and Pod changes.
  void start();

  struct Counters {
    std::uint64_t syncs = 0;
    std::uint64_t pods_created = 0;
    std::uint64_t pods_deleted = 0;
    std::uint64_t status_writes = 0;
    std::uint64_t deadline_exceeded = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  struct Memory {
    std::set<std::string> hashes_seen;  // Template hashes ("ReplicaSets") ever rolled out.
    std::string current_hash;
    std::int64_t next_pod_index = 0;
    TimeMs last_progress_ms = 0;
    TimeMs deadline_timer_ms = -1;  // Due time of the latest progress-deadline wake-up.
    TimeMs burst_resume_ms = 0;     // After a full burst: no pod is created or deleted before.
  };

  // replica_set.go BurstReplicas; kube-controller-manager --kube-api-qps.
  static constexpr std::int64_t kBurstReplicas = 500;
  static constexpr std::int64_t kClientQps = 20;

  void on_deployment(const WatchEvent& event);
  void on_pod(const WatchEvent& event);
  void enqueue(const ObjectRef& ref);
  // One reconcile of the Deployment at `ref` (the steps below, in this order).
  void sync(const ObjectRef& ref);
  // The pods the deployment controls (by controller owner reference), in list order: the
  // stored objects, valid until the store is next written.
  std::vector<const Object*> owned_pods(const Object& deployment) const;
  void delete_pod(const ObjectRef& pod, const char* why);
  // Recreate strategy: deletes the active pods of other templates; returns the active pods of
  // the current template (stored objects, valid until the next write: then nothing was deleted),
  // or nullopt while an old pod still runs (terminating ones included).
  std::optional<std::vector<const Object*>> retire_old_pods(const Object& deployment,
                                                            const std::string& hash);
  // How many of `diff` missing or excess pods this sync may create or delete: all of them up to
  // kBurstReplicas; a full burst makes the next ones wait (see the .cc). Schedules the wake-up.
  std::int64_t burst_allowance(const ObjectRef& ref, Memory& memory, std::int64_t diff);
  // Creates pods of the current template until `wanted` (stops at the first refused create).
  void create_pods(const Object& deployment, Memory& memory, const std::string& hash,
                   std::int64_t have, std::int64_t wanted);
  // Deletes `excess` of `current`: not-ready pods first, then the newest (ReplicaSet ranking).
  void scale_down(std::vector<const Object*> current, std::int64_t excess);
  DeploymentObservation observe(const Object& deployment, const Memory& memory,
                                const std::string& hash, RolloutChange change) const;
  void write_status(const Object& deployment, const DeploymentStatusUpdate& update);
  void schedule_deadline(const ObjectRef& ref, Memory& memory, const DeploymentStatusUpdate& update,
                         DurationMs progress_deadline_ms);

  Sim& sim_;
  ApiServer& api_;
  DeploymentControllerOptions options_;
  ChoiceStream stream_;
  ProbeId probe_deadline_ = 0;
  std::set<ObjectRef> queued_;
  std::map<std::string, Memory> memory_;  // By Deployment uid.
  Counters counters_;
};

}  // namespace wsim::kube
