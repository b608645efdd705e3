// Upstream: kubernetes/kubernetes pkg/controller/namespace — [reconstructed] (content deleted
// over several steps, then the spec finalizer); batch size and delays [invented]. docs/fidelity.md
// K10.
//
// Namespace controller: the content removal of a Terminating namespace
// (pkg/controller/namespace), over several steps.
//
// When a namespace has a deletionTimestamp (phase Terminating) and still carries the "kubernetes"
// spec finalizer, each step deletes up to `batch` objects of the namespace that are not yet being
// deleted (every kind, in name order). Pods then go
// through their grace period on the kubelet; objects with finalizers wait for their owners to
// remove them. Once nothing is left in the namespace, the step clears spec "finalizers" and the
// server removes the namespace. Step delays are drawn from "kube.controller.namespace"; the fault
// point "kube.namespace.slow_termination" stretches a step by `slow_extra` when it fires.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::kube {

struct NamespaceControllerOptions {
  DelayRange step{100, 2000};
  int batch = 3;  // Objects deleted per step.
  DelayRange slow_extra{10 * kSecondMs, 5 * kMinuteMs};
  Ratio slow_enable{1, 4};
  Ratio slow_fire{1, 2};
};

class NamespaceController {
 public:
  static constexpr const char* kActor = "namespace-controller";
  static constexpr const char* kSlowFault = "kube.namespace.slow_termination";

  // Declares the fault point (call before the run draws its swarm).
  NamespaceController(Sim& sim, ApiServer& api, NamespaceControllerOptions options = {});
  NamespaceController(const NamespaceController&) = delete;
  NamespaceController& operator=(const NamespaceController&) = delete;

  // Subscribes to every kind (namespaces, and content removals that may finish a namespace).
  void start();

  struct Counters {
    std::uint64_t steps = 0;
    std::uint64_t deletions = 0;
    std::uint64_t finalized = 0;  // Namespaces whose "kubernetes" finalizer was cleared.
    std::uint64_t slow_steps = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  void on_event(const WatchEvent& event);
  void enqueue(const std::string& name);
  void step(const std::string& name);

  Sim& sim_;
  ApiServer& api_;
  NamespaceControllerOptions options_;
  ChoiceStream stream_;
  ChoiceStream fault_stream_;
  FaultId slow_fault_ = 0;
  ProbeId probe_waiting_ = 0;     // Only terminating content left (pods in grace, finalizers).
  std::set<std::string> queued_;  // Namespace names with a step pending.
  Counters counters_;
};

}  // namespace wsim::kube
