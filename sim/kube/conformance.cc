// See conformance.h. The safety side: one check per rule on every committed change. Each rule
// cites the Kubernetes code it restates (kubernetes/kubernetes and its staging repositories at
// tag v1.32.0); docs/world-invariants.md explains them.
#include "sim/kube/conformance.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "sim/core/assert.h"

namespace wsim::kube {

namespace {

constexpr const char* kVersions = "kube.S1";
constexpr const char* kDeletion = "kube.S2";
constexpr const char* kGeneration = "kube.S3";
constexpr const char* kNamespaces = "kube.S4";
constexpr const char* kPods = "kube.S5";

bool contains(const std::vector<std::string>& list, const std::string& value) {
  WSIM_ASSERT(!value.empty());  // Finalizer names are never empty.
  for (const std::string& item : list) {
    if (item == value) return true;
  }
  return false;
}

// A field's value, or "" (a view into `fields`: no copy on the per-change path).
const std::string& field(const Fields& fields, std::string_view key) {
  static const std::string kAbsent;
  WSIM_ASSERT(!key.empty());
  WSIM_ASSERT(kAbsent.empty());  // Nobody wrote through the shared fallback.
  auto it = fields.find(key);
  return it == fields.end() ? kAbsent : it->second;
}

// A decimal field, 0 when absent or not a number (the fake's resource quantities).
std::int64_t quantity(const Fields& fields, std::string_view key) {
  const std::string& text = field(fields, key);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return 0;
  return value;
}

bool terminal_phase(const std::string& phase) { return phase == "Succeeded" || phase == "Failed"; }

std::string ref_of(const Object& object) {
  WSIM_ASSERT(!object.kind.empty());
  return ObjectRef::of(object).to_string();
}

// A pod write that keeps its spec and whether it is finished (a status write): count_usage
// would take its usage off its node and add the same back (docs/performance.md §14.2).
bool same_usage(WatchEventType type, const Object& pod, const Object* previous) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  return type == WatchEventType::kModified && previous != nullptr && previous->spec == pod.spec &&
         terminal_phase(field(previous->status, "phase")) ==
             terminal_phase(field(pod.status, "phase"));
}

// "a=b,c=d" (the fake's spec nodeSelector) holds on `labels`.
bool selector_holds(const std::string& selector, const Fields& labels) {
  std::istringstream terms(selector);
  std::string term;
  while (std::getline(terms, term, ',')) {
    if (term.empty()) continue;
    const std::size_t eq = term.find('=');
    const std::string key = term.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : term.substr(eq + 1);
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace

ConformanceMonitor::ConformanceMonitor(Sim& sim, ApiServer& api, ConformanceOptions options)
    : sim_(sim), api_(api), options_(options) {
  WSIM_ASSERT_EQ(api_.object_count(), 0u);
  WSIM_ASSERT_GT(options_.quiet_ms, 0);
  api_.subscribe(
      "", [this](const WatchEvent& event) { observe(event.type, event.object, event.previous); },
      ListenAt::kInsideWrite);
}

std::vector<ConformanceInvariant> ConformanceMonitor::invariants() {
  const std::string doc = "docs/world-invariants.md";
  std::vector<ConformanceInvariant> out = {
      {kVersions, false,
       "every change gets a resourceVersion above all earlier ones; uid, name, namespace and "
       "creation time never change; a new object's uid is no live object's",
       doc + " S1"},
      {kDeletion, false,
       "a deletionTimestamp, once set, stays (a pod's may only be shortened); no finalizer is "
       "added while deleting; an object goes only once deleting with no finalizer left",
       doc + " S2"},
      {kGeneration, false,
       "generation starts at 1 and grows by one exactly when the spec changes or deletion starts",
       doc + " S3"},
      {kNamespaces, false,
       "objects are created only in an existing, Active namespace; a namespace goes only once "
       "empty",
       doc + " S4"},
      {kPods, false,
       "a pod's node never changes once bound; it is bound only to a live, Ready, schedulable "
       "node that matches its selector and has room; Succeeded/Failed are final, Running never "
       "returns to Pending",
       doc + " S5"},
      {"kube.L1", true,
       "after settle, every watching informer's cache holds exactly the store's objects in its "
       "scope, at the store's resourceVersions",
       doc + " L1"},
      {"kube.L2", true, "after settle, no object remains whose owners are all gone", doc + " L2"},
      {"kube.L3", true,
       "after settle, no deletion is stuck without a holder: a Terminating namespace still has "
       "content that is being deleted; a pod past its grace period on a Ready node is gone",
       doc + " L3"},
  };
  // Safety rules first, then liveness (the order verdicts list them in).
  WSIM_ASSERT(std::is_partitioned(out.begin(), out.end(),
                                  [](const ConformanceInvariant& i) { return !i.liveness; }));
  return out;
}

std::optional<ConformanceViolation> ConformanceMonitor::take_safety_violation() {
  if (pending_.empty()) return std::nullopt;
  ConformanceViolation next = std::move(pending_.front());
  pending_.pop_front();
  // Reported once per (invariant, object) (paired with report()).
  WSIM_ASSERT_EQ(reported_.count({next.invariant_id, next.object}), 1u);
  return next;
}

void ConformanceMonitor::report(const char* id, const Object& object, std::string message) {
  WSIM_ASSERT(id != nullptr);
  WSIM_ASSERT(!message.empty());  // A violation says what broke.
  std::string ref = ref_of(object);
  if (!reported_.emplace(id, ref).second) return;
  pending_.push_back({id, std::move(ref), std::move(message)});
}

void ConformanceMonitor::observe(WatchEventType type, const Object& object,
                                 const Object* previous) {
  WSIM_ASSERT(!object.kind.empty());
  WSIM_ASSERT_EQ(previous == nullptr, type == WatchEventType::kAdded);
  check_versions(type, object, previous);
  check_deletion(type, object, previous);
  check_generation(type, object, previous);
  check_namespace(type, object);
  if (object.kind == "Pod") check_pod(object, previous);
  index(type, object, previous);
}

// kube.S1. resourceVersions: k8s.io/apiserver pkg/storage/etcd3/store.go (GuaranteedUpdate,
// Delete: every write is a new etcd revision, and revisions only grow); identity:
// k8s.io/apimachinery pkg/api/validation/objectmeta.go ValidateObjectMetaUpdate (name,
// namespace, uid and creationTimestamp are immutable); uid: pkg/registry/rest/create.go
// FillObjectMetaSystemFields (a fresh uid per create).
void ConformanceMonitor::check_versions(WatchEventType type, const Object& object,
                                        const Object* previous) {
  const std::uint64_t rv = object.meta.resource_version;
  if (rv <= last_resource_version_) {
    report(kVersions, object,
           "resourceVersion " + std::to_string(rv) + " written after " +
               std::to_string(last_resource_version_));
  }
  last_resource_version_ = std::max(last_resource_version_, rv);
  if (type == WatchEventType::kAdded) {
    auto it = live_uids_.find(object.meta.uid);
    if (object.meta.uid.empty() || it != live_uids_.end()) {
      report(kVersions, object,
             "created with uid '" + object.meta.uid + "'" +
                 (it == live_uids_.end() ? "" : ", the uid of live " + it->second.to_string()));
    }
    return;
  }
  WSIM_ASSERT(previous != nullptr);
  const ObjectMeta& was = previous->meta;
  const ObjectMeta& now = object.meta;
  if (was.uid != now.uid || was.name != now.name || was.namespace_ != now.namespace_ ||
      previous->kind != object.kind || was.creation_ms != now.creation_ms) {
    report(kVersions, object,
           "identity changed by a write: uid '" + was.uid + "' -> '" + now.uid + "', creation " +
               std::to_string(was.creation_ms) + " -> " + std::to_string(now.creation_ms));
  }
}

// kube.S2. k8s.io/apiserver pkg/registry/generic/registry/store.go Store.Delete and
// updateForGracefulDeletionAndFinalizers (an object with finalizers only gets a
// deletionTimestamp; it is removed when the last finalizer goes), pkg/registry/rest/delete.go
// BeforeDelete (a second delete may only shorten a graceful deletion),
// k8s.io/apimachinery objectmeta.go ValidateObjectMetaUpdate ("no new finalizers can be added if
// the object is being deleted"); Namespaces wait for spec.finalizers too
// (pkg/registry/core/namespace/storage/storage.go Delete); a pod bound to a node is removed by
// the kubelet's delete with grace 0 (pkg/kubelet/status/status_manager.go syncPod).
void ConformanceMonitor::check_deletion(WatchEventType type, const Object& object,
                                        const Object* previous) {
  if (type == WatchEventType::kAdded) WSIM_ASSERT(previous == nullptr);
  const ObjectMeta& now = object.meta;
  if (previous != nullptr && previous->meta.deletion_ms) {
    const TimeMs was = *previous->meta.deletion_ms;
    const bool kept = now.deletion_ms &&
                      (*now.deletion_ms == was || (object.kind == "Pod" && *now.deletion_ms < was));
    if (!kept) report(kDeletion, object, "deletionTimestamp changed or cleared while deleting");
    for (const std::string& finalizer : now.finalizers) {
      if (!contains(previous->meta.finalizers, finalizer)) {
        report(kDeletion, object, "finalizer '" + finalizer + "' added while deleting");
      }
    }
  }
  if (type != WatchEventType::kDeleted) return;
  std::string holder;
  if (!now.deletion_ms) holder = "no deletionTimestamp";
  if (holder.empty() && !now.finalizers.empty()) holder = "finalizer '" + now.finalizers[0] + "'";
  if (holder.empty() && object.kind == "Namespace" && !field(object.spec, "finalizers").empty())
    holder = "spec.finalizers '" + field(object.spec, "finalizers") + "'";
  if (holder.empty() && object.kind == "Pod" && now.deletion_grace_period_ms.value_or(0) > 0)
    holder = "a grace period of " + std::to_string(*now.deletion_grace_period_ms) + " ms";
  if (!holder.empty()) report(kDeletion, object, "removed from the store with " + holder);
}

// kube.S3. Spec changes: each registry strategy's PrepareForUpdate (e.g.
// pkg/registry/apps/deployment/strategy.go; custom resources:
// k8s.io/apiextensions-apiserver pkg/registry/customresource/strategy.go) bumps generation when
// the spec differs; k8s.io/apiserver pkg/registry/rest/delete.go BeforeDelete bumps it when the
// deletionTimestamp is first set; PrepareForCreate starts it at 1.
void ConformanceMonitor::check_generation(WatchEventType type, const Object& object,
                                          const Object* previous) {
  const std::int64_t now = object.meta.generation;
  if (type == WatchEventType::kAdded) {
    if (now != 1) report(kGeneration, object, "created with generation " + std::to_string(now));
    return;
  }
  if (type == WatchEventType::kDeleted) return;  // The last state is not a write of its own.
  WSIM_ASSERT(previous != nullptr);
  const bool spec_changed = previous->spec != object.spec;
  const bool deletion_started = !previous->meta.deletion_ms && object.meta.deletion_ms;
  const std::int64_t expected =
      previous->meta.generation + ((spec_changed || deletion_started) ? 1 : 0);
  if (now != expected) {
    report(kGeneration, object,
           "generation " + std::to_string(previous->meta.generation) + " -> " +
               std::to_string(now) + (spec_changed ? " on a spec change" : " without one"));
  }
}

// kube.S4. plugin/pkg/admission/namespace/lifecycle/admission.go Lifecycle.Admit (no create in
// a missing or terminating namespace); pkg/controller/namespace/deletion/
// namespaced_resources_deleter.go Delete (the namespace's finalizer is removed only once all
// content is gone).
void ConformanceMonitor::check_namespace(WatchEventType type, const Object& object) {
  WSIM_ASSERT(!object.kind.empty());
  if (type == WatchEventType::kAdded && !object.meta.namespace_.empty()) {
    const Object* ns = api_.peek(ObjectRefView{"Namespace", "", object.meta.namespace_});
    if (ns == nullptr || ns->meta.deletion_ms) {
      report(kNamespaces, object,
             std::string("created in namespace '") + object.meta.namespace_ + "' that is " +
                 (ns == nullptr ? "absent" : "terminating"));
    }
  }
  if (type == WatchEventType::kDeleted && object.kind == "Namespace") {
    const std::vector<const Object*> content = api_.peek_list("", object.meta.name);
    if (!content.empty()) {
      report(kNamespaces, object,
             "removed while " + std::to_string(content.size()) + " object(s) remain in it, e.g. " +
                 ref_of(*content.front()));
    }
  }
}

// kube.S5. Binding: pkg/registry/core/pod/storage/storage.go BindingREST.setPodHostAndAnnotations
// ("pod ... is already assigned to node"); pkg/apis/core/validation/validation.go
// ValidatePodUpdate (spec.nodeName immutable); the scheduler's filters
// pkg/scheduler/framework/plugins/{nodeunschedulable, nodeaffinity, noderesources/fit.go} and its
// node readiness (only Ready nodes are schedulable). Phases [reconstructed] from the Pod
// lifecycle documentation (kubernetes.io "Pod Lifecycle": Succeeded and Failed are terminal).
void ConformanceMonitor::check_pod(const Object& object, const Object* previous) {
  WSIM_ASSERT_EQ(object.kind, "Pod");
  if (previous == nullptr) return;
  const std::string& was_node = field(previous->spec, "nodeName");
  const std::string& node = field(object.spec, "nodeName");
  if (!was_node.empty() && node != was_node) {
    report(kPods, object, "bound to '" + was_node + "', then to '" + node + "'");
  }
  if (was_node.empty() && !node.empty()) check_bind(object);
  const std::string& was_phase = field(previous->status, "phase");
  const std::string& phase = field(object.status, "phase");
  if ((terminal_phase(was_phase) && phase != was_phase) ||
      (was_phase == "Running" && (phase.empty() || phase == "Pending"))) {
    report(kPods, object, "phase " + was_phase + " -> " + (phase.empty() ? "(none)" : phase));
  }
}

void ConformanceMonitor::check_bind(const Object& pod) {
  const std::string& name = field(pod.spec, "nodeName");
  WSIM_ASSERT(!name.empty());  // check_pod binds only a pod that names its node.
  const Object* node = api_.peek(ObjectRefView{"Node", "", name});
  std::string misfit;
  if (node == nullptr) {
    misfit = "absent";
  } else if (node->meta.deletion_ms || field(node->status, "ready") != "true") {
    misfit = "not Ready";
  } else if (field(node->spec, "unschedulable") == "true") {
    misfit = "unschedulable";
  } else if (!selector_holds(field(pod.spec, "nodeSelector"), node->meta.labels)) {
    misfit = "not matching nodeSelector '" + field(pod.spec, "nodeSelector") + "'";
  } else {
    const NodeUsage used = node_usage_[name];
    const std::int64_t cpu = used.cpu_milli + quantity(pod.spec, "cpuMilli");
    const std::int64_t memory = used.memory_mib + quantity(pod.spec, "memoryMiB");
    if (cpu > quantity(node->status, "cpuMilli") || memory > quantity(node->status, "memoryMiB")) {
      misfit = "full (" + std::to_string(cpu) + " mCPU, " + std::to_string(memory) +
               " MiB with this pod; capacity " + field(node->status, "cpuMilli") + " mCPU, " +
               field(node->status, "memoryMiB") + " MiB)";
    }
  }
  if (!misfit.empty()) report(kPods, pod, "bound to node '" + name + "' that is " + misfit);
}

// The monitor's own indexes, after the checks (which read them as they were before the change).
void ConformanceMonitor::index(WatchEventType type, const Object& object, const Object* previous) {
  const TimeMs now = sim_.now_ms();
  if (type == WatchEventType::kAdded) WSIM_ASSERT(previous == nullptr);
  if (object.kind == "Pod" && !same_usage(type, object, previous)) {
    count_usage(previous, -1);
    if (type != WatchEventType::kDeleted) count_usage(&object, 1);
  }
  if (type == WatchEventType::kModified) {
    // The common case: a live object written again (its entry exists since it was added).
    auto written = last_write_ms_.find(ObjectRefView::of(object));
    if (written != last_write_ms_.end()) {
      written->second = now;
      return;
    }
  }
  const ObjectRef ref = ObjectRef::of(object);
  if (type == WatchEventType::kDeleted) {
    live_uids_.erase(object.meta.uid);
    last_write_ms_.erase(ref);
    removed_ms_[ref] = now;
    if (removed_ms_.size() > 4 * (last_write_ms_.size() + 16)) {
      std::erase_if(removed_ms_,
                    [&](const auto& entry) { return entry.second + options_.quiet_ms < now; });
    }
    return;
  }
  if (type == WatchEventType::kAdded) live_uids_.emplace(object.meta.uid, ref);
  last_write_ms_[ref] = now;
}

// A pod counts on its node while bound and not finished (the scheduler's NodeInfo: terminating
// pods still hold their resources).
void ConformanceMonitor::count_usage(const Object* pod, int sign) {
  WSIM_ASSERT(sign == 1 || sign == -1);
  if (pod == nullptr) return;
  const std::string& node = field(pod->spec, "nodeName");
  if (node.empty() || terminal_phase(field(pod->status, "phase"))) return;
  NodeUsage& used = node_usage_[node];
  used.cpu_milli += sign * quantity(pod->spec, "cpuMilli");
  used.memory_mib += sign * quantity(pod->spec, "memoryMiB");
}

}  // namespace wsim::kube
