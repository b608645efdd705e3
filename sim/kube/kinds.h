// KindInfo: what the fake Kubernetes knows about each resource kind, in one registry: its scope
// (namespaced or cluster), API group, version, plural and short names, whether it has a status
// subresource, and the per-kind rules of the generic store (what Kubernetes' per-resource
// registry strategies decide: a Namespace starts "Active" and waits for its spec finalizers, a
// Pod starts "Pending" and is deleted gracefully, a Node registers with its status). The store
// (store.cc), the inventories (inventory.cc api_group) and the REST front-end (serve/resources.cc)
// all read this one table; no other file lists kinds.
//
// The built-in kinds are constant. A system under test declares its custom kinds
// (run::System::custom_kinds(), e.g. a workspace CRD); run::register_system() registers them
// here, before any run starts, so the table is the same for every run of a binary.
//
// Threading: registration happens on the main thread before runs or server threads start; after
// that the registry is only read (serve/ reads it from its HTTP threads).
//
// Invariants:
//  1. A kind is registered at most once with a given API group; the first entry of a kind is its
//     primary one (Event is served under the core group first, then under events.k8s.io).
//  2. (group, version, plural) is unique.
//  3. A custom kind has a non-empty group and never shadows a built-in kind.
//
// Not modelled: versions other than v1 per kind, conversion, CRD validation (serve/crd.cc
// handles the front-end's CRDs on its own).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wsim::kube {

enum class KindScope { kNamespaced, kCluster };

struct KindInfo {
  // Identity. `kind` and `group` first, so that a system may write {"Widget", "example.com"}.
  std::string kind;   // Object::kind, e.g. "Deployment".
  std::string group;  // "" for the core group.
  std::string version = "v1";
  std::string plural;  // URL segment; empty: lower-case kind + "s" (filled on register).
  KindScope scope = KindScope::kNamespaced;
  std::vector<std::string> short_names;
  bool status_subresource = true;  // Serves `status` as a subresource.

  // The store's per-kind strategy (store.cc; sim/kube/README.md "Objects").
  // Create keeps the status the client sent (a Node registers with its status); every other
  // kind's status is the cluster's to write and is dropped on create.
  bool create_keeps_status = false;
  std::string initial_phase;   // status "phase" set on create ("" = none).
  std::string deleting_phase;  // status "phase" set when deletion starts ("" = none).
  // A spec-level finalizer set on create when spec "finalizers" is empty; the object is removed
  // only once spec "finalizers" is empty, and a delete while it is deleting answers Conflict
  // (the namespace lifecycle).
  std::string spec_finalizer;
  // Deletion of a bound, running object waits for a grace period (pods: the kubelet stops it).
  bool graceful_deletion = false;

  // The REST front-end (serve/resources.h).
  bool served = true;      // Exposed by `wsim serve`; false: known to the store and inventories.
  bool has_scale = false;  // Serves `scale` (spec.replicas).
  bool top_level = false;  // No spec: every top-level field is kept (Event).
  std::vector<std::string> categories;
  bool custom = false;  // Declared by a system under test (set by register_custom_kind).

  bool cluster_scoped() const { return scope == KindScope::kCluster; }
  // "v1" for the core group, "apps/v1" otherwise.
  std::string api_version() const;
};

// Every registered kind: the built-in ones in table order, then the custom ones in registration
// order. Pointers stay valid for the life of the process.
std::vector<const KindInfo*> registered_kinds();

// The primary entry of `kind`, or nullptr for a kind nobody registered (tests' "Widget").
const KindInfo* find_kind(std::string_view kind);

// The entry of `kind`, or the default strategy (namespaced, nothing special) for an unknown kind.
const KindInfo& kind_info(std::string_view kind);

// Registers a system's custom kind. Registering the same (kind, group) again is a no-op.
// REQUIRES (asserted): kind and group non-empty; no built-in kind of that name; the (group,
// version, plural) not taken by another kind.
void register_custom_kind(KindInfo info);

}  // namespace wsim::kube
