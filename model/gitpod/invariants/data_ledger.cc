// Not a port: see data_ledger.h.
#include "model/gitpod/invariants/data_ledger.h"

#include "sim/core/assert.h"

namespace wsim::gitpod {

DataLedger::DataLedger(const ContentStore& content, std::function<bool(const std::string&)> managed)
    : content_(content), managed_(std::move(managed)) {
  WSIM_ASSERT(static_cast<bool>(managed_));
}

void DataLedger::on_destroy(DestroyCause cause, const std::string& instance) {
  auto it = instance_ws_.find(instance);
  if (it == instance_ws_.end()) return;  // Never written: nothing to lose.
  last_cause_[it->second] = destroy_cause_name(cause);
  dirty_.insert(it->second);
  WSIM_ASSERT(!it->second.empty());  // on_write records non-empty workspace ids only.
}

void DataLedger::on_write(const std::string& workspace_id, const std::string& instance) {
  WSIM_ASSERT(!workspace_id.empty());
  WSIM_ASSERT(!instance.empty());
  last_writer_[workspace_id] = instance;
  instance_ws_[instance] = workspace_id;
  lost_[workspace_id] = false;  // The newest version exists again (on the writer's disk).
  dirty_.insert(workspace_id);
}

void DataLedger::on_unmanaged(const std::string& instance) {
  WSIM_ASSERT(!instance.empty());
  auto it = instance_ws_.find(instance);
  if (it == instance_ws_.end()) return;
  if (last_cause_.count(it->second) == 0) last_cause_[it->second] = "orphaned";
  dirty_.insert(it->second);
}

void DataLedger::on_marker(const std::string& instance, const std::string& marker) {
  WSIM_ASSERT(!marker.empty());
  markers_.try_emplace(instance, marker);
  auto it = instance_ws_.find(instance);
  if (it != instance_ws_.end()) dirty_.insert(it->second);
}

bool DataLedger::recoverable(const std::string& workspace_id) const {
  const std::int64_t latest = content_.latest_written(workspace_id);
  WSIM_ASSERT_GE(latest, 0);  // Versions count up from 0 (content.h).
  if (latest == 0) return true;
  const std::optional<Backup> backup = content_.backup(workspace_id);
  if (backup.has_value() && backup->intact && backup->version >= latest) return true;
  for (const auto& [node, session] : content_.sessions_of(workspace_id)) {
    if (session->intact && session->version >= latest && managed_(session->instance)) return true;
  }
  return false;
}

std::string DataLedger::cause_of(const std::string& workspace_id) const {
  WSIM_ASSERT(!workspace_id.empty());
  auto it = last_cause_.find(workspace_id);
  return it == last_cause_.end() ? std::string("orphaned") : it->second;
}

std::vector<DataLoss> DataLedger::evaluate(TimeMs now_ms) {
  std::vector<DataLoss> out;
  // Pending node-deletion losses: a marker acknowledges them, losing management settles them.
  for (auto it = pending_.begin(); it != pending_.end();) {
    auto marker = markers_.find(it->instance);
    if (marker != markers_.end() || !managed_(it->instance)) {
      it->acknowledged = marker != markers_.end();
      if (it->acknowledged) it->marker = marker->second;
      out.push_back(*it);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  const std::set<std::string> dirty = std::move(dirty_);
  dirty_.clear();
  for (const std::string& id : dirty) {
    if (lost_[id] || recoverable(id)) {
      last_cause_.erase(id);
      continue;
    }
    lost_[id] = true;
    WSIM_ASSERT(last_writer_.count(id) > 0);  // Only written workspaces are dirty.
    DataLoss loss;
    loss.workspace_id = id;
    loss.instance = last_writer_[id];
    loss.lost_version = content_.latest_written(id);
    WSIM_ASSERT_GT(loss.lost_version, 0);  // recoverable() holds while nothing was written.
    loss.cause = cause_of(id);
    loss.at_ms = now_ms;
    last_cause_.erase(id);
    auto marker = markers_.find(loss.instance);
    if (marker == markers_.end() && loss.cause == destroy_cause_name(DestroyCause::kNodeDeleted) &&
        managed_(loss.instance)) {
      pending_.push_back(loss);
      continue;
    }
    loss.acknowledged = marker != markers_.end();
    if (loss.acknowledged) loss.marker = marker->second;
    out.push_back(loss);
  }
  for (const DataLoss& loss : out) losses_.push_back(loss);
  return out;
}

std::vector<DataLoss> DataLedger::finish(TimeMs now_ms) {
  std::vector<DataLoss> out = evaluate(now_ms);
  for (DataLoss& loss : pending_) {
    loss.acknowledged = false;
    out.push_back(loss);
    losses_.push_back(loss);
  }
  pending_.clear();
  WSIM_ASSERT_GE(losses_.size(), out.size());  // Every loss returned is also kept for the report.
  return out;
}

}  // namespace wsim::gitpod
