#include "sim/run/signature.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/run/explain.h"
#include "sim/run/timeline_html.h"

namespace wsim::run {

namespace {

std::string_view actor_prefix(std::string_view actor) { return actor.substr(0, actor.find('/')); }

// "Pod/gitpod/ws-1" → "Pod"; a bare name (a workspace, a user) names the seed, not the bug.
std::string_view object_kind(std::string_view object) {
  if (object.empty() || !(object[0] >= 'A' && object[0] <= 'Z')) return {};
  return object.substr(0, object.find('/'));
}

// The result's class: ok, or the few results that name a situation (NotFound, AlreadyExists,
// Forbidden, Gone, Conflict), or "fail": whether a request was lost, timed out, throttled or
// answered 5xx is the swarm's choice; what the reconciler saw is that it failed.
std::string_view result_class(std::string_view result) {
  static constexpr std::string_view kOk[] = {"ok", "OK", "200", "201"};
  static constexpr std::string_view kKept[] = {"NotFound", "Gone", "AlreadyExists", "Forbidden",
                                               "Conflict"};
  if (std::find(std::begin(kOk), std::end(kOk), result) != std::end(kOk)) return "ok";
  if (std::find(std::begin(kKept), std::end(kKept), result) != std::end(kKept)) return result;
  if (result.empty()) return {};
  return "fail";
}

bool is_harness(const TraceEvent& event) { return lane_of(event.actor) == Lane::kHarness; }

// The driver's marker of a scripted event ("user stop alice scripted"): the event itself follows.
bool is_scripted_marker(const TraceEvent& event) { return event.result == "scripted"; }

// On the object's path: naming it, or naming no object at all (a channel fault such as a lost
// response concerns every object, as `wsim explain` also shows).
bool touches(const TraceEvent& event, const std::string& object) {
  if (object.empty() || event.object.empty()) return true;
  return names_object(event.object, object) || names_object(event.actor, object);
}

}  // namespace

std::string Signature::text() const {
  std::string out = invariant;
  if (!culprit.empty()) out += " @ " + culprit;
  out += " |";
  if (path.empty()) out += " -";
  for (std::size_t i = 0; i < path.size(); ++i) out += (i == 0 ? " " : "; ") + path[i];
  return out;
}

std::string normalize_event(const TraceEvent& event) {
  std::string out(actor_prefix(event.actor));
  out += " " + event.verb;
  const std::string_view kind = object_kind(event.object);
  if (!kind.empty()) out += " " + std::string(kind);
  const std::string_view result = result_class(event.result);
  if (!result.empty()) out += " " + std::string(result);
  return out;
}

std::set<std::string, std::less<>> external_actors_of(const System& system) {
  std::set<std::string, std::less<>> actors = {"user", "kubectl", "admin"};
  // A system's scripted fault actors (kubelet, link, api) are not external actions: their
  // faults are on the path as faults, their ordinary work is not.
  for (const ActionInfo& action : system.actions()) {
    if (lane_of(action.actor) == Lane::kUser) actors.insert(action.actor);
  }
  return actors;
}

Signature compute_signature(const std::set<std::string, std::less<>>& external_actors,
                            const std::vector<TraceEvent>& trace,
                            std::optional<std::size_t> culprit, const Violation& violation) {
  WSIM_ASSERT(!violation.invariant_id.empty());
  Signature signature;
  signature.invariant = violation.invariant_id;
  if (culprit) {
    WSIM_ASSERT_LT(*culprit, trace.size());
    // The harness's own events (a monitor's note) are not the culprit: the event before is.
    std::size_t at = *culprit;
    while (at > 0 && is_harness(trace[at])) --at;
    if (!is_harness(trace[at])) signature.culprit = normalize_event(trace[at]);
  }
  // "world" and empty objects name no object: every event is on the path.
  const std::string object = violation.object == "world" ? "" : violation.object;
  std::set<std::string> path;
  for (const TraceEvent& event : trace) {
    if (is_harness(event) || is_scripted_marker(event) || !touches(event, object)) continue;
    // An external action is named without its result (the reply to a user varies by seed).
    // A Conflict is routine optimistic concurrency, there or not by seed: not a mechanism.
    const bool external = external_actors.count(actor_prefix(event.actor)) > 0;
    if (external) {
      TraceEvent action = event;
      action.result.clear();
      path.insert(normalize_event(action));
    } else if (is_fault_event(event) && event.result != "Conflict") {
      path.insert(normalize_event(event));
    }
  }
  signature.path.assign(path.begin(), path.end());
  WSIM_ASSERT(std::is_sorted(signature.path.begin(), signature.path.end()));
  return signature;
}

const KnownBug* match_known(const Signature& finding, const std::vector<KnownBug>& known) {
  const KnownBug* best = nullptr;
  std::size_t best_shared = 0;
  std::size_t best_size = 1;  // best_shared / best_size is the best coverage so far.
  for (const KnownBug& bug : known) {
    const Signature& k = bug.signature;
    if (k.invariant != finding.invariant) continue;
    if (!k.culprit.empty() && !finding.culprit.empty() && k.culprit != finding.culprit) continue;
    std::vector<std::string> shared;
    std::set_intersection(k.path.begin(), k.path.end(), finding.path.begin(), finding.path.end(),
                          std::back_inserter(shared));
    const std::size_t size = std::max<std::size_t>(k.path.size(), 1);
    const std::size_t covered = k.path.empty() ? 1 : shared.size();
    if (covered * kPathCoverageDen < size * kPathCoverageNum) continue;
    // Higher coverage (covered/size), then more shared features, then corpus order.
    const std::size_t lhs = covered * best_size;
    const std::size_t rhs = best_shared * size;
    if (best == nullptr || lhs > rhs || (lhs == rhs && covered > best_shared)) {
      best = &bug;
      best_shared = covered;
      best_size = size;
    }
  }
  WSIM_ASSERT(best == nullptr || best->signature.invariant == finding.invariant);
  return best;
}

std::string known_label(const KnownBug* known) {
  return known == nullptr ? "NEW" : "known: " + known->name;
}

}  // namespace wsim::run
