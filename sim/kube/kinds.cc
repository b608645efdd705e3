// The KindInfo registry (kinds.h): the built-in kinds of the fake Kubernetes and the custom kinds
// systems declare. Groups, plurals and short names follow the Kubernetes API (kubectl
// api-resources of v1.29); the strategies follow each resource's registry strategy in
// k8s.io/kubernetes pkg/registry (namespace, pod, node) as sim/kube/README.md describes them.
#include "sim/kube/kinds.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <utility>

#include "sim/core/assert.h"
#include "sim/kube/object.h"

namespace wsim::kube {
namespace {

std::string lower(std::string text) {
  WSIM_ASSERT(!text.empty());
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

KindInfo make(std::string kind, std::string group, std::string plural, KindScope scope, bool status,
              std::vector<std::string> short_names) {
  WSIM_ASSERT(!kind.empty());
  WSIM_ASSERT(!plural.empty());
  KindInfo info;
  info.kind = std::move(kind);
  info.group = std::move(group);
  info.plural = std::move(plural);
  info.scope = scope;
  info.status_subresource = status;
  info.short_names = std::move(short_names);
  return info;
}

KindInfo hidden(KindInfo info) {
  WSIM_ASSERT(info.served);  // Built served, hidden once.
  info.served = false;
  return info;
}

constexpr KindScope kNs = KindScope::kNamespaced;
constexpr KindScope kCluster = KindScope::kCluster;

// The served kinds in the front-end's discovery order (core group first), then the kinds only
// the store and the inventories know.
std::vector<KindInfo> built_in() {
  std::vector<KindInfo> t = {
      make("Namespace", "", "namespaces", kCluster, true, {"ns"}),
      make("Node", "", "nodes", kCluster, true, {"no"}),
      make("Pod", "", "pods", kNs, true, {"po"}),
      make("ConfigMap", "", "configmaps", kNs, false, {"cm"}),
      make("Secret", "", "secrets", kNs, false, {}),
      make("Service", "", "services", kNs, true, {"svc"}),
      make("PersistentVolumeClaim", "", "persistentvolumeclaims", kNs, true, {"pvc"}),
      make("Event", "", "events", kNs, false, {"ev"}),
      make("Deployment", "apps", "deployments", kNs, true, {"deploy"}),
      make("ReplicaSet", "apps", "replicasets", kNs, true, {"rs"}),
      make("Event", "events.k8s.io", "events", kNs, false, {"ev"}),
      make("Lease", "coordination.k8s.io", "leases", kNs, false, {}),
      make("NetworkPolicy", "networking.k8s.io", "networkpolicies", kNs, false, {"netpol"}),
      make("CustomResourceDefinition", "apiextensions.k8s.io", "customresourcedefinitions",
           kCluster, true, {"crd", "crds"}),
      hidden(make("PersistentVolume", "", "persistentvolumes", kCluster, true, {"pv"})),
      hidden(make("StatefulSet", "apps", "statefulsets", kNs, true, {"sts"})),
      hidden(make("DaemonSet", "apps", "daemonsets", kNs, true, {"ds"})),
      hidden(make("Ingress", "networking.k8s.io", "ingresses", kNs, true, {"ing"})),
      hidden(make("Role", "rbac.authorization.k8s.io", "roles", kNs, false, {})),
      hidden(make("RoleBinding", "rbac.authorization.k8s.io", "rolebindings", kNs, false, {})),
      hidden(make("ClusterRole", "rbac.authorization.k8s.io", "clusterroles", kCluster, false, {})),
      hidden(make("ClusterRoleBinding", "rbac.authorization.k8s.io", "clusterrolebindings",
                  kCluster, false, {})),
      hidden(make("StorageClass", "storage.k8s.io", "storageclasses", kCluster, false, {"sc"})),
      hidden(
          make("PriorityClass", "scheduling.k8s.io", "priorityclasses", kCluster, false, {"pc"})),
  };
  for (KindInfo& info : t) {
    // pkg/registry/core/namespace/strategy.go PrepareForCreate (phase Active, finalizer
    // "kubernetes"); namespace deletion is the namespace controller's (namespace_controller.cc).
    if (info.kind == "Namespace") {
      info.initial_phase = "Active";
      info.deleting_phase = "Terminating";
      info.spec_finalizer = "kubernetes";
    }
    // pkg/registry/core/pod/strategy.go: phase Pending on create, graceful deletion.
    if (info.kind == "Pod") {
      info.initial_phase = "Pending";
      info.graceful_deletion = true;
    }
    // A kubelet registers its Node with its status (capacity, conditions) [reconstructed].
    if (info.kind == "Node") info.create_keeps_status = true;
    if (info.kind == "Deployment" || info.kind == "ReplicaSet") info.has_scale = true;
    if (info.kind == "Event") info.top_level = true;
    if (info.served && (info.group == "apps" || info.kind == "Pod" || info.kind == "Service")) {
      info.categories = {"all"};
    }
  }
  WSIM_ASSERT_EQ(t.front().kind, "Namespace");  // Discovery lists the core group first.
  return t;
}

struct Registry {
  std::deque<KindInfo> kinds;  // A deque: entries never move (pointers handed out).
  // The cluster-scoped kinds' names (views of `kinds`), scanned by is_cluster_scoped(): a handful
  // of length-first compares per request (docs/performance.md §8).
  std::vector<std::string_view> cluster_scoped;
  std::size_t built_in_count = 0;

  Registry() {
    for (KindInfo& info : built_in()) add(std::move(info));
    built_in_count = kinds.size();
    WSIM_ASSERT_GT(built_in_count, 0u);
  }

  void add(KindInfo info) {
    if (info.plural.empty()) info.plural = lower(info.kind) + "s";
    for (const KindInfo& other : kinds) {
      const bool same_path =
          other.group == info.group && other.version == info.version && other.plural == info.plural;
      WSIM_ASSERT_MSG(!same_path, "kind " << info.kind << ": " << info.group << "/" << info.version
                                          << " " << info.plural << " is taken");
      // Invariant 1: an entry of a kind under another group has the same scope.
      if (other.kind == info.kind) WSIM_ASSERT(other.scope == info.scope);
    }
    kinds.push_back(std::move(info));
    const KindInfo& added = kinds.back();
    if (added.cluster_scoped() && !find_kind_in(added.kind, /*skip_last=*/true)) {
      cluster_scoped.push_back(added.kind);
    }
  }

  const KindInfo* find_kind_in(std::string_view kind, bool skip_last = false) const {
    WSIM_ASSERT(!skip_last || !kinds.empty());
    const std::size_t n = kinds.size() - (skip_last ? 1 : 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (kinds[i].kind == kind) return &kinds[i];
    }
    return nullptr;
  }
};

Registry& registry() {
  static Registry r;
  WSIM_ASSERT_LE(r.cluster_scoped.size(), r.kinds.size());
  return r;
}

}  // namespace

std::string KindInfo::api_version() const {
  WSIM_ASSERT(!version.empty());
  return group.empty() ? version : group + "/" + version;
}

std::vector<const KindInfo*> registered_kinds() {
  const Registry& r = registry();
  std::vector<const KindInfo*> out;
  out.reserve(r.kinds.size());
  for (const KindInfo& info : r.kinds) out.push_back(&info);
  WSIM_ASSERT_GE(out.size(), r.built_in_count);
  return out;
}

const KindInfo* find_kind(std::string_view kind) {
  WSIM_ASSERT(!kind.empty());
  return registry().find_kind_in(kind);
}

const KindInfo& kind_info(std::string_view kind) {
  static const KindInfo kUnknown;      // Namespaced, no status rules, no group.
  WSIM_ASSERT(kUnknown.kind.empty());  // The default strategy stays the default.
  if (kind.empty()) return kUnknown;
  const KindInfo* info = registry().find_kind_in(kind);
  return info != nullptr ? *info : kUnknown;
}

void register_custom_kind(KindInfo info) {
  WSIM_ASSERT_MSG(!info.kind.empty(), "a custom kind has a name");
  WSIM_ASSERT_MSG(!info.group.empty(), "a custom kind is in a named API group");
  Registry& r = registry();
  for (std::size_t i = 0; i < r.kinds.size(); ++i) {
    const KindInfo& other = r.kinds[i];
    if (other.kind != info.kind) continue;
    WSIM_ASSERT_MSG(i >= r.built_in_count, "custom kind " << info.kind << " shadows a built-in");
    if (other.group == info.group) return;  // Declared again (register_system() called twice).
  }
  info.custom = true;
  const std::size_t before = r.kinds.size();
  r.add(std::move(info));
  WSIM_ASSERT_EQ(r.kinds.size(), before + 1);
}

bool is_cluster_scoped(std::string_view kind) {
  // Compared as string_views: their == checks the length before the bytes, so a namespaced kind
  // (asked on every request and informer read) costs no memcmp (docs/performance.md §8).
  for (std::string_view name : registry().cluster_scoped) {
    if (name == kind) return true;
  }
  return false;
}

}  // namespace wsim::kube
