// See scheduler.h.
#include "sim/kube/controllers/scheduler.h"

#include <algorithm>

namespace wsim::kube {

namespace {
bool needs_scheduling(const Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  return pod.spec_or("nodeName", "").empty() && !is_deleting(pod) && !pod_is_terminal(pod);
}
}  // namespace

bool node_selector_matches(const std::string& selector, const Fields& labels) {
  std::size_t start = 0;
  while (start < selector.size()) {
    std::size_t end = selector.find(',', start);
    if (end == std::string::npos) end = selector.size();
    const std::string term = selector.substr(start, end - start);
    start = end + 1;
    if (term.empty()) continue;
    const std::size_t eq = term.find('=');
    const std::string key = term.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : term.substr(eq + 1);
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  WSIM_ASSERT_GE(start, selector.size());  // Every term was checked.
  return true;
}

std::string node_misfit(const Object& node, const NodeUsage& used, const Object& pod) {
  WSIM_ASSERT_EQ(node.kind, "Node");
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  if (node.spec_or("unschedulable", "false") == "true") return "node(s) were unschedulable";
  if (node.status_or("ready", "false") != "true" || is_deleting(node))
    return "node(s) were not ready";
  if (!node_selector_matches(pod.spec_or("nodeSelector", ""), node.meta.labels)) {
    return "node(s) didn't match Pod's node affinity/selector";
  }
  const std::int64_t cpu = int_field(pod.spec, "cpuMilli", 0);
  const std::int64_t memory = int_field(pod.spec, "memoryMiB", 0);
  if (used.cpu_milli + cpu > int_field(node.status, "cpuMilli", 0)) return "Insufficient cpu";
  if (used.memory_mib + memory > int_field(node.status, "memoryMiB", 0))
    return "Insufficient memory";
  return "";
}

PodUsage pod_usage(const Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, "Pod");
  PodUsage out;
  out.node = pod.spec_or("nodeName", "");
  if (out.node.empty() || pod_is_terminal(pod)) return PodUsage{};
  out.used.cpu_milli = int_field(pod.spec, "cpuMilli", 0);
  out.used.memory_mib = int_field(pod.spec, "memoryMiB", 0);
  return out;
}

namespace {

// Adds (sign 1) or takes away (sign -1) what `pod` holds on its node.
void count_pod(std::map<std::string, NodeUsage>& usage, const Object& pod, int sign) {
  WSIM_ASSERT(sign == 1 || sign == -1);
  const PodUsage one = pod_usage(pod);
  if (one.node.empty()) return;
  NodeUsage& u = usage[one.node];
  u.cpu_milli += sign * one.used.cpu_milli;
  u.memory_mib += sign * one.used.memory_mib;
  // Only what was added is taken away: a node's usage never goes below zero.
  WSIM_ASSERT_GE(u.cpu_milli, 0);
  WSIM_ASSERT_GE(u.memory_mib, 0);
}

}  // namespace

std::map<std::string, NodeUsage> node_usage(const std::vector<const Object*>& pods) {
  WSIM_ASSERT(
      std::all_of(pods.begin(), pods.end(), [](const Object* pod) { return pod != nullptr; }));
  std::map<std::string, NodeUsage> usage;
  for (const Object* pod : pods) count_pod(usage, *pod, 1);
  return usage;
}

Scheduler::Scheduler(Sim& sim, ApiServer& api, SchedulerOptions options)
    : sim_(sim),
      api_(api),
      options_(options),
      stream_(sim.stream("kube.scheduler")),
      probe_unschedulable_(sim.probes().declare(
          "kube.scheduler.unschedulable", "a pod found no node with room (PodScheduled=False)")) {
  WSIM_ASSERT_LE(options_.step.min_ms, options_.step.max_ms);
}

void Scheduler::start() {
  WSIM_ASSERT(usage_.empty());  // Started once: the index starts from the stored pods.
  usage_ = node_usage(api_.peek_list("Pod", ""));
  // Inside the write: the usage index is never behind the store.
  api_.subscribe(
      "Pod",
      [this](const WatchEvent& event) {
        on_stored_pod(event.previous,
                      event.type == WatchEventType::kDeleted ? nullptr : &event.object);
      },
      ListenAt::kInsideWrite);
  api_.subscribe("Pod", [this](const WatchEvent& event) { on_pod(event); });
  api_.subscribe("Node", [this](const WatchEvent& event) { on_node(event); });
}

void Scheduler::on_pod(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Pod");
  const ObjectRef ref = ObjectRef::of(event.object);
  if (event.type == WatchEventType::kDeleted) {
    unschedulable_.erase(ref);
    if (!event.object.spec_or("nodeName", "").empty()) retry_unschedulable();  // Room freed.
    return;
  }
  if (needs_scheduling(event.object)) {
    if (unschedulable_.count(ref) == 0) enqueue(ref);
    return;
  }
  unschedulable_.erase(ref);
  if (pod_is_terminal(event.object) && !event.object.spec_or("nodeName", "").empty()) {
    retry_unschedulable();
  }
}

void Scheduler::on_node(const WatchEvent& event) {
  WSIM_ASSERT_EQ(event.object.kind, "Node");
  if (event.type != WatchEventType::kDeleted) retry_unschedulable();
}

void Scheduler::on_stored_pod(const Object* before, const Object* after) {
  WSIM_ASSERT(before != nullptr || after != nullptr);
  if (before != nullptr) count_pod(usage_, *before, -1);
  if (after != nullptr) count_pod(usage_, *after, 1);
}

void Scheduler::retry_unschedulable() {
  for (const ObjectRef& ref : unschedulable_) enqueue(ref);
  WSIM_ASSERT_LE(unschedulable_.size(), queued_.size());  // Every unschedulable pod is queued.
}

void Scheduler::enqueue(const ObjectRef& ref) {
  WSIM_ASSERT_EQ(ref.kind, "Pod");
  if (!queued_.insert(ref).second) return;
  sim_.loop().schedule(draw_delay(stream_, options_.step), [this, ref] { schedule_one(ref); });
}

void Scheduler::schedule_one(const ObjectRef& ref) {
  WSIM_ASSERT_EQ(ref.kind, "Pod");
  queued_.erase(ref);
  const Object* live = api_.peek(ref);
  if (live == nullptr || !needs_scheduling(*live)) {
    unschedulable_.erase(ref);
    return;
  }
  const Object pod = *live;
  const std::map<std::string, NodeUsage>& usage = usage_;
  std::vector<std::string> candidates;
  std::map<std::string, int> reasons;  // Misfit reason -> node count, for the message.
  const std::vector<const Object*> nodes = api_.peek_list("Node", "");
  for (const Object* node : nodes) {
    auto it = usage.find(node->meta.name);
    const std::string misfit =
        node_misfit(*node, it == usage.end() ? NodeUsage{} : it->second, pod);
    if (misfit.empty()) {
      candidates.push_back(node->meta.name);
    } else {
      ++reasons[misfit];
    }
  }

  MergePatch status;
  if (candidates.empty()) {
    ++counters_.unschedulable;
    unschedulable_.insert(ref);
    std::string message = "0/" + std::to_string(nodes.size()) + " nodes are available";
    const char* sep = ": ";
    for (const auto& [reason, count] : reasons) {
      message += sep + std::to_string(count) + " " + reason;
      sep = ", ";
    }
    message += ".";
    std::vector<Condition> conditions = pod.conditions;
    if (set_condition(conditions, Condition{"PodScheduled", "False", "Unschedulable", message, 0},
                      sim_.now_ms())) {
      status.conditions = conditions;
      api_.server_patch(ref, status, Subresource::kStatus, kActor);
    }
    sim_.probes().hit(probe_unschedulable_);
    sim_.record(kActor, "schedule", ref.to_string(), "Unschedulable", message);
    return;
  }
  const std::string node = candidates[static_cast<std::size_t>(stream_.below(candidates.size()))];
  MergePatch bind;
  bind.spec["nodeName"] = node;
  const Result<Object> bound = api_.server_patch(ref, bind, Subresource::kMain, kActor);
  sim_.record(kActor, "bind", ref.to_string(), bound.ok() ? "ok" : code_name(bound.status.code),
              node);
  if (!bound.ok()) return;
  ++counters_.bound;
  unschedulable_.erase(ref);
  std::vector<Condition> conditions = bound.value.conditions;
  if (set_condition(conditions, Condition{"PodScheduled", "True", "", "", 0}, sim_.now_ms())) {
    status.conditions = conditions;
    api_.server_patch(ref, status, Subresource::kStatus, kActor);
  }
}

}  // namespace wsim::kube
