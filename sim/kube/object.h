// Kubernetes objects as plain values. Every object a caller may change is a deep copy (the structs
// hold only values), so a reconciler can never mutate the server's state by accident — one of the
// client-go fake's known pitfalls. The store keeps each committed object immutable and shared
// (`std::shared_ptr<const Object>`, replaced on write); list responses, informer caches and
// server-side listeners share it, and the const-view reads (Informer::list_shared/get_shared/
// by_index) hand it out without copying (docs/performance.md): only writes copy.
//
// Kind-specific fields live in flat string maps (Fields: std::maps shared copy-on-write; the
// conditions and owner references are SharedVectors, likewise), keyed
// like JSON paths without the top level:
//   Deployment  spec:   "replicas"                status: "replicas", "availableReplicas",
//                                                         "unavailableReplicas", "readyReplicas",
//                                                         "observedGeneration"
//               conditions: Progressing / Available with the reasons of docs/systems/gitlab.md
//                           §4.3 (NewReplicaSetCreated, ReplicaSetUpdated, NewReplicaSetAvailable,
//                           ProgressDeadlineExceeded, MinimumReplicasAvailable/Unavailable)
//               pod template labels: spec "template.labels.<key>"
//   Pod         spec:   "nodeName", "nodeSelector", "cpuMilli", "memoryMiB"
//               status: "phase" (Pending|Running|Succeeded|Failed), "reason", "message", "ready"
//                       ("true"/"false"), "everReady"
//   Namespace   spec:   "finalizers" ("kubernetes" while content remains); status: "phase"
//   Node        spec:   "unschedulable"; status: "cpuMilli", "memoryMiB", "ready"
//   ConfigMap / Secret: data
//   custom resources: spec/status/conditions as the model needs.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>  // tidy: allow-unordered (RefHashIndex: lookup only)
#include <utility>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/time.h"
#include "sim/kube/bytes_order.h"
#include "sim/kube/fields.h"
#include "sim/kube/shared_vector.h"

namespace wsim::kube {

struct OwnerReference {
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

struct Condition {
  std::string type;
  std::string status;  // "True" / "False" / "Unknown"
  std::string reason;
  std::string message;
  TimeMs last_transition_ms = 0;
  friend bool operator==(const Condition&, const Condition&) = default;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;              // Empty for cluster-scoped kinds (Namespace, Node).
  std::string uid;                     // Assigned by the server on create.
  std::uint64_t resource_version = 0;  // Assigned by the server; cluster-wide, strictly increasing.
  std::int64_t generation = 0;         // Bumped on spec changes only.
  Fields labels;  // Shared copy-on-write (fields.h), like every map of an Object.
  Fields annotations;
  SharedVector<OwnerReference> owner_references;  // Shared copy-on-write (shared_vector.h).
  std::vector<std::string> finalizers;
  TimeMs creation_ms = 0;
  std::optional<TimeMs> deletion_ms;  // deletionTimestamp; immutable once set.
  std::optional<std::int64_t> deletion_grace_period_ms;
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

struct Object {
  std::string kind;  // "Namespace", "Pod", "Deployment", "ConfigMap", "Workspace", ...
  ObjectMeta meta;
  Fields spec;
  Fields status;
  SharedVector<Condition> conditions;  // Shared copy-on-write (shared_vector.h).
  Fields data;                         // ConfigMap / Secret.

  // Reads by key take std::string_view: a key or fallback spelled as a literal or a `const char*`
  // constant builds no std::string per call (docs/performance.md §12).
  const Condition* condition(std::string_view type) const;
  std::string spec_or(std::string_view key, std::string_view fallback) const;
  std::string status_or(std::string_view key, std::string_view fallback) const;
  // The status value at `key`, or an empty view when absent: status_or(key, "") without the
  // copy, for a value that is compared, not kept. Valid while `status` is not written.
  std::string_view status_view(std::string_view key) const {
    WSIM_ASSERT(!key.empty());  // Paired with status_or().
    return status.value_or_empty(key);
  }
  friend bool operator==(const Object&, const Object&) = default;
};

// Identifies an object: kind, namespace (empty for cluster-scoped), name. Ordered by
// (namespace, name, kind) so lists come out sorted by namespace/name like the real API server.
struct ObjectRef {
  // Constructors (not an aggregate) on purpose: g++ 12 destroys a brace-initialised *aggregate*
  // temporary twice when it lives across a co_await (`co_await client.get(ObjectRef{...})`),
  // corrupting the heap. With a constructor `ObjectRef{kind, ns, name}` is safe everywhere.
  ObjectRef() = default;
  ObjectRef(std::string kind_, std::string ns, std::string name_)
      : kind(std::move(kind_)), namespace_(std::move(ns)), name(std::move(name_)) {}

  std::string kind;
  std::string namespace_;
  std::string name;

  static ObjectRef of(const Object& object) {
    return ObjectRef{object.kind, object.meta.namespace_, object.meta.name};
  }
  std::string to_string() const;  // "Deployment/ns/name" or "Namespace/name"
  friend std::strong_ordering operator<=>(const ObjectRef& a, const ObjectRef& b) {
    return compare_ref(a.namespace_, a.name, a.kind, b.namespace_, b.name, b.kind);
  }
  friend bool operator==(const ObjectRef&, const ObjectRef&) = default;

