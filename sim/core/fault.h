// Fault points, FoundationDB "buggify" style, on two levels (docs/architecture.md §2):
//  1. per run: each declared point is enabled with its `enable` ratio (swarm testing: different
//     runs stress different faults) — drawn once, in name order, by draw_swarm();
//  2. per evaluation: an enabled point fires with its `fire` ratio.
// A disabled point never consumes a choice, so enabling one fault does not shift the others.
// heal() disables every point (the heal-and-settle phase of docs/architecture.md §5).
// Incidents (issue #12 item 3, correlated fault bursts): a run may have a few windows of virtual
// time in which every enabled point fires at least with kIncidentFire — an API server or a node
// having a bad minute — so that rare coincidences of faults on one object become common. They
// are drawn per run by draw_incidents() on their own stream (a run without incidents draws
// nothing else, so its other choices are unchanged) and printed with the swarm.
// Two swarm streams: the points that existed when the seed-pinned corpus was recorded draw from
// "swarm"; points added since (SwarmStream::kSecond) draw from "swarm2", after them, so adding one
// changes no run in which it is off (with the seed backend; a tape serves every stream from one
// cursor).
// Pins (issue #30 item 5; docs/shrinking.md §6): a scenario may pin a point to one moment: it
// fires, without a draw, exactly at the N-th matching occurrence inside a window of virtual time.
// An occurrence of a *request point* (one the API server evaluates per request: set_per_request)
// is an API request reaching the server that matches the pin's verb, object and requester
// (observe_request, called once per request); an occurrence of any other point is an evaluation
// of fires(). A pinned point is forced off everywhere else unless the scenario also forces it
// (force(): then that decides the other moments). A run without pins draws exactly what it drew
// before pins existed.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/choice.h"

namespace wsim {

using FaultId = std::uint32_t;

// Which swarm stream draws a point's per-run enable decision (see the top of this file).
enum class SwarmStream : std::uint8_t { kFirst, kSecond };

struct FaultPoint {
  std::string name;         // Stable id, e.g. "kube.api.conflict".
  std::string description;  // One line for `wsim list`.
  Ratio enable;             // Probability that a run enables it.
  Ratio fire;               // Probability that an enabled point fires per evaluation.
  bool enabled = false;
  bool forced = false;       // Set by the scenario; draw_swarm leaves it alone.
  bool per_request = false;  // Evaluated per API request (pins count requests: set_per_request).
  SwarmStream swarm = SwarmStream::kFirst;
  std::uint64_t evaluations = 0;
  std::uint64_t fired = 0;
};

// One incident: [start_ms, end_ms) of virtual time.
struct Incident {
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
};

// A pinned firing (see the top of this file). The target fields apply to request points only.
struct FaultPin {
  std::string verb;    // The request's verb ("create"); empty = any.
  std::string object;  // The request's object, "Kind/namespace/name" (kube::request_object).
  std::string actor;   // The requesting identity ("ws-manager"); empty = any.
  std::uint32_t occurrence = 1;  // The N-th matching occurrence inside the window, 1-based.
  std::int64_t from_ms = 0;      // Window [from_ms, until_ms) of virtual time.
  std::int64_t until_ms = std::numeric_limits<std::int64_t>::max();
};

// What an API request is, for request pins. Views valid for the call.
struct FaultRequest {
  std::string_view verb;
  std::string_view object;
  std::string_view actor;
};

// Minimum fire ratio of an enabled point inside an incident.
inline constexpr Ratio kIncidentFire{1, 4};

class Faults {
 public:
  // Declares a point (before draw_swarm). Declaring a name twice returns the existing id.
  // New points are declared with SwarmStream::kSecond (see the top of this file).
  FaultId declare(std::string name, std::string description, Ratio enable, Ratio fire,
                  SwarmStream swarm = SwarmStream::kFirst);
  // Finds a point by name; returns false if it was never declared.
  bool find(const std::string& name, FaultId& id) const;

  // Scenario override: enable/disable a point for this run, optionally with a new fire ratio.
  void force(FaultId id, bool enabled, Ratio fire);
  void force(FaultId id, bool enabled) {
    WSIM_ASSERT_LT(id, points_.size());
    force(id, enabled, points_[id].fire);
  }

