// See namespace_controller.h.
#include "sim/kube/controllers/namespace_controller.h"

#include <algorithm>
#include <vector>

namespace wsim::kube {

namespace {
bool has_spec_finalizer(const Object& ns) {
  WSIM_ASSERT_EQ(ns.kind, "Namespace");
  // spec "finalizers" holds a comma-separated list; "kubernetes" while content remains.
  const std::string list = ns.spec_or("finalizers", "");
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (list.compare(start, end - start, "kubernetes") == 0) return true;
    start = end + 1;
  }
  return false;
}
}  // namespace

NamespaceController::NamespaceController(Sim& sim, ApiServer& api,
                                         NamespaceControllerOptions options)
    : sim_(sim),
      api_(api),
      options_(options),
      stream_(sim.stream("kube.controller.namespace")),
      fault_stream_(sim.stream("kube.fault.namespace_slow_termination")) {
  slow_fault_ = sim.faults().declare(
      kSlowFault, "namespace controller steps stretched (slow Terminating namespace)",
      options_.slow_enable, options_.slow_fire);
  probe_waiting_ = sim.probes().declare(
      "kube.namespace.waiting_for_content",
      "a Terminating namespace waited for content still terminating (grace period, finalizers)");
  WSIM_ASSERT_LE(options_.step.min_ms, options_.step.max_ms);
  WSIM_ASSERT_LE(options_.slow_extra.min_ms, options_.slow_extra.max_ms);
}

void NamespaceController::start() {
  WSIM_ASSERT(queued_.empty());  // Started once, before any event.
  api_.subscribe("", [this](const WatchEvent& event) { on_event(event); });
}

void NamespaceController::on_event(const WatchEvent& event) {
  const Object& object = event.object;
  WSIM_ASSERT(!object.kind.empty());
  // Namespaces are cluster-scoped: a Namespace event never carries a namespace.
  if (object.kind == "Namespace") WSIM_ASSERT(object.meta.namespace_.empty());
  if (object.kind != "Namespace") {
    // Content of a Terminating namespace went away (e.g. a pod after its grace period): re-check.
    if (!object.meta.namespace_.empty() && event.type == WatchEventType::kDeleted) {
      const Object* ns = api_.peek(ObjectRef{"Namespace", "", object.meta.namespace_});
      if (ns != nullptr && is_deleting(*ns)) enqueue(object.meta.namespace_);
    }
    return;
  }
  if (event.type == WatchEventType::kDeleted) return;
  if (is_deleting(object) && has_spec_finalizer(object)) enqueue(object.meta.name);
}

void NamespaceController::enqueue(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  if (!queued_.insert(name).second) return;
  DurationMs delay = draw_delay(stream_, options_.step);
  if (sim_.faults().fires(slow_fault_, fault_stream_)) {
    delay += draw_delay(fault_stream_, options_.slow_extra);
    ++counters_.slow_steps;
    sim_.record(kActor, "fault", "Namespace/" + name, "slow_termination",
                "step delayed " + std::to_string(delay) + "ms");
  }
  sim_.loop().schedule(delay, [this, name] { step(name); });
}

void NamespaceController::step(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  queued_.erase(name);
  const ObjectRef ref{"Namespace", "", name};
  const Object* ns = api_.peek(ref);
  if (ns == nullptr || !is_deleting(*ns) || !has_spec_finalizer(*ns)) return;
  ++counters_.steps;

  int budget = std::max(1, options_.batch);
  std::size_t remaining = 0;  // Objects still in the namespace.
  std::vector<ObjectRef> to_delete;
  for (const Object* object : api_.peek_list("", name)) {
    ++remaining;
    if (!is_deleting(*object) && budget > 0) {
      to_delete.push_back(ObjectRef::of(*object));
      --budget;
    }
  }
  for (const ObjectRef& victim : to_delete) {
    const Status status = api_.server_delete(victim, DeleteOptions{}, kActor);
    ++counters_.deletions;
    sim_.record(kActor, "delete", victim.to_string(), status.ok() ? "ok" : code_name(status.code),
                "namespace terminating");
  }
  if (remaining > 0) {
    // Count again: deletions without finalizers or grace periods are immediate.
    std::size_t left = 0;
    bool undeleted = false;
    for (const Object* object : api_.peek_list("", name)) {
      ++left;
      undeleted = undeleted || !is_deleting(*object);
    }
    if (left > 0) {
      // More to delete: next step. Only terminating objects left: their removal (a Deleted
      // event) wakes this controller up, no polling.
      if (undeleted) {
        enqueue(name);
      } else {
        sim_.probes().hit(probe_waiting_);
      }
      return;
    }
  }
  const Object* again = api_.peek(ref);
  if (again == nullptr) return;
  MergePatch patch;
  patch.spec["finalizers"] = std::nullopt;
  const Result<Object> written = api_.server_patch(ref, patch, Subresource::kMain, kActor);
  ++counters_.finalized;
  sim_.record(kActor, "finalize", ref.to_string(),
              written.ok() ? "ok" : code_name(written.status.code), "namespace empty");
  // The server removes the namespace after the write when no finalizer is left; make sure.
  if (api_.peek(ref) != nullptr) api_.server_finalize(ref, kActor);
}

}  // namespace wsim::kube
