// lanes.h: actor name prefixes to lanes.
#include "sim/run/lanes.h"

#include "sim/core/assert.h"
#include "sim/run/trace_view.h"

namespace wsim::run {

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string_view prefix(std::string_view actor) { return actor_prefix(actor); }

}  // namespace

std::string_view lane_name(Lane lane) {
  switch (lane) {
    case Lane::kUser:
      return "user";
    case Lane::kControlPlane:
      return "control plane";
    case Lane::kAgent:
      return "agent";
    case Lane::kApiServer:
      return "API server";
    case Lane::kKubeControllers:
      return "kube controllers";
    case Lane::kKubelet:
      return "kubelet";
    case Lane::kWsDaemon:
      return "ws-daemon";
    case Lane::kStorage:
      return "storage";
    case Lane::kOther:
      return "other";
    case Lane::kHarness:
      return "wsim";
  }
  WSIM_ASSERT_MSG(false, "unknown lane " << static_cast<int>(lane));
  return "other";
}

Lane generic_lane(std::string_view actor) {
  const std::string_view p = prefix(actor);
  if (p == "user" || p == "kubectl" || p == "admin") return Lane::kUser;
  if (p == "apiserver" || p == "kube-apiserver" || p == "etcd") return Lane::kApiServer;
  if (p == "scheduler" || ends_with(p, "-controller") || p == "garbage-collector" ||
      p == "node-labeler" || p == "node-lifecycle" || p == "controller-manager") {
    return Lane::kKubeControllers;
  }
  if (p == "kubelet") return Lane::kKubelet;
  if (p == "wsim" || p == "monitor") return Lane::kHarness;
  return Lane::kOther;
}

Lane lane_of_role(ActorRole role) {
  switch (role) {
    case ActorRole::kUser:
      return Lane::kUser;
    case ActorRole::kControlPlane:
      return Lane::kControlPlane;
    case ActorRole::kAgent:
      return Lane::kAgent;
    case ActorRole::kNodeDaemon:
      return Lane::kWsDaemon;
    case ActorRole::kStorage:
      return Lane::kStorage;
  }
  WSIM_ASSERT(false);
  return Lane::kOther;
}

LaneMap::LaneMap(const System& system) {
  for (const ActorLane& lane : system.actor_lanes()) {
    WSIM_ASSERT_MSG(!lane.actor_prefix.empty() && lane.actor_prefix.find('/') == std::string::npos,
                    system.name() << " declares the actor prefix '" << lane.actor_prefix << "'");
    declared_.emplace_back(lane.actor_prefix, lane_of_role(lane.role));
  }
}

Lane LaneMap::of(std::string_view actor) const {
  const std::string_view p = prefix(actor);
  for (const auto& [declared, lane] : declared_) {
    WSIM_ASSERT(!declared.empty());  // Paired with the constructor's check.
    if (p == declared) return lane;
  }
  return generic_lane(actor);
}

}  // namespace wsim::run