  // Pins `id` to one moment (see the top of this file); a point not forced before is forced off
  // for every other moment. REQUIRES: pin.occurrence >= 1, pin.from_ms < pin.until_ms.
  void pin(FaultId id, FaultPin pin);
  bool has_pins() const { return !pins_.empty(); }
  // The number of pins of `id` (the swarm print-out).
  std::size_t pin_count(FaultId id) const;
  // Marks `id` as evaluated per API request: its pins count requests (observe_request), not
  // evaluations. The API server does this for the points of its interceptor rules.
  void set_per_request(FaultId id);
  // An API request reached the server (before its faults are evaluated): counts it for every
  // request pin it matches and arms the pin whose N-th it is; an armed pin fires at the next
  // fires() of its point and disarms at the next request. Cheap no-op without pins.
  void observe_request(const FaultRequest& request);

  // Draws the per-run enable decision of every non-forced point: those of SwarmStream::kFirst in
  // name order from `first`, then those of kSecond in name order from `second`.
  void draw_swarm(ChoiceStream first, ChoiceStream second);
  // Both groups from one stream (tests).
  void draw_swarm(ChoiceStream stream) { draw_swarm(stream, stream); }
  // Incidents: with ratio `enable`, 1–4 windows of 2–60 s placed uniformly in
  // [0, fault_phase_ms); otherwise none. `force` = true/false skips the enable draw.
  // fires() reads the time from the clock set_clock() gave (Sim: the event loop's).
  void draw_incidents(ChoiceStream stream, std::int64_t fault_phase_ms, Ratio enable,
                      std::optional<bool> force = std::nullopt);
  // The virtual time incidents are judged at; must outlive this. Unset: no incident applies.
  void set_clock(const std::int64_t* now_ms) {
    WSIM_ASSERT(now_ms != nullptr);
    now_ms_ = now_ms;
  }
  const std::vector<Incident>& incidents() const { return incidents_; }
  // "none" or "3: 13m02s+41s, ..." for the swarm print-out.
  std::string describe_incidents() const;
  // The index in incidents() of the incident under way now, or -1 (also after heal()).
  int current_incident() const;
  bool in_incident() const { return current_incident() >= 0; }
  // Pacing of the actors that generate faults and user actions (issue #12 item 3: a bad minute
  // is also a busy minute): `normal_ms` cut short so that the actor wakes at the start of the
  // next incident if one starts before. 0 < result <= normal_ms. Callers draw their gap inside an
  // incident themselves (in_incident()), so a run without incidents draws what it always drew.
  std::int64_t until_next_incident(std::int64_t normal_ms) const;
  // Disables every point (no faults from now on).
  void heal();
  bool healed() const { return healed_; }

  // Per-evaluation: true if a pin of the point fires now (no draw), else if the point is enabled
  // and fires now.
  bool fires(FaultId id, ChoiceStream& stream);
  bool enabled(FaultId id) const {
    WSIM_ASSERT_LT(id, points_.size());
    return !healed_ && points_[id].enabled;
  }

  const FaultPoint& point(FaultId id) const {
    WSIM_ASSERT_LT(id, points_.size());
    return points_[id];
  }
  std::size_t size() const { return points_.size(); }
  // "name=on/off" for every point in name order (printed at the start of a run).
  std::string describe_swarm() const;

  // Where fires() stamps a firing: the event loop's step counter (Sim sets it). Unset, every
  // firing carries step 0.
  void set_step_counter(std::function<std::uint64_t()> counter) {
    WSIM_ASSERT(counter);
    step_ = std::move(counter);
  }
  // The names of the points that fired during step `step`, in firing order without repeats, and
  // forgets every pending firing (a firing of an earlier step that no trace event showed is
  // dropped, so it is never pinned on another actor's later event).
  std::vector<std::string> take_fired(std::uint64_t step);
  std::uint64_t current_step() const { return step_ ? step_() : 0; }

 private:
  struct Firing {
    std::uint64_t step;
    FaultId id;
  };
  struct Pinned {
    FaultId id;
    FaultPin pin;
    std::uint32_t seen = 0;  // Matching occurrences so far.
    bool armed = false;      // Request pins: the request under evaluation is the N-th.
  };
  bool matches(const Pinned& pinned, const FaultRequest& request) const;
  bool in_window(const FaultPin& pin) const;
  // True if a pin of `id` fires at this evaluation (counting the evaluation for the others).
  bool pinned_fires(FaultId id);
  void note_firing(FaultId id);
  std::vector<FaultPoint> points_;
  std::vector<Pinned> pins_;         // In the scenario's order.
  std::vector<Incident> incidents_;  // Sorted by start, disjoint.
  const std::int64_t* now_ms_ = nullptr;
  std::vector<Firing> fired_pending_;
  std::function<std::uint64_t()> step_;
  std::map<std::string, FaultId> id_by_name_;
  bool healed_ = false;
};

}  // namespace wsim
