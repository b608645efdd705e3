// Upstream: kubernetes/kubernetes pkg/controller/garbagecollector — the cascade rules are
// [reconstructed] from its documented behaviour (background, foreground, orphan), not ported line
// by line; step delays [invented]. docs/fidelity.md K10.
//
// Garbage collector: the ownerReference cascade of the Kubernetes GC
// (pkg/controller/garbagecollector), on a dependency index kept from server-side events.
//
//  - Background: once every owner of a dependent is gone (absent, or present with another uid),
//    the dependent is deleted. A dependent with some owner still alive only loses the dangling
//    references (a dependent created with a dangling reference is collected the same way).
//  - Foreground: an owner deleted with propagation Foreground carries the "foregroundDeletion"
//    finalizer; its dependents are deleted (Foreground if they have dependents themselves), and
//    the finalizer is removed once no dependent with blockOwnerDeletion=true remains (a dependent
//    still terminating, e.g. a pod in its grace period, keeps blocking).
//  - Orphan: an owner carrying the "orphan" finalizer gets its references stripped from every
//    dependent, then the finalizer removed.
// Steps run after delays drawn from the "kube.controller.gc" stream; writes act as
// "garbage-collector".
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::kube {

struct GarbageCollectorOptions {
  DelayRange step{5, 1000};
};

class GarbageCollector {
 public:
  static constexpr const char* kActor = "garbage-collector";

  GarbageCollector(Sim& sim, ApiServer& api, GarbageCollectorOptions options = {});
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  // Subscribes to every kind.
  void start();

  // Dependents currently indexed under an owner uid (sorted).
  std::vector<ObjectRef> dependents_of(const std::string& owner_uid) const;

  struct Counters {
    std::uint64_t deletions = 0;  // Dependents deleted.
    std::uint64_t orphaned = 0;   // Dependents whose reference was stripped (orphan).
    std::uint64_t dangling_stripped = 0;
    std::uint64_t finalizers_removed = 0;  // foregroundDeletion / orphan finalizers removed.
  };
  const Counters& counters() const { return counters_; }

 private:
  void on_event(const WatchEvent& event);
  void on_written(const Object& object);  // Added or Modified.
  void index(const Object& object);
  void unindex(const ObjectRef& ref);
  void enqueue_dependent(const ObjectRef& ref);
  void enqueue_owner(const ObjectRef& ref);
  void enqueue_owner_uid(const std::string& uid);
  void check_dependent(const ObjectRef& ref);
  void process_owner(const ObjectRef& ref);
  // Existing objects that reference `owner_uid`, re-validated against the server.
  std::vector<Object> live_dependents(const std::string& owner_uid) const;

  Sim& sim_;
  ApiServer& api_;
  GarbageCollectorOptions options_;
  ChoiceStream stream_;
  std::map<std::string, std::set<ObjectRef>> dependents_;  // owner uid -> dependents
  // dependent -> owner uids; ObjectRef's order, also found by ObjectRefView.
  std::map<ObjectRef, std::vector<std::string>, ObjectRefLess> owner_uids_;
  std::map<std::string, ObjectRef> by_uid_;
  std::set<ObjectRef> queued_dependents_;
  std::set<ObjectRef> queued_owners_;
  Counters counters_;
};

}  // namespace wsim::kube
