// The user workload of an external scenario for any kind (ExternalConfig.workload,
// sim/proto/external.proto): one user per object NAME_PREFIX<i> in the scenario's namespace,
// each repeatedly thinking (think_min_ms..think_max_ms of virtual time) and then drawing one
// action, as the built-in systems' users do [invented]:
//
//   idle       nothing this time
//   start      create the object from the spec template (absent), or patch its stop field back
//              to the template's value (stopped)
//   stop       patch spec.STOP_FIELD to STOP_VALUE (running; needs a stop_field)
//   restart    stop, pause 0..think_min_ms, start; or ("recreate", or no stop_field) delete,
//              wait until the object is gone (1 s polls, at most 5 min), create
//   terminate  delete (present and not being deleted)
//   burst      2..burst_max of the other actions back to back, no think time between them
//
// The action is drawn by weight among those that fit the object's state (read from the API
// server without latency: a user knows what they asked for); an object being deleted leaves
// the user idle. Every draw comes from the user's stream "external.workload-<i>", so a run is a
// function of its choices. Results of the users' requests are not looked at (a 409 or a
// Terminating namespace is the user's bad luck, as for the default workload). Users stop at heal.
//
// A kind that wsim does not serve is served as a custom resource (GROUP/VERSION, PLURAL,
// namespaced) from the run's creation on, as if its CRD were installed: clients list and watch it
// like any kind; no CustomResourceDefinition object is stored.
//
// Threading: single-threaded, runs on the event loop.
#pragma once

#include <string>

#include "sim/core/sim.h"
#include "sim/core/task.h"
#include "sim/kube/cluster.h"
#include "sim/proto/external.pb.h"

namespace wsim::serve {

class ExternalWorkload {
 public:
  enum class Action { kIdle, kStart, kStop, kRestart, kTerminate, kBurst };

  // REQUIRES: config normalized by normalize_workload(); `healed` outlives the workload and
  // turns true at heal.
  ExternalWorkload(Sim& sim, kube::Cluster& cluster, const proto::ExternalConfig& config,
                   const bool& healed);

  // Fills in the defaults of `config.workload` (weights, objects, plural, ...) and checks it;
  // false with `error` naming the field ("workload.kind: ..."). REQUIRES: workload is set.
  static bool normalize_workload(proto::ExternalConfig& config, std::string& error);

  // Serves the kind when wsim does not (resources.h register_custom); false with `error`.
  static bool serve_kind(const proto::ExternalWorkload& workload, std::string& error);

  // Spawns the users "user/NAME_PREFIX<i>".
  void start();

  // The object a start creates for user `index`.
  kube::Object object(int index) const;

  // Scripted actions (ScriptedEvent actor "user"): start, stop, restart (stop then start, or
  // delete and create at once), terminate of NAME, applied at once on the cluster. False with
  // `error` for an unknown action or name.
  bool perform(const std::string& action, const std::string& name, std::string& error);

 private:
  enum class State { kAbsent, kRunning, kStopped, kDeleting };

  Task<void> user(int index);
  Task<void> act(Action action, int index, kube::Client& client, ChoiceStream& stream);
  Task<void> start_object(int index, kube::Client& client);
  Task<void> stop_object(int index, kube::Client& client);
  Task<void> recreate(int index, kube::Client& client);
  Action draw(State state, bool burst_allowed, ChoiceStream& stream) const;
  State state_of(int index) const;
  kube::ObjectRef ref(int index) const;
  std::string stop_key() const;  // The spec key of stop_field ("desired" of "spec.desired").

  Sim& sim_;
  kube::Cluster& cluster_;
  const proto::ExternalConfig& config_;
  const proto::ExternalWorkload& workload_;
  const bool& healed_;
};

}  // namespace wsim::serve
