// ConformanceMonitor: the fake world's own runtime oracles ("kube.S1" … "kube.L3";
// docs/world-invariants.md). The reconcilers' invariants judge the systems under test; these judge
// the world they run in: the API server's write rules, the namespace, garbage-collection and pod
// lifecycles and the informers' caches, checked on every committed change of a real run (with
// its faults) and after its settle time. A finding is only as good as the fake world: when the
// world breaks a rule the real Kubernetes keeps, the run says so by name instead of blaming a
// reconciler, and a bug planted in sim/kube shows up as a kube.* violation.
//
// Independence: the checks restate each rule from Kubernetes' documented behaviour and code
// (cited per rule in conformance.cc), without calling the store's or the controllers' own
// helpers, so a mistake in one is not copied into the other.
//
//   ConformanceMonitor monitor(sim, cluster.api());   // before the first write
//   ... after every event: if (auto v = monitor.take_safety_violation()) ...
//   ... after heal + settle: monitor.check_liveness()
//
// Cost: O(log n) map work per committed change (n live objects); a Namespace removal lists its
// namespace; a bind reads one node. Liveness lists the store once and every informer's cache.
// Single-threaded. Never writes, draws choices or traces: a monitored run is the same run.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"

namespace wsim::kube {

struct ConformanceInvariant {
  std::string id;  // "kube.S1"
  bool liveness = false;
  std::string description;  // One line.
  std::string reference;    // Where the rule comes from (docs/world-invariants.md).
};

struct ConformanceViolation {
  std::string invariant_id;
  std::string object;  // "Pod/ns/name"
  std::string message;
};

struct ConformanceOptions {
  // Liveness leaves alone what changed this recently before the check: a watch event, a garbage
  // collector or namespace controller step may still be on its way. Longer than the fake's
  // longest watch latency, controller step and informer retry backoff together.
  DurationMs quiet_ms = 60 * kSecondMs;
};

// The differences between an informer's cache and the store's objects in its scope, one line each
// ("Pod/ns/a stored at rv 7, cached at rv 5"), store order first, leaving out the objects `skip`
// says changed too recently to judge. Empty when they agree.
std::vector<std::string> cache_differences(
    const std::vector<std::pair<ObjectRef, std::uint64_t>>& cache,
    const std::map<ObjectRef, std::uint64_t>& stored,
    const std::function<bool(const ObjectRef&)>& skip);

class ConformanceMonitor {
 public:
  // Observes every change of `api` from now on. REQUIRES: nothing was written yet.
  ConformanceMonitor(Sim& sim, ApiServer& api, ConformanceOptions options = {});
  ConformanceMonitor(const ConformanceMonitor&) = delete;
  ConformanceMonitor& operator=(const ConformanceMonitor&) = delete;

  // Every invariant, safety first, in id order.
  static std::vector<ConformanceInvariant> invariants();

  // The next safety violation seen and not yet taken (each (invariant, object) once), or nullopt.
  std::optional<ConformanceViolation> take_safety_violation();
  // Whether take_safety_violation() would return one (a test without the move, for the per-event
  // check).
  bool has_safety_violation() const { return !pending_.empty(); }

  // After heal + settle: every liveness violation (informer caches, garbage collection,
  // deletions that never finish), sorted by invariant then object.
  std::vector<ConformanceViolation> check_liveness() const;

  // One committed change (a WatchEvent heard inside the write, ListenAt::kInsideWrite). The
  // constructor subscribes it to the server; tests also feed it changes the server would never
  // make.
  void observe(WatchEventType type, const Object& object, const Object* previous);

 private:
  struct NodeUsage {
    std::int64_t cpu_milli = 0;
    std::int64_t memory_mib = 0;
  };

  void check_versions(WatchEventType type, const Object& object, const Object* previous);
  void check_deletion(WatchEventType type, const Object& object, const Object* previous);
  void check_generation(WatchEventType type, const Object& object, const Object* previous);
  void check_namespace(WatchEventType type, const Object& object);
  void check_pod(const Object& object, const Object* previous);
  void check_bind(const Object& pod);
  void index(WatchEventType type, const Object& object, const Object* previous);
  void count_usage(const Object* pod, int sign);
  void report(const char* id, const Object& object, std::string message);

  void check_informers(std::vector<ConformanceViolation>& out) const;
  void check_collection(std::vector<ConformanceViolation>& out) const;
  void check_deletions(std::vector<ConformanceViolation>& out) const;
  // True when `ref` was written or removed within quiet_ms of now.
  bool recently_changed(const ObjectRef& ref) const;
  // The object at `target` exists with the uid `owner` references.
  bool owner_alive(const ObjectRef& target, const OwnerReference& owner) const;

  Sim& sim_;
  ApiServer& api_;
  ConformanceOptions options_;
  std::uint64_t last_resource_version_ = 0;
  std::map<std::string, ObjectRef> live_uids_;  // uid -> object, live objects only.
  // Live objects, found by hash, also by ObjectRefView (no ObjectRef built per write); lookups
  // only, never iterated (docs/performance.md §14.2).
  RefHashIndex<ObjectRef, TimeMs> last_write_ms_;
  std::map<ObjectRef, TimeMs> removed_ms_;       // Pruned past quiet_ms.
  std::map<std::string, NodeUsage> node_usage_;  // Bound, non-terminal pods per node.
  std::deque<ConformanceViolation> pending_;
  std::set<std::pair<std::string, std::string>> reported_;  // (invariant, object)
};

}  // namespace wsim::kube
