// The lanes of a run's story (timeline.html columns, explain's key events, signatures): which
// part of the world an actor belongs to, by the part of its name before the first '/'.
// TODO(issue #31): the names below are still matched here; System::actor_lanes() should supply
// them per system.
#pragma once

#include <string_view>

namespace wsim::run {

// The lanes, left to right.
enum class Lane {
  kUser,
  kControlPlane,
  kAgent,
  kApiServer,
  kKubeControllers,
  kKubelet,
  kWsDaemon,
  kStorage,
  kOther,
  kHarness,
};
inline constexpr int kLaneCount = 10;
std::string_view lane_name(Lane lane);
// The lane of an actor, by the part of its name before the first '/'.
Lane lane_of(std::string_view actor);

}  // namespace wsim::run
