#include "sim/core/fault.h"

#include "sim/core/assert.h"

namespace wsim {

FaultId Faults::declare(std::string name, std::string description, Ratio enable, Ratio fire) {
  WSIM_ASSERT_MSG(!name.empty(), "a fault point needs a dotted name");
  WSIM_ASSERT_GT(enable.den, 0u);
  WSIM_ASSERT_LE(enable.num, enable.den);
  WSIM_ASSERT_GT(fire.den, 0u);
  WSIM_ASSERT_LE(fire.num, fire.den);
  auto it = id_by_name_.find(name);
  if (it != id_by_name_.end()) return it->second;
  const auto id = static_cast<FaultId>(points_.size());
  id_by_name_.emplace(name, id);
  points_.push_back(FaultPoint{std::move(name), std::move(description), enable, fire});
  WSIM_ASSERT_EQ(points_.size(), id_by_name_.size());
  return id;
}

bool Faults::find(const std::string& name, FaultId& id) const {
  auto it = id_by_name_.find(name);
  if (it == id_by_name_.end()) return false;
  id = it->second;
  WSIM_ASSERT_LT(id, points_.size());
  return true;
}

void Faults::force(FaultId id, bool enabled, Ratio fire) {
  WSIM_ASSERT_LT(id, points_.size());
  WSIM_ASSERT_GT(fire.den, 0u);
  WSIM_ASSERT_LE(fire.num, fire.den);
  points_[id].enabled = enabled;
  points_[id].forced = true;
  points_[id].fire = fire;
}

void Faults::draw_swarm(ChoiceStream stream) {
  WSIM_ASSERT_MSG(!healed_, "the swarm is drawn before the fault phase, never after heal");
  for (const auto& [name, id] : id_by_name_) {
    FaultPoint& point = points_[id];
    if (!point.forced) point.enabled = stream.chance(point.enable);
  }
}

void Faults::heal() { healed_ = true; }

bool Faults::fires(FaultId id, ChoiceStream& stream) {
  WSIM_ASSERT_LT(id, points_.size());
  FaultPoint& point = points_[id];
  if (healed_ || !point.enabled) return false;
  ++point.evaluations;
  const bool fired = stream.chance(point.fire);
  if (fired) ++point.fired;
  WSIM_ASSERT_LE(point.fired, point.evaluations);
  return fired;
}

std::string Faults::describe_swarm() const {
  WSIM_ASSERT_EQ(points_.size(), id_by_name_.size());
  std::string out;
  for (const auto& [name, id] : id_by_name_) {
    if (!out.empty()) out += ' ';
    out += name;
    out += points_[id].enabled ? "=on" : "=off";
  }
  return out;
}

}  // namespace wsim
