// Not a port: see content.h [invented].
#include "model/gitpod/world/content.h"

#include <set>

#include "sim/core/assert.h"

namespace wsim::gitpod {

const char* destroy_cause_name(DestroyCause cause) {
  switch (cause) {
    case DestroyCause::kDaemonDelete:
      return "ws-daemon delete";
    case DestroyCause::kDaemonWipe:
      return "ws-daemon wipe";
    case DestroyCause::kNodeDeleted:
      return "node deleted";
    case DestroyCause::kOverwrite:
      return "backup overwritten";
    case DestroyCause::kReinit:
      return "content re-initialized";
  }
  WSIM_ASSERT_MSG(false, "destroy cause " << static_cast<int>(cause) << " has no name");
  return "?";
}

void ContentStore::add_node(const std::string& node) {
  WSIM_ASSERT(!node.empty());
  disks_.try_emplace(node);
}

Session& ContentStore::create_session(const std::string& node, const std::string& instance,
                                      const std::string& workspace_id) {
  WSIM_ASSERT_MSG(has_node(node), "no disk for node " << node);
  WSIM_ASSERT(!instance.empty());
  WSIM_ASSERT(!workspace_id.empty());
  Disk& disk = disks_[node];
  WSIM_ASSERT_MSG(disk.count(instance) == 0, "session " << instance << " exists on " << node);
  Session session;
  session.workspace_id = workspace_id;
  session.instance = instance;
  const std::optional<Backup> restored = backup(workspace_id);
  if (restored.has_value()) {
    session.version = restored->version;
    session.intact = restored->intact;
  }
  auto [it, inserted] = disk.emplace(instance, session);
  WSIM_ASSERT(inserted);
  WSIM_ASSERT(sessions_by_workspace_[workspace_id].emplace(node, instance).second);
  return it->second;
}

Session* ContentStore::session(const std::string& node, const std::string& instance) {
  WSIM_ASSERT(!instance.empty());
  auto disk = disks_.find(node);
  if (disk == disks_.end()) return nullptr;
  auto it = disk->second.find(instance);
  if (it == disk->second.end()) return nullptr;
  WSIM_ASSERT_EQ(it->second.instance, instance);  // A disk is keyed by its sessions' instances.
  return &it->second;
}

const Session* ContentStore::session(const std::string& node, const std::string& instance) const {
  WSIM_ASSERT(!instance.empty());
  auto disk = disks_.find(node);
  if (disk == disks_.end()) return nullptr;
  auto it = disk->second.find(instance);
  if (it == disk->second.end()) return nullptr;
  WSIM_ASSERT_EQ(it->second.instance, instance);
  return &it->second;
}

void ContentStore::destroy_session(const std::string& node, const std::string& instance,
                                   DestroyCause cause) {
  WSIM_ASSERT(cause != DestroyCause::kOverwrite);
  Session* s = session(node, instance);
  if (s == nullptr) return;
  if (observer_) observer_(cause, node, instance);
  auto indexed = sessions_by_workspace_.find(s->workspace_id);
  WSIM_ASSERT(indexed != sessions_by_workspace_.end());
  WSIM_ASSERT_EQ(indexed->second.erase(std::make_pair(node, instance)), 1u);
  if (indexed->second.empty()) sessions_by_workspace_.erase(indexed);
  WSIM_ASSERT_EQ(disks_[node].erase(instance), 1u);
  WSIM_ASSERT(session(node, instance) == nullptr);
}

void ContentStore::delete_node(const std::string& node) {
  WSIM_ASSERT(!node.empty());
  auto disk = disks_.find(node);
  if (disk == disks_.end()) return;
  std::vector<std::string> instances;
  for (const auto& [instance, session] : disk->second) instances.push_back(instance);
  for (const std::string& instance : instances) {
    destroy_session(node, instance, DestroyCause::kNodeDeleted);
  }
  disks_.erase(node);
  WSIM_ASSERT(!has_node(node));
}

std::vector<std::pair<std::string, const Session*>> ContentStore::sessions_of(
    const std::string& workspace_id) const {
  std::vector<std::pair<std::string, const Session*>> out;
  auto indexed = sessions_by_workspace_.find(workspace_id);
  if (indexed == sessions_by_workspace_.end()) return out;
  for (const auto& [node, instance] : indexed->second) {  // (node, instance) order, as before.
    const Session* s = session(node, instance);
    WSIM_ASSERT(s != nullptr);
    WSIM_ASSERT_EQ(s->workspace_id, workspace_id);
    out.emplace_back(node, s);
  }
  return out;
}

std::int64_t ContentStore::write(const std::string& node, const std::string& instance) {
  Session* s = session(node, instance);
  WSIM_ASSERT(s != nullptr);
  WSIM_ASSERT(s->initialized);
  WSIM_ASSERT(s->intact);
  std::int64_t& latest = latest_written_[s->workspace_id];
  const std::int64_t before = latest;
  // A new instance restores the last backup; a write makes it the newest version there is.
  s->version = (latest > s->version ? latest : s->version) + 1;
  latest = s->version;
  WSIM_ASSERT_GT(latest, before);  // The newest version written only counts up.
  return s->version;
}

std::int64_t ContentStore::latest_written(const std::string& workspace_id) const {
  auto it = latest_written_.find(workspace_id);
  if (it == latest_written_.end()) return 0;
  WSIM_ASSERT_GT(it->second, 0);  // Set by write(), which counts from 1.
  return it->second;
}

void ContentStore::upload(const std::string& workspace_id, const Session& session) {
  WSIM_ASSERT(!workspace_id.empty());
  WSIM_ASSERT_EQ(session.workspace_id, workspace_id);
  if (storage_.count(workspace_id) > 0 && observer_) {
    observer_(DestroyCause::kOverwrite, "", session.instance);
  }
  storage_[workspace_id] = Backup{session.version, session.intact, session.instance};
  ++uploads_;
}

std::optional<Backup> ContentStore::backup(const std::string& workspace_id) const {
  auto it = storage_.find(workspace_id);
  if (it == storage_.end()) return std::nullopt;
  WSIM_ASSERT_GE(it->second.version, 0);
  return it->second;
}

std::vector<std::string> ContentStore::workspace_ids() const {
  std::set<std::string> ids;
  for (const auto& [id, backup] : storage_) ids.insert(id);
  for (const auto& [node, disk] : disks_) {
    for (const auto& [instance, session] : disk) ids.insert(session.workspace_id);
  }
  for (const auto& [id, latest] : latest_written_) ids.insert(id);
  return std::vector<std::string>(ids.begin(), ids.end());
}

}  // namespace wsim::gitpod
