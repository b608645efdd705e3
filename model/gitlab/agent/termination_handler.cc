// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/agent/termination_handler.h"

#include <optional>

#include "model/gitlab/agent/applier.h"
#include "model/gitlab/names.h"
#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

using Errors = std::vector<std::string>;

// The acknowledgement path shared by all versions: forget the workspace.
void acknowledge(AgentContext& ctx, ReconcilerState& state, const WorkspaceKey& key,
                 State rails_actual) {
  if (state.termination.contains(key)) ctx.observe().on_tracker_erase(key, rails_actual);
  state.termination.erase(key);
  state.persisted.erase(key.name);
}

void track(AgentContext& ctx, ReconcilerState& state, const WorkspaceKey& key,
           TerminationProgress progress) {
  WSIM_ASSERT(progress != TerminationProgress::kNone);  // kNone is wire-only: "not sent".
  if (ctx.versions.agent_has_synced_flag()) {
    state.termination.update_or_set(key, progress);
  } else {
    state.termination.add(key, progress);
  }
  WSIM_ASSERT(state.termination.contains(key));
}

Task<Errors> handle_pre_fix(AgentContext& ctx, ReconcilerState& state, WorkspaceRailsInfo info) {
  WSIM_ASSERT(ctx.versions.agent_pre_fix());
  const WorkspaceKey key{info.name, info.namespace_};
  if (state.termination.contains(key) && info.actual_state == State::kTerminated) {
    acknowledge(ctx, state, key, info.actual_state);
    co_return Errors{};
  }
  const NamespaceCheck check = co_await ctx.k8s.namespace_exists(info.namespace_);
  WSIM_ASSERT(!check.error.has_value());  // A0 folds errors into "absent".
  if (!check.exists) {
    if (!state.termination.contains(key)) ctx.hit(&GitlabProbes::terminated_without_tracker);
    co_return Errors{};  // §7.1 step 5: nothing tracked.
  }
  ctx.observe().on_namespace_delete(info.name, info.namespace_);
  if (auto error = co_await ctx.k8s.delete_namespace(info.namespace_)) co_return Errors{*error};
  track(ctx, state, key, TerminationProgress::kTerminating);
  co_return Errors{};
}

Task<Errors> handle_post_fix(AgentContext& ctx, ReconcilerState& state, WorkspaceRailsInfo info) {
  WSIM_ASSERT(!ctx.versions.agent_pre_fix());
  WSIM_ASSERT(!ctx.versions.agent_inventory_termination());
  const WorkspaceKey key{info.name, info.namespace_};
  if (info.actual_state == State::kTerminated) {
    acknowledge(ctx, state, key, info.actual_state);
    co_return Errors{};
  }
  const NamespaceCheck check = co_await ctx.k8s.namespace_exists(info.namespace_);
  if (check.error) co_return Errors{*check.error};
  if (!check.exists) {
    if (!state.termination.contains(key)) ctx.hit(&GitlabProbes::terminated_without_tracker);
    track(ctx, state, key, TerminationProgress::kTerminated);  // MR !1080: the fix.
    co_return Errors{};
  }
  ctx.observe().on_namespace_delete(info.name, info.namespace_);
  if (auto error = co_await ctx.k8s.delete_namespace(info.namespace_)) co_return Errors{*error};
  track(ctx, state, key, TerminationProgress::kTerminating);
  co_return Errors{};
}

// --- A3 [reconstructed], docs/systems/gitlab.md §5.8
// -------------------------------------------------------------

struct LiveInventory {
  kube::Object config_map;           // As sent by Rails (no data).
  std::optional<kube::Object> live;  // nullopt: NotFound.
};

struct InventoryScan {
  std::vector<LiveInventory> inventories;
  std::size_t found = 0;
  std::size_t tracked_objects = 0;
  Errors errors;
};

Task<InventoryScan> scan_inventories(AgentContext& ctx, const WorkspaceRailsInfo& info) {
  InventoryScan scan;
  for (const kube::Object& object : info.config_to_apply) {
    if (object.kind != "ConfigMap" || object.meta.labels.count(std::string(kInventoryIdLabel)) == 0)
      continue;
    // Rails builds every object of a workspace in the row's namespace (config_builder.cc).
    WSIM_ASSERT_EQ(object.meta.namespace_, info.namespace_);
    const kube::Result<kube::Object> got =
        co_await ctx.k8s.client().get(kube::ObjectRef::of(object));
    LiveInventory inventory{object, std::nullopt};
    if (got.ok()) {
      inventory.live = got.value;
      ++scan.found;
      scan.tracked_objects += got.value.data.size();
    } else if (!got.status.is(kube::Code::kNotFound)) {
      scan.errors.push_back(render_status(got.status));
    }
    scan.inventories.push_back(std::move(inventory));
  }
  WSIM_ASSERT_LE(scan.found, scan.inventories.size());
  if (scan.found == 0) WSIM_ASSERT_EQ(scan.tracked_objects, 0u);
  co_return scan;
}

