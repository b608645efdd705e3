// (name, namespace): the key of agentk's termination and error trackers (docs/systems/gitlab.md §1,
// §5.3). The persistedStateTracker is keyed by name only (§9.6). § numbers in this file refer to
// docs/systems/gitlab.md unless another document is named.
#pragma once

#include <compare>
#include <string>

namespace wsim::gitlab {

struct WorkspaceKey {
  std::string name;
  std::string namespace_;
  friend auto operator<=>(const WorkspaceKey&, const WorkspaceKey&) = default;
  friend bool operator==(const WorkspaceKey&, const WorkspaceKey&) = default;
};

}  // namespace wsim::gitlab
