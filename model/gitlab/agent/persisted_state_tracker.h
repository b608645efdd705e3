// persistedStateTracker: `map[name]resourceVersion` (docs/systems/gitlab.md §5.3, agent
// `persisted_state.go` @ 9743dcf6).
//   - record_version(info): on EVERY rails info processed, store its deployment_resource_version
//     (possibly "");
//   - is_persisted(name, rv): a stored value exists and equals rv;
//   - erase(name): only in the Terminated-acknowledgement path.
// Keyed by name only (§9.6). Lives as long as one reconciler (a full sync starts empty).
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <map>
#include <string>

#include "sim/core/assert.h"

namespace wsim::gitlab {

class PersistedStateTracker {
 public:
  void record_version(const std::string& name, const std::string& resource_version) {
    WSIM_ASSERT(!name.empty());
    versions_[name] = resource_version;
  }
  bool is_persisted(const std::string& name, const std::string& resource_version) const {
    WSIM_ASSERT(!name.empty());  // A cached Deployment's name (request_builder.cc).
    auto it = versions_.find(name);
    return it != versions_.end() && it->second == resource_version;
  }
  void erase(const std::string& name) {
    WSIM_ASSERT(!name.empty());
    versions_.erase(name);
  }
  std::size_t size() const { return versions_.size(); }
  bool contains(const std::string& name) const { return versions_.count(name) > 0; }

 private:
  std::map<std::string, std::string> versions_;
};

}  // namespace wsim::gitlab