// DELETE every object tracked by the live inventories; returns how many may still exist.
Task<std::size_t> delete_tracked_objects(AgentContext& ctx, const WorkspaceRailsInfo& info,
                                         const InventoryScan& scan, Errors& errors) {
  WSIM_ASSERT(scan.errors.empty());  // An unreadable inventory returns before any deletion.
  std::size_t remaining = 0;
  for (const LiveInventory& inventory : scan.inventories) {
    if (!inventory.live) continue;
    for (const auto& [key, value] : inventory.live->data) {
      const std::optional<kube::InventoryKey> parsed = kube::parse_inventory_key(key);
      if (!parsed) continue;
      const kube::ObjectRef ref = parsed->ref;
      ctx.observe().on_object_delete(info.name, ref);
      const kube::Status status = co_await ctx.k8s.client().remove(ref);
      if (status.is(kube::Code::kNotFound)) continue;
      ++remaining;  // It existed when we asked: re-check next cycle.
      if (!status.ok()) errors.push_back(render_status(status));
    }
  }
  WSIM_ASSERT_LE(remaining, scan.tracked_objects);
  co_return remaining;
}

// (i) destroy: apply each live inventory with no objects, so the applier prunes them all.
Task<std::size_t> destroy_by_apply(AgentContext& ctx, const WorkspaceRailsInfo& info,
                                   const InventoryScan& scan, Errors& errors) {
  WSIM_ASSERT(scan.errors.empty());
  std::size_t remaining = 0;
  for (const LiveInventory& inventory : scan.inventories) {
    if (!inventory.live || inventory.live->data.empty()) continue;
    remaining += inventory.live->data.size();
    ctx.observe().on_apply(info.name, {inventory.config_map}, /*termination=*/true);
    // A named group, not a braced temporary inside co_await: g++ 12 mis-destroys aggregate
    // temporaries in co_await expressions.
    InventoryGroup group;
    group.inventory = inventory.config_map;
    Errors group_errors = co_await apply_group(ctx.k8s.client(), std::move(group));
    errors.insert(errors.end(), group_errors.begin(), group_errors.end());
  }
  WSIM_ASSERT_EQ(remaining, scan.tracked_objects);  // Every tracked object is pruned by apply.
  co_return remaining;
}

Task<void> delete_inventories(AgentContext& ctx, const WorkspaceRailsInfo& info,
                              const InventoryScan& scan, Errors& errors) {
  WSIM_ASSERT(scan.errors.empty());
  for (const LiveInventory& inventory : scan.inventories) {
    if (!inventory.live) continue;
    const kube::ObjectRef ref = kube::ObjectRef::of(inventory.config_map);
    WSIM_ASSERT_EQ(ref.kind, std::string("ConfigMap"));
    ctx.observe().on_object_delete(info.name, ref);
    const kube::Status status = co_await ctx.k8s.client().remove(ref);
    if (!status.ok() && !status.is(kube::Code::kNotFound)) errors.push_back(render_status(status));
  }
}

// The final step once nothing tracked is left: returns the progress to record.
Task<TerminationProgress> finish_a3(AgentContext& ctx, const WorkspaceRailsInfo& info,
                                    const InventoryScan& scan, Errors& errors) {
  WSIM_ASSERT(ctx.versions.agent_inventory_termination());
  WSIM_ASSERT(scan.errors.empty());
  // The naive namespace_delete variant (§8 item 1) finishes as in unique mode in every mode.
  if (ctx.versions.shared() && ctx.versions.a3_termination != A3Termination::kNamespaceDelete) {
    co_await delete_inventories(ctx, info, scan, errors);
    co_return errors.empty() ? TerminationProgress::kTerminated : TerminationProgress::kTerminating;
  }
  const NamespaceCheck check = co_await ctx.k8s.namespace_exists(info.namespace_);
  if (check.error) {
    errors.push_back(*check.error);
    co_return TerminationProgress::kTerminating;
  }
  if (!check.exists) co_return TerminationProgress::kTerminated;
  ctx.observe().on_namespace_delete(info.name, info.namespace_);
  // A Conflict on a Terminating namespace is expected here: the deletion is under way.
  if (auto error = co_await ctx.k8s.delete_namespace(info.namespace_)) {
    if (error->rfind("Conflict", 0) != 0) errors.push_back(*error);
  }
  co_return TerminationProgress::kTerminating;
}

bool tracks_objects(const InventoryScan& scan) {
  for (const LiveInventory& inventory : scan.inventories) {
    if (inventory.live && !inventory.live->data.empty()) {
      WSIM_ASSERT_GT(scan.tracked_objects, 0u);
      return true;
    }
  }
  WSIM_ASSERT_EQ(scan.tracked_objects, 0u);
  return false;
}

