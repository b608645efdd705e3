// Fault points (fault.h): declaration, the per-run swarm and incident draws, pins, and the
// per-evaluation firing decision.
#include "sim/core/fault.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace wsim {

FaultId Faults::declare(std::string name, std::string description, Ratio enable, Ratio fire,
                        SwarmStream swarm) {
  WSIM_ASSERT_MSG(!name.empty(), "a fault point needs a dotted name");
  WSIM_ASSERT_GT(enable.den, 0u);
  WSIM_ASSERT_LE(enable.num, enable.den);
  WSIM_ASSERT_GT(fire.den, 0u);
  WSIM_ASSERT_LE(fire.num, fire.den);
  auto it = id_by_name_.find(name);
  if (it != id_by_name_.end()) {
    WSIM_ASSERT_LT(it->second, points_.size());
    WSIM_ASSERT_MSG(points_[it->second].swarm == swarm,
                    "fault point " << name << " declared on two swarm streams");
    return it->second;
  }
  const auto id = static_cast<FaultId>(points_.size());
  id_by_name_.emplace(name, id);
  points_.push_back(FaultPoint{std::move(name), std::move(description), enable, fire});
  points_.back().swarm = swarm;
  WSIM_ASSERT_EQ(points_.size(), id_by_name_.size());
  return id;
}

bool Faults::find(const std::string& name, FaultId& id) const {
  auto it = id_by_name_.find(name);
  if (it == id_by_name_.end()) return false;
  id = it->second;
  WSIM_ASSERT_LT(id, points_.size());
  WSIM_ASSERT_EQ(points_[id].name, name);  // The index and the point agree on the name.
  return true;
}

void Faults::force(FaultId id, bool enabled, Ratio fire) {
  WSIM_ASSERT_LT(id, points_.size());
  WSIM_ASSERT_MSG(!healed_, "overrides are forced before the fault phase, never after heal");
  WSIM_ASSERT_GT(fire.den, 0u);
  WSIM_ASSERT_LE(fire.num, fire.den);
  points_[id].enabled = enabled;
  points_[id].forced = true;
  points_[id].fire = fire;
}

void Faults::pin(FaultId id, FaultPin pin) {
  WSIM_ASSERT_LT(id, points_.size());
  WSIM_ASSERT_MSG(!healed_, "pins are set before the fault phase, never after heal");
  WSIM_ASSERT_GE(pin.occurrence, 1u);
  WSIM_ASSERT_LT(pin.from_ms, pin.until_ms);
  FaultPoint& point = points_[id];
  // Pinned only: off at every other moment (an unpinned override forced before decides instead).
  if (!point.forced) {
    point.forced = true;
    point.enabled = false;
  }
  pins_.push_back(Pinned{id, std::move(pin)});
}

std::size_t Faults::pin_count(FaultId id) const {
  WSIM_ASSERT_LT(id, points_.size());
  return static_cast<std::size_t>(std::count_if(
      pins_.begin(), pins_.end(), [id](const Pinned& pinned) { return pinned.id == id; }));
}

void Faults::set_per_request(FaultId id) {
  WSIM_ASSERT_LT(id, points_.size());
  points_[id].per_request = true;
}

bool Faults::in_window(const FaultPin& pin) const {
  WSIM_ASSERT_LT(pin.from_ms, pin.until_ms);  // Paired with pin()'s check.
  const std::int64_t now = now_ms_ != nullptr ? *now_ms_ : 0;
  return pin.from_ms <= now && now < pin.until_ms;
}

bool Faults::matches(const Pinned& pinned, const FaultRequest& request) const {
  WSIM_ASSERT_LT(pinned.id, points_.size());
  WSIM_ASSERT(points_[pinned.id].per_request);  // Only request pins match requests.
  const FaultPin& pin = pinned.pin;
  return (pin.verb.empty() || pin.verb == request.verb) &&
         (pin.object.empty() || pin.object == request.object) &&
         (pin.actor.empty() || pin.actor == request.actor);
}

void Faults::observe_request(const FaultRequest& request) {
  for (Pinned& pinned : pins_) {
    WSIM_ASSERT_LT(pinned.id, points_.size());
    if (!points_[pinned.id].per_request) continue;
    pinned.armed = false;  // An armed pin whose point was not evaluated for its request is spent.
    if (!in_window(pinned.pin) || !matches(pinned, request)) continue;
    ++pinned.seen;
    pinned.armed = pinned.seen == pinned.pin.occurrence;
    WSIM_ASSERT_GE(pinned.pin.occurrence, 1u);  // Else no request would ever arm it.
  }
}

bool Faults::pinned_fires(FaultId id) {
  WSIM_ASSERT_LT(id, points_.size());
  WSIM_ASSERT(!pins_.empty());
  bool fire = false;
  for (Pinned& pinned : pins_) {
    if (pinned.id != id) continue;
    if (points_[id].per_request) {
      if (pinned.armed) {
        pinned.armed = false;
        fire = true;
      }
      continue;
    }
    if (!in_window(pinned.pin)) continue;
    ++pinned.seen;
    if (pinned.seen == pinned.pin.occurrence) fire = true;
  }
  return fire;
}

void Faults::note_firing(FaultId id) {
  WSIM_ASSERT_LT(id, points_.size());
  FaultPoint& point = points_[id];
  ++point.fired;
  WSIM_ASSERT_LE(point.fired, point.evaluations);  // Every firing was counted as an evaluation.
  fired_pending_.push_back(Firing{current_step(), id});
}

