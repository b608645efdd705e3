// AgentObserver: what the agent tells the invariant checker (invariants/checker.h) as it acts.
// A seam (abstract class with no-op defaults) so that the agent model never depends on the
// invariants and unit tests can pass nullptr. Every call is made at the moment the agent ISSUES
// the action (before the API call is awaited), which is what S4–S6 talk about.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/gitlab/agent/request_builder.h"
#include "model/gitlab/agent/workspace_key.h"
#include "model/gitlab/wire.h"
#include "sim/kube/object.h"

namespace wsim::gitlab {

class AgentObserver {
 public:
  virtual ~AgentObserver() = default;
  // A new reconciler (generation) replaced the old one: full sync or agent restart (§9.5).
  virtual void on_reconciler_reset(std::uint64_t generation, bool restart) {}
  virtual void on_request_built(std::uint64_t generation, const BuiltRequest& built) {}
  // The exchange ended: ok = a 201 response arrived (it is processed next).
  virtual void on_exchange(std::uint64_t generation, const RailsRequest& request, bool ok,
                           const RailsResponse& response) {}
  // Processing of one rails info starts.
  virtual void on_rails_info(std::uint64_t generation, const WorkspaceRailsInfo& info) {}
  virtual void on_namespace_create(const std::string& workspace, const std::string& namespace_) {}
  virtual void on_namespace_delete(const std::string& workspace, const std::string& namespace_) {}
  // An apply of `objects` for `workspace`; `termination` = issued by the A3 termination path.
  virtual void on_apply(const std::string& workspace, const std::vector<kube::Object>& objects,
                        bool termination) {}
  virtual void on_object_delete(const std::string& workspace, const kube::ObjectRef& ref) {}
  // A termination tracker entry was removed while processing a rails info with `rails_actual`.
  virtual void on_tracker_erase(const WorkspaceKey& key, State rails_actual) {}
  // Error tracker (S18): a new operation `version` for `key` was marked (every earlier version of
  // `key` in this generation is superseded from here on).
  virtual void on_operation_started(std::uint64_t generation, const WorkspaceKey& key,
                                    std::uint64_t version) {}
  // Error tracker (S8, S18): an operation with `version` completed (ok = no error).
  virtual void on_operation_done(std::uint64_t generation, const WorkspaceKey& key,
                                 std::uint64_t version, bool ok) {}
  // A cycle ended (after the response was processed, or after a failed exchange).
  virtual void on_cycle_done(std::uint64_t generation, bool full, bool ok) {}
};

}  // namespace wsim::gitlab