// The seed-001 plan (A3Termination::kPlan) after the acknowledgement; returns the progress.
Task<TerminationProgress> plan_a3(AgentContext& ctx, const WorkspaceRailsInfo& info,
                                  Errors& errors) {
  WSIM_ASSERT(ctx.versions.a3_termination == A3Termination::kPlan);
  if (!ctx.versions.shared()) {
    // Unique mode: no namespace, nothing left (the plan's first Terminated condition).
    const NamespaceCheck check = co_await ctx.k8s.namespace_exists(info.namespace_);
    if (check.error) {
      errors.push_back(*check.error);
      co_return TerminationProgress::kTerminating;
    }
    if (!check.exists) co_return TerminationProgress::kTerminated;
  }
  InventoryScan scan = co_await scan_inventories(ctx, info);
  if (!scan.errors.empty()) {
    errors.insert(errors.end(), scan.errors.begin(), scan.errors.end());
    co_return TerminationProgress::kTerminating;
  }
  if (ctx.versions.shared() && scan.found == 0) {
    // The plan's shared-mode Terminated condition; it is also how the plan confirms its own
    // deletion of the inventories, so a3_missing_inventory (a §5.8 (iii) alternative of the
    // reconstruction) does not apply here.
    ctx.hit(&GitlabProbes::inventory_missing_on_terminate);
    co_return TerminationProgress::kTerminated;
  }
  if (tracks_objects(scan)) {
    co_await destroy_by_apply(ctx, info, scan, errors);  // The applier prunes; confirm later.
    co_return TerminationProgress::kTerminating;
  }
  if (ctx.versions.shared()) {
    co_await delete_inventories(ctx, info, scan, errors);
    co_return TerminationProgress::kTerminating;  // Confirmed when none is found.
  }
  ctx.observe().on_namespace_delete(info.name, info.namespace_);
  if (auto error = co_await ctx.k8s.delete_namespace(info.namespace_)) {
    if (error->rfind("Conflict", 0) != 0) errors.push_back(*error);
  }
  co_return TerminationProgress::kTerminating;  // Confirmed when the namespace is gone.
}

Task<Errors> handle_a3(AgentContext& ctx, ReconcilerState& state, WorkspaceRailsInfo info) {
  WSIM_ASSERT(ctx.versions.agent_inventory_termination());
  const WorkspaceKey key{info.name, info.namespace_};
  if (info.actual_state == State::kTerminated) {
    acknowledge(ctx, state, key, info.actual_state);
    co_return Errors{};
  }
  if (ctx.versions.a3_termination == A3Termination::kPlan) {
    Errors errors;
    const TerminationProgress progress = co_await plan_a3(ctx, info, errors);
    track(ctx, state, key, progress);
    co_return errors;
  }
  InventoryScan scan = co_await scan_inventories(ctx, info);
  Errors errors = scan.errors;
  if (!errors.empty()) {
    // An unreadable inventory is not a missing one (the A0 NamespaceExists mistake, §7.1).
    track(ctx, state, key, TerminationProgress::kTerminating);
    co_return errors;
  }
  const bool have_inventories = !scan.inventories.empty();
  if (have_inventories && scan.found == 0) {
    ctx.hit(&GitlabProbes::inventory_missing_on_terminate);
    if (ctx.versions.missing_inventory == MissingInventoryRule::kTerminatingForever) {
      track(ctx, state, key, TerminationProgress::kTerminating);
      co_return errors;
    }
    if (ctx.versions.shared()) {
      track(ctx, state, key, TerminationProgress::kTerminated);
      co_return errors;
    }
  }
  if (ctx.versions.a3_termination == A3Termination::kInventoryFirst && scan.found > 0) {
    // §8 item 3, naive: drop the record first; the tracked objects were to be deleted "next".
    co_await delete_inventories(ctx, info, scan, errors);
    track(ctx, state, key, TerminationProgress::kTerminating);
    co_return errors;
  }
  std::size_t remaining = 0;
  if (ctx.versions.a3_termination == A3Termination::kDestroyByApply) {
    remaining = co_await destroy_by_apply(ctx, info, scan, errors);
  } else {
    remaining = co_await delete_tracked_objects(ctx, info, scan, errors);
  }
  if (remaining > 0) {
    track(ctx, state, key, TerminationProgress::kTerminating);
    co_return errors;
  }
  const TerminationProgress progress = co_await finish_a3(ctx, info, scan, errors);
  track(ctx, state, key, progress);
  co_return errors;
}

}  // namespace

Task<std::vector<std::string>> handle_desired_state_is_terminated(AgentContext& ctx,
                                                                  ReconcilerState& state,
                                                                  WorkspaceRailsInfo info) {
  WSIM_ASSERT(info.desired_state == State::kTerminated);
  if (ctx.versions.agent_pre_fix()) co_return co_await handle_pre_fix(ctx, state, std::move(info));
  if (!ctx.versions.agent_inventory_termination()) {
    co_return co_await handle_post_fix(ctx, state, std::move(info));
  }
  co_return co_await handle_a3(ctx, state, std::move(info));
}

}  // namespace wsim::gitlab
