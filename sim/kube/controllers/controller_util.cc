// See controller_util.h.
#include "sim/kube/controllers/controller_util.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace wsim::kube {

DurationMs draw_delay(ChoiceStream& stream, const DelayRange& range) {
  WSIM_ASSERT_LE(range.min_ms, range.max_ms);
  WSIM_ASSERT_GE(range.min_ms, 0);
  if (range.min_ms == range.max_ms) return range.min_ms;
  return stream.range(range.min_ms, range.max_ms);
}

bool has_finalizer(const Object& object, std::string_view finalizer) {
  WSIM_ASSERT(!finalizer.empty());
  return std::find(object.meta.finalizers.begin(), object.meta.finalizers.end(), finalizer) !=
         object.meta.finalizers.end();
}

std::vector<std::string> without_finalizer(const std::vector<std::string>& finalizers,
                                           std::string_view finalizer) {
  WSIM_ASSERT(!finalizer.empty());
  std::vector<std::string> out;
  out.reserve(finalizers.size());
  for (const std::string& f : finalizers) {
    if (f != finalizer) out.push_back(f);
  }
  return out;
}

bool is_deleting(const Object& object) {
  // A deleting object has a deletion time no earlier than its creation.
  if (object.meta.deletion_ms) WSIM_ASSERT_GE(*object.meta.deletion_ms, object.meta.creation_ms);
  return object.meta.deletion_ms.has_value();
}

std::int64_t int_field(const Fields& fields, std::string_view key, std::int64_t fallback) {
  WSIM_ASSERT(!key.empty());
  auto it = fields.find(key);
  if (it == fields.end() || it->second.empty()) return fallback;
  const std::string& text = it->second;
  std::size_t i = 0;
  bool negative = false;
  if (text[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i == text.size() || text.size() - i > 18) return fallback;
  std::int64_t value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return fallback;
    value = value * 10 + (text[i] - '0');
  }
  return negative ? -value : value;
}

std::string pod_phase(const Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  return pod.status_or("phase", "Pending");
}

bool pod_is_terminal(const Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  const std::string phase = pod_phase(pod);
  return phase == "Succeeded" || phase == "Failed";
}

bool pod_is_ready(const Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  return pod.status_or("ready", "false") == "true";
}

bool pod_is_active(const Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  return !pod_is_terminal(pod) && !is_deleting(pod);
}

ObjectRef owner_target(const Object& dependent, const OwnerReference& owner) {
  // An owner lives in its dependent's namespace or at the cluster scope.
  WSIM_ASSERT(!dependent.kind.empty());
  return ObjectRef{owner.kind, is_cluster_scoped(owner.kind) ? "" : dependent.meta.namespace_,
                   owner.name};
}

ObjectRefView owner_target_view(const Object& dependent, const OwnerReference& owner) {
  WSIM_ASSERT(!dependent.kind.empty());
  return ObjectRefView{owner.kind,
                       is_cluster_scoped(owner.kind) ? std::string_view()
                                                     : std::string_view(dependent.meta.namespace_),
                       owner.name};
}

const OwnerReference* controller_of(const Object& object) {
  for (const OwnerReference& owner : object.meta.owner_references) {
    if (owner.controller) return &owner;
  }
  return nullptr;
}

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type) {
  WSIM_ASSERT(!type.empty());
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool condition_holds(const std::vector<Condition>& conditions, std::string_view type,
                     std::string_view status, std::string_view reason) {
  WSIM_ASSERT(!status.empty());
  const Condition* current = find_condition(conditions, type);
  return current != nullptr && current->status == status && current->reason == reason;
}

bool set_condition(std::vector<Condition>& conditions, Condition condition, TimeMs now_ms) {
  WSIM_ASSERT(!condition.type.empty());
  WSIM_ASSERT_GE(now_ms, 0);
  const Condition* current = find_condition(conditions, condition.type);
  if (current != nullptr && current->status == condition.status &&
      current->reason == condition.reason) {
    return false;
  }
  condition.last_transition_ms = (current != nullptr && current->status == condition.status)
                                     ? current->last_transition_ms
                                     : now_ms;
  std::erase_if(conditions, [&](const Condition& c) { return c.type == condition.type; });
  conditions.push_back(std::move(condition));
  // One condition per type (a handful of conditions: the count is cheap).
  WSIM_ASSERT_EQ(
      std::count_if(conditions.begin(), conditions.end(),
                    [&](const Condition& c) { return c.type == conditions.back().type; }),
      1);
  return true;
}

}  // namespace wsim::kube
