// The `workspaces` table of one agent, with the model callbacks of docs/systems/gitlab.md §3:
//   - before_save: new record or desired_state changed → desired_state_updated_at = now;
//   - R3 before_save: new record or actual_state changed → actual_state_updated_at = now;
//   - R2+ validation: a persisted row whose desired_state was Terminated cannot change it.
//
// Every write goes through save() (one statement = one atomic step; there is no transaction
// around the reconcile pipeline, §4.1) or touch_returned() (one UPDATE for all returned rows,
// §4.6). A RowObserver sees (before, after) of every write: the invariants are incremental.
// Single-threaded; rows are kept in id order.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/gitlab/rails/workspace_row.h"
#include "model/gitlab/versions.h"

namespace wsim::gitlab {

// Called after every row write. `before` is nullopt for an insert.
using RowObserver =
    std::function<void(const std::optional<WorkspaceRow>& before, const WorkspaceRow& after)>;

class WorkspacesTable {
 public:
  explicit WorkspacesTable(RailsVersion version) : WorkspacesTable(version, version) {}
  // `desired_compare_version`: the version whose desired_state_updated_at comparison the finder
  // uses (Versions::desired_compare_version).
  WorkspacesTable(RailsVersion version, RailsVersion desired_compare_version)
      : version_(version), desired_compare_version_(desired_compare_version) {
    // Only the R3 counterfactual compares with an older version's `>=` (versions.h).
    WSIM_ASSERT(desired_compare_version_ <= version_);
  }

  void set_observer(RowObserver observer) { observer_ = std::move(observer); }

  // Inserts a new row (desired Running, actual CreationRequested, timestamps = now_ms).
  // REQUIRES: no row with this name exists. Returns the new row's id.
  std::int64_t insert(const std::string& name, const std::string& namespace_, TimeMs now_ms);

  // Saves `row` over the stored row with the same id, running the before_save callbacks and the
  // R2+ permanent-termination validation. Returns false (and stores nothing) on a validation
  // error, like `save` (the updater's `save!` never hits it: it does not change a Terminated
  // desired state).
  bool save(WorkspaceRow row, TimeMs now_ms);

  // `touch_all(:responded_to_agent_at)` on the given ids with one timestamp; R2+ also resets
  // force_include_all_resources (§4.6, §4.1 step 10).
  void touch_returned(const std::vector<std::int64_t>& ids, TimeMs now_ms);

  const WorkspaceRow* find_by_name(const std::string& name) const;
  const WorkspaceRow* find_by_id(std::int64_t id) const;
  const WorkspaceRow* find_by_namespace(const std::string& namespace_) const;
  const std::vector<WorkspaceRow>& rows() const { return rows_; }
  RailsVersion version() const { return version_; }
  RailsVersion desired_compare_version() const { return desired_compare_version_; }

 private:
  WorkspaceRow* mutable_by_id(std::int64_t id);
  void notify(const std::optional<WorkspaceRow>& before, const WorkspaceRow& after) const;

  RailsVersion version_;
  RailsVersion desired_compare_version_;
  std::vector<WorkspaceRow> rows_;
  std::int64_t next_id_ = 1;
  RowObserver observer_;
};

}  // namespace wsim::gitlab