  // The order of ObjectRefs over their parts: namespace, then name, then kind, each compared
  // like std::string (unsigned bytes, then length), but inline (a store or informer lookup
  // compares two or three strings per tree node; docs/performance.md §10).
  static std::strong_ordering compare_ref(std::string_view ns_a, std::string_view name_a,
                                          std::string_view kind_a, std::string_view ns_b,
                                          std::string_view name_b, std::string_view kind_b) {
    if (auto c = compare_bytes(ns_a, ns_b); c != 0) return c;
    if (auto c = compare_bytes(name_a, name_b); c != 0) return c;
    return compare_bytes(kind_a, kind_b);
  }
  // std::string's order (char_traits<char>::compare: unsigned bytes, then the shorter first),
  // inline: kube::compare_bytes (sim/kube/bytes_order.h).
  static std::strong_ordering compare_bytes(std::string_view a, std::string_view b) {
    return kube::compare_bytes(a, b);
  }
};

// A lookup key with the parts of an ObjectRef, not owning them (heterogeneous lookup in maps
// keyed by ObjectRef with ObjectRefLess: no strings copied to find an object).
struct ObjectRefView {
  std::string_view kind;
  std::string_view namespace_;
  std::string_view name;
  static ObjectRefView of(const Object& object) {
    return ObjectRefView{object.kind, object.meta.namespace_, object.meta.name};
  }
};

// ObjectRef's order, transparent: ObjectRef and ObjectRefView keys compare alike.
struct ObjectRefLess {
  using is_transparent = void;
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a < b; }
  bool operator()(const ObjectRef& a, const ObjectRefView& b) const {
    return ObjectRef::compare_ref(a.namespace_, a.name, a.kind, b.namespace_, b.name, b.kind) < 0;
  }
  bool operator()(const ObjectRefView& a, const ObjectRef& b) const {
    return ObjectRef::compare_ref(a.namespace_, a.name, a.kind, b.namespace_, b.name, b.kind) < 0;
  }
};

// A hash of an ObjectRef's parts, for lookup-only hash indexes (the store's, the conformance
// monitor's): each part a word at a time, multiply-xor mixed, its length after it, so that
// ("ab", "c") and ("a", "bc") differ. No seed: the same on every run; an index hashed by it is
// never iterated, so its order reaches nothing (docs/performance.md §14.2) [invented].
// Transparent: ObjectRef and ObjectRefView keys hash alike.
struct ObjectRefHash {
  using is_transparent = void;
  std::size_t operator()(const ObjectRefView& ref) const {
    return hash_parts(ref.kind, ref.namespace_, ref.name);
  }
  std::size_t operator()(const ObjectRef& ref) const {
    return hash_parts(ref.kind, ref.namespace_, ref.name);
  }
  static std::size_t hash_parts(std::string_view kind, std::string_view ns, std::string_view name) {
    std::uint64_t h = 0;
    mix_part(h, kind);
    mix_part(h, ns);
    mix_part(h, name);
    h ^= h >> 29;  // One avalanche at the end: the bucket index (h modulo a prime) sees every bit.
    h *= 0xBF58476D1CE4E5B9ull;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }

 private:
  static void mix(std::uint64_t& h, std::uint64_t word) { h = (h ^ word) * 0x9E3779B97F4A7C15ull; }
  // The part's bytes as native words (the last one overlapping, or the 1..7 bytes of a short
  // part as one number), then its length.
  static void mix_part(std::uint64_t& h, std::string_view part) {
    const std::size_t n = part.size();
    const char* p = part.data();
    if (n >= 8) {
      std::size_t i = 0;
      for (; i + 8 <= n; i += 8) mix(h, load(p + i));
      if (i < n) mix(h, load(p + n - 8));
    } else if (n > 0) {
      mix(h, bytes_detail::load_short(p, n));
    }
    mix(h, n);
  }
  static std::uint64_t load(const char* p) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, 8);
    return word;
  }
};

// ObjectRef equality over ObjectRef and ObjectRefView keys alike (name first: it differs most).
struct ObjectRefEqual {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return std::string_view(a.name) == std::string_view(b.name) &&
           std::string_view(a.namespace_) == std::string_view(b.namespace_) &&
           std::string_view(a.kind) == std::string_view(b.kind);
  }
};

// A lookup-only index by ObjectRef (found by ObjectRef or ObjectRefView alike). Never iterated:
// its order is the hash's, so it must reach nothing (docs/performance.md §14.2).
namespace ref_index_detail {
template <typename... Args>
using HashMap = std::unordered_map<Args...>;  // tidy: allow-unordered (RefHashIndex: lookup only)
}  // namespace ref_index_detail
template <typename Key, typename Value>
using RefHashIndex = ref_index_detail::HashMap<Key, Value, ObjectRefHash, ObjectRefEqual>;

// True for kinds without a namespace.
bool is_cluster_scoped(std::string_view kind);

// Equality-based label selector (what the models need): every pair must match. Empty = all.
struct LabelSelector {
  // Not an aggregate, like ObjectRef (g++ 12 co_await temporaries).
  LabelSelector() = default;
  LabelSelector(std::map<std::string, std::string> labels) : match_labels(std::move(labels)) {}
  std::map<std::string, std::string> match_labels;
  bool matches(const Fields& labels) const;
  std::string to_string() const;  // "a=b,c=d"
};

}  // namespace wsim::kube
