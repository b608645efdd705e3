// serve/replay_world.h: the world of a recorded run at a moment (the recorder it subscribes
// through run::RunOptions::observe_api is tested in tests/run/driver_test.cc).
#include "serve/replay_world.h"

#include <gtest/gtest.h>

namespace wsim::serve {
namespace {

RecordedChange change(TimeMs at_ms, std::uint64_t trace_count, std::uint64_t rv,
                      kube::WatchEventType type, const std::string& name) {
  kube::Object object;
  object.kind = "ConfigMap";
  object.meta.namespace_ = "default";
  object.meta.name = name;
  object.meta.resource_version = rv;
  return RecordedChange{at_ms, trace_count, LoggedEvent{rv, type, object, 0, nullptr}};
}

ReplayRecording recording() {
  ReplayRecording r;
  r.end_ms = 10'000;
  r.changes = {change(1000, 0, 1, kube::WatchEventType::kAdded, "a"),
               change(2000, 3, 2, kube::WatchEventType::kAdded, "b"),
               change(3000, 5, 3, kube::WatchEventType::kDeleted, "a")};
  return r;
}

std::vector<std::string> names(World& world) {
  std::uint64_t rv = 0;
  std::vector<std::string> out;
  for (const kube::Object& o : world.list("ConfigMap", "", rv)) out.push_back(o.meta.name);
  return out;
}

TEST(ServeReplayWorld, AtTimeKeepsTheChangesUpToThatVirtualTime) {
  TimeMs at_ms = 0;
  auto world = world_at(recording(), Moment{2500, std::nullopt}, 100, at_ms);
  EXPECT_EQ(at_ms, 2500);
  EXPECT_EQ(names(*world), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(world->resource_version(), 2u);
  EXPECT_TRUE(world->read_only());
  world = world_at(recording(), Moment{}, 100, at_ms);
  EXPECT_EQ(at_ms, 10'000);  // The end of the run.
  EXPECT_EQ(names(*world), (std::vector<std::string>{"b"}));
}

TEST(ServeReplayWorld, AtEventKeepsTheChangesMadeBeforeTheNextTraceEvent) {
  TimeMs at_ms = 0;
  // Trace event 1: the change made when 0 events were traced is in, the one at 3 is not.
  auto world = world_at(recording(), Moment{std::nullopt, 1}, 100, at_ms);
  EXPECT_EQ(names(*world), (std::vector<std::string>{"a"}));
  EXPECT_EQ(at_ms, 1000);
  // Trace event 2: the change made right after it (3 events traced) is in.
  world = world_at(recording(), Moment{std::nullopt, 2}, 100, at_ms);
  EXPECT_EQ(names(*world), (std::vector<std::string>{"a", "b"}));
}

TEST(ServeReplayWorld, WatchesBelowTheKeptHistoryAreGone) {
  TimeMs at_ms = 0;
  auto world = world_at(recording(), Moment{}, 1, at_ms);  // Keeps only the last change.
  EXPECT_TRUE(world->wait_events("ConfigMap", "", 1, 0).gone);
  const WatchBatch batch = world->wait_events("ConfigMap", "", 2, 0);
  EXPECT_FALSE(batch.gone);
  ASSERT_EQ(batch.events.size(), 1u);
  EXPECT_EQ(batch.events[0].type, kube::WatchEventType::kDeleted);
}

}  // namespace
}  // namespace wsim::serve
