#include "sim/core/fault.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace wsim {

FaultId Faults::declare(std::string name, std::string description, Ratio enable, Ratio fire) {
  auto it = id_by_name_.find(name);
  if (it != id_by_name_.end()) return it->second;
  const auto id = static_cast<FaultId>(points_.size());
  id_by_name_.emplace(name, id);
  points_.push_back(FaultPoint{std::move(name), std::move(description), enable, fire});
  return id;
}

bool Faults::find(const std::string& name, FaultId& id) const {
  auto it = id_by_name_.find(name);
  if (it == id_by_name_.end()) return false;
  id = it->second;
  return true;
}

void Faults::force(FaultId id, bool enabled, Ratio fire) {
  WSIM_ASSERT_LT(id, points_.size());
  points_[id].enabled = enabled;
  points_[id].forced = true;
  points_[id].fire = fire;
}

void Faults::draw_swarm(ChoiceStream stream) {
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
  if (fired) {
    ++point.fired;
    fired_pending_.push_back(Firing{current_step(), id});
  }
  return fired;
}

std::vector<std::string> Faults::take_fired(std::uint64_t step) {
  std::vector<std::string> names;
  for (const Firing& firing : fired_pending_) {
    if (firing.step != step) continue;
    const std::string& name = points_[firing.id].name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  fired_pending_.clear();
  return names;
}

std::string Faults::describe_swarm() const {
  std::string out;
  for (const auto& [name, id] : id_by_name_) {
    if (!out.empty()) out += ' ';
    out += name;
    out += points_[id].enabled ? "=on" : "=off";
  }
  return out;
}

}  // namespace wsim
