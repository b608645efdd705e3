// Fault points (sim/core/fault.h): swarm draws, heal, forced odds, incidents, pacing and pins;
// probes (probe.h); the trace hash (trace.h); and the assertion message (assert.h: seed, virtual
// time and both operands).
#include <gtest/gtest.h>

#include "sim/core/assert.h"
#include "sim/core/fault.h"
#include "sim/core/probe.h"
#include "sim/core/sim.h"
#include "sim/core/trace.h"

namespace wsim {
namespace {

TEST(Faults, DisabledPointsNeverFireAndConsumeNoChoice) {
  ChoiceSource source = ChoiceSource::from_tape({1, 1, 1});
  ChoiceStream stream = source.stream("faults");
  Faults faults;
  const FaultId id = faults.declare("kube.api.conflict", "", Ratio{1, 2}, Ratio{1, 2});
  EXPECT_FALSE(faults.fires(id, stream));
  EXPECT_EQ(source.consumed(), 0u);
}

TEST(Faults, SwarmDrawEnablesPerRunAndHealDisablesAll) {
  ChoiceSource source = ChoiceSource::from_tape({1, 0, 1, 1});
  Faults faults;
  const FaultId b = faults.declare("b", "", Ratio{1, 2}, Ratio::always());
  const FaultId a = faults.declare("a", "", Ratio{1, 2}, Ratio{1, 2});
  faults.draw_swarm(source.stream("swarm"));  // Name order: a gets 1 (on), b gets 0 (off).
  EXPECT_TRUE(faults.enabled(a));
  EXPECT_FALSE(faults.enabled(b));
  EXPECT_EQ(faults.describe_swarm(), "a=on b=off");
  ChoiceStream stream = source.stream("faults");
  EXPECT_TRUE(faults.fires(a, stream));
  EXPECT_EQ(faults.point(a).fired, 1u);
  faults.heal();
  EXPECT_FALSE(faults.fires(a, stream));
  EXPECT_FALSE(faults.enabled(a));
}

TEST(Faults, ForcedPointsIgnoreTheSwarmDraw) {
  ChoiceSource source = ChoiceSource::from_tape({});
  Faults faults;
  const FaultId id = faults.declare("x", "", Ratio::never(), Ratio{1, 2});
  faults.force(id, true, Ratio::always());
  faults.draw_swarm(source.stream("swarm"));
  ChoiceStream stream = source.stream("faults");
  EXPECT_TRUE(faults.fires(id, stream));
  EXPECT_EQ(faults.declare("x", "", Ratio::always(), Ratio::always()), id);
}

// Points of the second swarm stream (added after the corpus was pinned) draw from their own
// stream, after the first group: the first group's draws are those of a run without them.
TEST(Faults, SecondSwarmStreamLeavesTheFirstGroupsDrawsAlone) {
  for (std::uint64_t seed = 0; seed < 64; ++seed) {
    ChoiceSource without = ChoiceSource::from_seed(seed);
    Faults before;
    for (const char* name : {"a", "m", "z"}) before.declare(name, "", Ratio{1, 2}, Ratio{1, 2});
    before.draw_swarm(without.stream("swarm"), without.stream("swarm2"));

    ChoiceSource with = ChoiceSource::from_seed(seed);
    Faults after;
    for (const char* name : {"a", "m", "z"}) after.declare(name, "", Ratio{1, 2}, Ratio{1, 2});
    const FaultId b = after.declare("b", "", Ratio{1, 2}, Ratio{1, 2}, SwarmStream::kSecond);
    const FaultId n = after.declare("n", "", Ratio{1, 2}, Ratio{1, 2}, SwarmStream::kSecond);
    after.draw_swarm(with.stream("swarm"), with.stream("swarm2"));
    for (FaultId id = 0; id < 3; ++id) {
      EXPECT_EQ(before.enabled(id), after.enabled(id)) << "seed " << seed << " point " << id;
    }
    // The second group is drawn from "swarm2" in name order: b, then n.
    ChoiceSource reference = ChoiceSource::from_seed(seed);
    ChoiceStream second = reference.stream("swarm2");
    EXPECT_EQ(after.enabled(b), second.chance(Ratio{1, 2})) << "seed " << seed;
    EXPECT_EQ(after.enabled(n), second.chance(Ratio{1, 2})) << "seed " << seed;
    EXPECT_EQ(after.point(b).swarm, SwarmStream::kSecond);
  }
  EXPECT_TRUE(ChoiceSource::is_swarm_stream("swarm2"));  // Guided hunts take it from swarm_seed.
}

// Incidents (correlated fault bursts): 1–4 sorted, disjoint windows inside the fault phase; an
// enabled point fires at least at kIncidentFire inside one and at its own ratio outside.
TEST(Faults, IncidentsBoostEnabledPointsOnlyInsideTheirWindows) {
  ChoiceSource source = ChoiceSource::from_seed(7);
  Faults faults;
  const FaultId rare = faults.declare("rare", "", Ratio::always(), Ratio{1, 1000});
  const FaultId off = faults.declare("off", "", Ratio::never(), Ratio{1, 1000});
  faults.draw_swarm(source.stream("swarm"));
  std::int64_t now_ms = 0;
  const std::int64_t phase_ms = 3'600'000;
  faults.set_clock(&now_ms);
  faults.draw_incidents(source.stream("incidents"), phase_ms, Ratio::never(), true);
  const std::vector<Incident>& incidents = faults.incidents();
  ASSERT_FALSE(incidents.empty());
  ASSERT_LE(incidents.size(), 4u);
  for (std::size_t i = 0; i < incidents.size(); ++i) {
    EXPECT_LT(incidents[i].start_ms, incidents[i].end_ms);
    EXPECT_LE(incidents[i].end_ms, phase_ms);
    EXPECT_LE(incidents[i].end_ms - incidents[i].start_ms, 4 * 60'000);
    if (i > 0) EXPECT_LT(incidents[i - 1].end_ms, incidents[i].start_ms);
  }
  ChoiceStream stream = source.stream("faults");
  int inside = 0;
  int outside = 0;
  now_ms = incidents[0].start_ms;
  for (int i = 0; i < 4000; ++i) inside += faults.fires(rare, stream) ? 1 : 0;
  now_ms = incidents[0].end_ms;  // The end is exclusive.
  if (incidents.size() > 1 && incidents[1].start_ms == now_ms) now_ms = phase_ms;
  for (int i = 0; i < 4000; ++i) outside += faults.fires(rare, stream) ? 1 : 0;
  EXPECT_GT(inside, 800);  // ~1/4 of 4000.
  EXPECT_LT(inside, 1200);
  EXPECT_LT(outside, 20);  // ~1/1000 of 4000.
  now_ms = incidents[0].start_ms;
  EXPECT_FALSE(faults.fires(off, stream));  // A disabled point stays off in an incident.
  EXPECT_NE(faults.describe_incidents(), "none");
  // Forced off, or not drawn: no windows.
  faults.draw_incidents(source.stream("incidents"), phase_ms, Ratio::always(), false);
  EXPECT_TRUE(faults.incidents().empty());
  EXPECT_EQ(faults.describe_incidents(), "none");
}

// Pacing (issue #12 item 3): an actor's normal pause is cut short at the next incident's start;
// current_incident() names the window under way, none after heal().
TEST(Faults, PacingWakesActorsAtTheNextIncident) {
  ChoiceSource source = ChoiceSource::from_seed(11);
  Faults faults;
  std::int64_t now_ms = 0;
  faults.set_clock(&now_ms);
  const std::int64_t phase_ms = 3'600'000;
  EXPECT_EQ(faults.until_next_incident(5'000), 5'000);  // No incidents: unchanged.
  faults.draw_incidents(source.stream("incidents"), phase_ms, Ratio::never(), true);
  const std::vector<Incident>& incidents = faults.incidents();
  ASSERT_FALSE(incidents.empty());
  const Incident first = incidents[0];
  now_ms = first.start_ms > 10 ? first.start_ms - 10 : 0;
  EXPECT_EQ(faults.current_incident(), first.start_ms > 10 ? -1 : 0);
  if (first.start_ms > 10) {
    EXPECT_EQ(faults.until_next_incident(60'000), 10);
    EXPECT_EQ(faults.until_next_incident(3), 3);
  }
  now_ms = first.start_ms;
  EXPECT_EQ(faults.current_incident(), 0);
  EXPECT_TRUE(faults.in_incident());
  now_ms = first.end_ms;
  EXPECT_NE(faults.current_incident(), 0);
  now_ms = phase_ms;  // After every window: the normal pause.
  EXPECT_EQ(faults.until_next_incident(7'000), 7'000);
  EXPECT_FALSE(faults.in_incident());
  now_ms = first.start_ms;
  faults.heal();
  EXPECT_FALSE(faults.in_incident());
  EXPECT_EQ(faults.until_next_incident(9'000), 9'000);
}

// A pin on a point evaluated outside requests (sim/core/fault.h "Pins"): it fires at the N-th
// evaluation inside its window, without a draw, and the pinned-only point fires nowhere else.
TEST(Faults, PinFiresAtTheNthEvaluationInItsWindowOnly) {
  ChoiceSource source = ChoiceSource::from_tape({1, 1, 1, 1, 1, 1, 1, 1});
  Faults faults;
  std::int64_t now_ms = 0;
  faults.set_clock(&now_ms);
  const FaultId id = faults.declare("x", "", Ratio::always(), Ratio::always());
  FaultPin pin;
  pin.occurrence = 2;
  pin.from_ms = 1000;
  pin.until_ms = 2000;
  faults.pin(id, pin);
  faults.draw_swarm(source.stream("swarm"));  // Forced by the pin: not drawn.
  EXPECT_FALSE(faults.enabled(id));
  ChoiceStream stream = source.stream("faults");
  std::vector<std::int64_t> fired_at_ms;
  for (now_ms = 0; now_ms < 3000; now_ms += 250) {
    if (faults.fires(id, stream)) fired_at_ms.push_back(now_ms);
  }
  // Evaluations in the window: 1000 (first), 1250 (second: fires), 1500, 1750.
  EXPECT_EQ(fired_at_ms, std::vector<std::int64_t>{1250});
  EXPECT_EQ(faults.point(id).fired, 1u);
  EXPECT_EQ(faults.pin_count(id), 1u);
  EXPECT_EQ(source.consumed(), 0u);  // Neither the swarm nor the pinned firing drew a choice.
  EXPECT_EQ(faults.describe_swarm(), "x=off");
}

// A request pin counts the requests observe_request reports that match its verb, object and
// actor, and fires at the N-th, at that request's evaluation only; another point of the same
// request does not fire, and after heal nothing does.
TEST(Faults, RequestPinFiresAtTheNamedRequestOnly) {
  ChoiceSource source = ChoiceSource::from_tape({});
  Faults faults;
  const FaultId lost = faults.declare("kube.api.lost_request", "", Ratio{1, 2}, Ratio{1, 2});
  const FaultId conflict = faults.declare("kube.api.conflict", "", Ratio{1, 2}, Ratio{1, 2});
  faults.set_per_request(lost);
  faults.set_per_request(conflict);
  FaultPin pin;
  pin.verb = "create";
  pin.object = "Pod/gitpod/ws-ws2-3";
  pin.actor = "ws-manager";
  pin.occurrence = 2;
  faults.pin(lost, pin);
  EXPECT_TRUE(faults.has_pins());
  ChoiceStream stream = source.stream("faults");
  struct Request {
    const char* verb;
    const char* object;
    const char* actor;
  };
  const Request requests[] = {
      {"create", "Pod/gitpod/ws-ws2-3", "ws-manager"},  // 1st match
      {"create", "Pod/gitpod/ws-ws1-1", "ws-manager"},  // other object
      {"update", "Pod/gitpod/ws-ws2-3", "ws-manager"},  // other verb
      {"create", "Pod/gitpod/ws-ws2-3", "kubelet"},     // other actor
      {"create", "Pod/gitpod/ws-ws2-3", "ws-manager"},  // 2nd match: fires
      {"create", "Pod/gitpod/ws-ws2-3", "ws-manager"},  // 3rd
  };
  std::vector<int> fired;
  for (int i = 0; i < 6; ++i) {
    faults.observe_request(FaultRequest{requests[i].verb, requests[i].object, requests[i].actor});
    EXPECT_FALSE(faults.fires(conflict, stream));
    if (faults.fires(lost, stream)) fired.push_back(i);
    EXPECT_FALSE(faults.fires(lost, stream));  // One firing per request.
  }
  EXPECT_EQ(fired, std::vector<int>{4});
  EXPECT_EQ(source.consumed(), 0u);
  // An armed pin whose point was not evaluated for its request does not fire at a later one.
  Faults again;
  const FaultId id = again.declare("kube.api.lost_request", "", Ratio{1, 2}, Ratio{1, 2});
  again.set_per_request(id);
  FaultPin first;
  first.verb = "get";
  again.pin(id, first);
  again.observe_request(FaultRequest{"get", "Pod/a/b", "x"});
  again.observe_request(FaultRequest{"list", "Pod/a", "x"});
  EXPECT_FALSE(again.fires(id, stream));
  again.observe_request(FaultRequest{"get", "Pod/a/b", "x"});
  again.heal();
  EXPECT_FALSE(again.fires(id, stream));
}

// A whole-run override forced before a pin decides the other moments: here on, with its ratio.
TEST(Faults, PinOnAForcedPointKeepsTheForcedOddsElsewhere) {
  ChoiceSource source = ChoiceSource::from_tape({0, 1});
  Faults faults;
  const FaultId id = faults.declare("x", "", Ratio::never(), Ratio{1, 2});
  faults.force(id, true);
  FaultPin pin;
  pin.from_ms = 0;
  pin.until_ms = 1;
  faults.pin(id, pin);
  ChoiceStream stream = source.stream("faults");
  std::int64_t now_ms = 0;
  faults.set_clock(&now_ms);
  EXPECT_TRUE(faults.fires(id, stream));  // The pin: no draw.
  EXPECT_EQ(source.consumed(), 0u);
  now_ms = 5;
  EXPECT_FALSE(faults.fires(id, stream));  // Drawn: 0.
  EXPECT_TRUE(faults.fires(id, stream));   // Drawn: 1.
  EXPECT_EQ(source.consumed(), 2u);
}

TEST(Probes, CountHitsAndMergeByName) {
  Probes run1;
  const ProbeId p = run1.declare("ns-deleted-while-running", "");
  run1.declare("never", "");
  run1.hit(p);
  EXPECT_TRUE(run1.sometimes(true, p));
  EXPECT_FALSE(run1.sometimes(false, p));
  EXPECT_EQ(run1.probe(p).hits, 2u);
  Probes total;
  total.merge(run1);
  total.merge(run1);
  const auto sorted = total.sorted();
  ASSERT_EQ(sorted.size(), 2u);
  EXPECT_EQ(sorted[0].name, "never");
  EXPECT_EQ(sorted[0].hits, 0u);
  EXPECT_EQ(sorted[1].hits, 4u);
}

TEST(Trace, HashCoversEveryFieldAndOrder) {
  auto hash_of = [](std::vector<TraceEvent> events) {
    Trace trace;
    for (auto& event : events) trace.record(event);
    return trace.hash();
  };
  const TraceEvent a{10, "agentk", "delete", "Namespace/ns", "ok", ""};
  const TraceEvent b{12, "user", "terminate", "ws-0", "ok", ""};
  TraceEvent a_other_result = a;
  a_other_result.result = "Conflict";
  TraceEvent a_shifted = a;
  a_shifted.verb = "delet";
  a_shifted.object = "eNamespace/ns";
  EXPECT_EQ(hash_of({a, b}), hash_of({a, b}));
  EXPECT_NE(hash_of({a, b}), hash_of({b, a}));
  EXPECT_NE(hash_of({a}), hash_of({a_other_result}));
  EXPECT_NE(hash_of({a}), hash_of({a_shifted}));
}

TEST(Trace, HashingWithoutKeepingEventsGivesTheSameHash) {
  Trace kept;
  Trace hashed_only;
  hashed_only.set_keep_events(false);
  for (int i = 0; i < 5; ++i) {
    kept.record(i, "a", "v", "o", "ok");
    hashed_only.record(i, "a", "v", "o", "ok");
  }
  EXPECT_EQ(kept.hash(), hashed_only.hash());
  EXPECT_EQ(kept.events().size(), 5u);
  EXPECT_TRUE(hashed_only.events().empty());
  EXPECT_EQ(hashed_only.count(), 5u);
}

TEST(AssertDeathTest, PrintsSeedVirtualTimeAndBothOperands) {
  EXPECT_DEATH(
      {
        Sim sim(ChoiceSource::from_seed(4242));
        sim.loop().schedule(77, [] {
          const int retries = 3;
          WSIM_ASSERT_EQ(retries, 4);
        });
        sim.loop().run_until_idle(100);
      },
      "retries == 4(.|\n)*left: 3, right: 4(.|\n)*seed: 4242  virtual time: 77 ms");
}

}  // namespace
}  // namespace wsim
