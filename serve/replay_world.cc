// The world of a replayed run at one moment (replay_world.h, `wsim replay BUNDLE --serve`):
// record_replay() re-executes the bundle with a read-only recorder and checks its fingerprint;
// world_at() rebuilds the objects and the watch history up to a virtual time or trace event.
// Single-threaded, before the server starts.
#include "serve/replay_world.h"

#include <map>
#include <memory>
#include <utility>

#include "sim/kube/api_server.h"
#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/run/verdict.h"

namespace wsim::serve {
namespace {

bool included(const RecordedChange& change, const Moment& moment) {
  if (moment.at_ms && change.at_ms > *moment.at_ms) return false;
  if (moment.at_event && change.trace_count > *moment.at_event + 1) return false;
  return true;
}

}  // namespace

bool record_replay(const std::string& bundle_dir, ReplayRecording& recording, std::string& error) {
  run::Bundle bundle;
  if (!run::read_bundle(bundle_dir, bundle, error) ||
      !run::validate_scenario(bundle.scenario, error)) {
    return false;
  }
  recording = ReplayRecording{};
  // The previous states by resourceVersion (as World keeps them, world.cc), until the change's
  // listener call takes them.
  std::map<std::uint64_t, std::shared_ptr<const kube::Object>> previous;
  run::RunOptions options;
  options.observe_api = [&recording, &previous](kube::ApiServer& api) {
    recording.has_api_server = true;
    Sim& sim = api.sim();
    api.subscribe(
        "",
        [&previous](const kube::WatchEvent& event) {
          if (event.previous != nullptr) {
            previous[event.object.meta.resource_version] =
                std::make_shared<const kube::Object>(*event.previous);
          }
        },
        kube::ListenAt::kInsideWrite);
    api.subscribe("", [&recording, &sim, &previous](const kube::WatchEvent& event) {
      const std::uint64_t rv = event.object.meta.resource_version;
      LoggedEvent logged{rv, event.type, event.object, 0, nullptr};
      const auto found = previous.find(rv);
      if (found != previous.end()) logged.previous = found->second;
      previous.erase(previous.begin(), previous.upper_bound(rv));
      recording.changes.push_back(
          RecordedChange{sim.now_ms(), sim.trace().count(), std::move(logged)});
    });
  };
  options.tape = run::tape_of(bundle.record);
  options.keep_trace = true;
  const run::RunResult result =
      run::execute_run(*bundle.scenario.system, bundle.scenario.scenario, options);
  recording.fingerprint_matches = !bundle.has_hashes || (result.fingerprint == bundle.fingerprint &&
                                                         result.trace_hash == bundle.trace_hash);
  recording.end_ms = result.end_ms;
  recording.trace_events = result.trace_events;
  recording.verdict = run::verdict_name(result.verdict);
  return true;
}

std::unique_ptr<World> world_at(const ReplayRecording& recording, const Moment& moment,
                                std::size_t history_events, TimeMs& at_ms) {
  std::map<kube::ObjectRef, kube::Object> objects;
  std::deque<LoggedEvent> history;
  std::uint64_t rv = 0;
  std::uint64_t floor_rv = 0;
  at_ms = moment.at_ms ? *moment.at_ms : 0;
  for (const RecordedChange& change : recording.changes) {
    if (!included(change, moment)) break;
    const kube::Object& object = change.event.object;
    if (change.event.type == kube::WatchEventType::kDeleted) {
      objects.erase(kube::ObjectRef::of(object));
    } else {
      objects[kube::ObjectRef::of(object)] = object;
    }
    rv = change.event.resource_version;
    if (!moment.at_ms) at_ms = change.at_ms;
    history.push_back(change.event);
    if (history.size() > history_events) {
      floor_rv = history.front().resource_version;
      history.pop_front();
    }
  }
  if (!moment.at_ms && !moment.at_event) at_ms = recording.end_ms;
  return std::make_unique<World>(std::move(objects), std::move(history), rv, floor_rv, at_ms);
}

}  // namespace wsim::serve
