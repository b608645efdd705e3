// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/rails/workspaces_table.h"

#include <algorithm>
#include <functional>

#include "sim/core/assert.h"

namespace wsim::gitlab {

std::int64_t WorkspacesTable::insert(const std::string& name, const std::string& namespace_,
                                     TimeMs now_ms) {
  WSIM_ASSERT(!name.empty());
  WSIM_ASSERT(!namespace_.empty());
  WSIM_ASSERT_MSG(find_by_name(name) == nullptr, "duplicate workspace " << name);
  WorkspaceRow row;
  row.id = next_id_++;
  row.name = name;
  row.namespace_ = namespace_;
  row.desired_state = State::kRunning;
  row.actual_state = State::kCreationRequested;
  // §3: before_save on a new record sets both *_updated_at.
  row.desired_state_updated_at = now_ms;
  row.actual_state_updated_at = now_ms;
  row.created_at = now_ms;
  rows_.push_back(row);
  // find_by_id indexes rows by id - 1: ids are dense and in insertion order.
  WSIM_ASSERT_EQ(static_cast<std::size_t>(row.id), rows_.size());
  notify(std::nullopt, rows_.back());
  return row.id;
}

bool WorkspacesTable::save(WorkspaceRow row, TimeMs now_ms) {
  WorkspaceRow* stored = mutable_by_id(row.id);
  WSIM_ASSERT_MSG(stored != nullptr, "save of unknown row " << row.id);
  WSIM_ASSERT_EQ(stored->name, row.name);
  WSIM_ASSERT_GE(now_ms, stored->created_at);  // The Rails clock never goes back.
  // §3: R2/R3 permanent termination validation (R0 only had a TODO).
  if (version_ >= RailsVersion::kR2 && stored->desired_state == State::kTerminated &&
      row.desired_state != State::kTerminated) {
    return false;
  }
  if (row.desired_state != stored->desired_state) row.desired_state_updated_at = now_ms;
  if (version_ >= RailsVersion::kR3 && row.actual_state != stored->actual_state) {
    row.actual_state_updated_at = now_ms;
  }
  const WorkspaceRow before = *stored;
  *stored = std::move(row);
  if (version_ >= RailsVersion::kR2 && before.desired_state == State::kTerminated) {
    WSIM_ASSERT(stored->desired_state == State::kTerminated);
  }
  notify(before, *stored);
  return true;
}

void WorkspacesTable::touch_returned(const std::vector<std::int64_t>& ids, TimeMs now_ms) {
  // The finder's ids (find_workspaces_to_return): strictly increasing, each row at most once.
  WSIM_ASSERT(std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end());
  WSIM_ASSERT_LE(ids.size(), rows_.size());
  for (std::int64_t id : ids) {
    WorkspaceRow* stored = mutable_by_id(id);
    WSIM_ASSERT_MSG(stored != nullptr, "touch of unknown row " << id);
    const WorkspaceRow before = *stored;
    stored->responded_to_agent_at = now_ms;
    if (version_ >= RailsVersion::kR2) stored->force_include_all_resources = false;
    notify(before, *stored);
  }
}

const WorkspaceRow* WorkspacesTable::find_by_name(const std::string& name) const {
  for (const WorkspaceRow& row : rows_) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

const WorkspaceRow* WorkspacesTable::find_by_id(std::int64_t id) const {
  if (id < 1 || id > static_cast<std::int64_t>(rows_.size())) return nullptr;
  const WorkspaceRow& row = rows_[static_cast<std::size_t>(id - 1)];
  WSIM_ASSERT_EQ(row.id, id);
  return &row;
}

const WorkspaceRow* WorkspacesTable::find_by_namespace(const std::string& namespace_) const {
  for (const WorkspaceRow& row : rows_) {
    if (row.namespace_ == namespace_) return &row;
  }
  return nullptr;
}

WorkspaceRow* WorkspacesTable::mutable_by_id(std::int64_t id) {
  return const_cast<WorkspaceRow*>(find_by_id(id));
}

void WorkspacesTable::notify(const std::optional<WorkspaceRow>& before,
                             const WorkspaceRow& after) const {
  WSIM_ASSERT_GT(after.id, 0);
  if (before) WSIM_ASSERT_EQ(before->id, after.id);  // A write never moves a row.
  if (observer_) observer_(before, after);
}

}  // namespace wsim::gitlab
