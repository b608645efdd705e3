// The lanes of a run's story (timeline.html columns, explain's key events): which part of the
// world an actor belongs to, by the part of its name before the first '/'.
//
// Two sources, nothing else: the actor prefixes a system declares (System::actor_lanes, each with
// its ActorRole), and the generic actors every run has — users, kubectl and admins, the fake
// Kubernetes' parts, the harness — which generic_lane() knows. No system's names are matched
// here (issue #31: a new system brings its lanes with it).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/run/system.h"

namespace wsim::run {

// The lanes, left to right.
enum class Lane {
  kUser,
  kControlPlane,
  kAgent,
  kApiServer,
  kKubeControllers,
  kKubelet,
  kWsDaemon,  // A system's node daemon (ActorRole::kNodeDaemon).
  kStorage,
  kOther,
  kHarness,
};
inline constexpr int kLaneCount = 10;
std::string_view lane_name(Lane lane);

// The lane of a generic actor (user, kubectl, admin, the API server and kube controllers, the
// kubelet, the harness); kOther for every other actor.
Lane generic_lane(std::string_view actor);

// The lane of a declared role.
Lane lane_of_role(ActorRole role);

// The lanes of one system's runs: its declared prefixes first, then generic_lane().
class LaneMap {
 public:
  LaneMap() = default;  // Generic actors only.
  explicit LaneMap(const System& system);
  Lane of(std::string_view actor) const;

 private:
  std::vector<std::pair<std::string, Lane>> declared_;  // (actor prefix, lane), as declared.
};

}  // namespace wsim::run