void Faults::draw_swarm(ChoiceStream first, ChoiceStream second) {
  WSIM_ASSERT_MSG(!healed_, "the swarm is drawn before the fault phase, never after heal");
  WSIM_ASSERT_EQ(points_.size(), id_by_name_.size());  // The name walk reaches every point.
  // The first group exactly as before the second existed, then the second group.
  for (const SwarmStream group : {SwarmStream::kFirst, SwarmStream::kSecond}) {
    ChoiceStream& stream = group == SwarmStream::kFirst ? first : second;
    for (const auto& [name, id] : id_by_name_) {
      FaultPoint& point = points_[id];
      if (point.swarm == group && !point.forced) point.enabled = stream.chance(point.enable);
    }
  }
}

void Faults::draw_incidents(ChoiceStream stream, std::int64_t fault_phase_ms, Ratio enable,
                            std::optional<bool> force) {
  WSIM_ASSERT_GE(fault_phase_ms, 0);
  incidents_.clear();
  const bool on = force ? *force : stream.chance(enable);
  if (!on || fault_phase_ms <= 0) return;
  constexpr std::int64_t kMinLengthMs = 2'000;
  constexpr std::int64_t kMaxLengthMs = 60'000;
  const auto count = static_cast<int>(stream.range(1, 4));
  for (int i = 0; i < count; ++i) {
    const std::int64_t start_ms = stream.range(0, fault_phase_ms - 1);
    const std::int64_t length_ms = stream.range(kMinLengthMs, kMaxLengthMs);
    incidents_.push_back(Incident{start_ms, std::min(start_ms + length_ms, fault_phase_ms)});
  }
  std::sort(incidents_.begin(), incidents_.end(),
            [](const Incident& a, const Incident& b) { return a.start_ms < b.start_ms; });
  // Overlapping windows merge: the list stays sorted and disjoint.
  std::vector<Incident> merged;
  for (const Incident& incident : incidents_) {
    if (!merged.empty() && incident.start_ms <= merged.back().end_ms) {
      merged.back().end_ms = std::max(merged.back().end_ms, incident.end_ms);
    } else {
      merged.push_back(incident);
    }
  }
  incidents_ = std::move(merged);
  WSIM_ASSERT_LE(incidents_.size(), 4u);
  for (std::size_t i = 0; i < incidents_.size(); ++i) {
    WSIM_ASSERT_LT(incidents_[i].start_ms, incidents_[i].end_ms);
    WSIM_ASSERT_LE(incidents_[i].end_ms, fault_phase_ms);
    // Sorted and disjoint (current_incident() returns the first that contains now).
    if (i > 0) WSIM_ASSERT_LT(incidents_[i - 1].end_ms, incidents_[i].start_ms);
  }
}

int Faults::current_incident() const {
  WSIM_ASSERT_LE(incidents_.size(), 4u);  // Paired with draw_incidents(): at most four windows.
  if (incidents_.empty() || now_ms_ == nullptr || healed_) return -1;
  const std::int64_t now = *now_ms_;
  for (std::size_t i = 0; i < incidents_.size(); ++i) {
    if (incidents_[i].start_ms <= now && now < incidents_[i].end_ms) return static_cast<int>(i);
  }
  return -1;
}

std::int64_t Faults::until_next_incident(std::int64_t normal_ms) const {
  WSIM_ASSERT_GT(normal_ms, 0);
  if (now_ms_ == nullptr || healed_) return normal_ms;
  const std::int64_t now = *now_ms_;
  for (const Incident& incident : incidents_) {
    if (incident.start_ms > now) {
      const std::int64_t result = std::min(normal_ms, incident.start_ms - now);
      WSIM_ASSERT_GT(result, 0);
      WSIM_ASSERT_LE(result, normal_ms);
      return result;
    }
  }
  return normal_ms;
}

std::string Faults::describe_incidents() const {
  if (incidents_.empty()) return "none";
  std::string out = std::to_string(incidents_.size()) + ":";
  for (const Incident& incident : incidents_) {
    WSIM_ASSERT_LT(incident.start_ms, incident.end_ms);  // Paired with draw_incidents().
    out += " " + std::to_string(incident.start_ms / 1000) + "s+" +
           std::to_string((incident.end_ms - incident.start_ms) / 1000) + "s";
  }
  return out;
}

void Faults::heal() { healed_ = true; }

bool Faults::fires(FaultId id, ChoiceStream& stream) {
  WSIM_ASSERT_LT(id, points_.size());
  FaultPoint& point = points_[id];
  if (healed_) return false;
  if (!pins_.empty() && pinned_fires(id)) {
    ++point.evaluations;
    note_firing(id);
    return true;
  }
  if (!point.enabled) return false;
  ++point.evaluations;
  // Inside an incident an enabled point fires at least at kIncidentFire (same one draw).
  const bool boosted =
      in_incident() && point.fire.num * kIncidentFire.den < kIncidentFire.num * point.fire.den;
  const bool fired = stream.chance(boosted ? kIncidentFire : point.fire);
  if (fired) note_firing(id);
  WSIM_ASSERT_LE(point.fired, point.evaluations);
  return fired;
}

std::vector<std::string> Faults::take_fired(std::uint64_t step) {
  std::vector<std::string> names;
  for (const Firing& firing : fired_pending_) {
    WSIM_ASSERT_LE(firing.step, step);  // Steps only grow: no firing comes from a later step.
    WSIM_ASSERT_LT(firing.id, points_.size());
    if (firing.step != step) continue;
    const std::string& name = points_[firing.id].name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  fired_pending_.clear();
  WSIM_ASSERT_LE(names.size(), points_.size());  // Each fired point is named once.
  return names;
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
