// Upstream: none line by line; helpers [invented] (delays from choice streams) over Kubernetes
// API conventions (condition lists, owner references). docs/fidelity.md K10.
//
// Small helpers shared by the built-in controllers: delays drawn from choice streams, finalizer
// and owner-reference bookkeeping, integer fields, Kubernetes-style condition setting. Pure
// functions of their arguments (no ApiServer), so they are unit-tested on their own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/choice.h"
#include "sim/core/time.h"
#include "sim/kube/object.h"
#include "sim/kube/shared_vector.h"

namespace wsim::kube {

// An inclusive range of step delays. Draw 0 is the shortest delay (min_ms).
struct DelayRange {
  DurationMs min_ms = 0;
  DurationMs max_ms = 0;
};

DurationMs draw_delay(ChoiceStream& stream, const DelayRange& range);

bool has_finalizer(const Object& object, std::string_view finalizer);
// `finalizers` without every copy of `finalizer`, order kept.
std::vector<std::string> without_finalizer(const std::vector<std::string>& finalizers,
                                           std::string_view finalizer);

bool is_deleting(const Object& object);

// Integer field of a flat map; `fallback` if absent or not a (possibly negative) decimal integer.
std::int64_t int_field(const Fields& fields, std::string_view key, std::int64_t fallback);

// Pods.
std::string pod_phase(const Object& pod);  // "Pending" if unset.
bool pod_is_terminal(const Object& pod);   // Succeeded or Failed.
bool pod_is_ready(const Object& pod);      // status ready == "true".
// Pods that count for a ReplicaSet / Deployment: not terminal and not being deleted.
bool pod_is_active(const Object& pod);

// The object an owner reference points at: the dependent's namespace unless the owner kind is
// cluster-scoped.
ObjectRef owner_target(const Object& dependent, const OwnerReference& owner);
// The same as a view into `dependent` and `owner` (valid while both are), for a lookup.
ObjectRefView owner_target_view(const Object& dependent, const OwnerReference& owner);
// The controller owner reference (controller=true), if any.
const OwnerReference* controller_of(const Object& object);

// Kubernetes SetCondition semantics (k8s.io/kubernetes/pkg/controller/deployment/util): an
// existing condition with the same status and reason is left untouched; otherwise it is replaced
// (moved to the end), keeping its lastTransitionTime if the status did not change. Returns true if
// `conditions` changed.
bool set_condition(std::vector<Condition>& conditions, Condition condition, TimeMs now_ms);
// Whether `conditions` holds a condition of `type` with `status` and `reason`: then set_condition
// with them changes nothing, and a caller can skip building the Condition (its message) and
// leave a shared list undetached (docs/performance.md §14.2).
bool condition_holds(const std::vector<Condition>& conditions, std::string_view type,
                     std::string_view status, std::string_view reason);
// Condition by type in a list, or nullptr.
const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type);

}  // namespace wsim::kube
