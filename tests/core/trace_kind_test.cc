// The typed trace (sim/core/trace.h): the kind and the fault names are part of the event and of
// its hash, the hash is the documented FNV-1a definition, and Sim pins a fault firing on the
// event its own step records — never on another step's event.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/sim.h"
#include "sim/core/trace.h"

namespace wsim {
namespace {

// The hash as trace.h documents it, written out independently of Trace.
class ReferenceHash {
 public:
  void byte(std::uint8_t value) {
    hash_ ^= value;
    hash_ *= 0x100000001b3ULL;
  }
  void u64(std::uint64_t value) {
    for (int i = 0; i < 8; ++i) byte(static_cast<std::uint8_t>(value >> (8 * i)));
  }
  void text(std::string_view text) {
    for (char c : text) byte(static_cast<std::uint8_t>(c));
    byte(0xff);
  }
  void event(const TraceEvent& e) {
    u64(static_cast<std::uint64_t>(e.time_ms));
    for (const std::string* field : {&e.actor, &e.verb, &e.object, &e.result, &e.detail}) {
      text(*field);
    }
    byte(static_cast<std::uint8_t>(e.kind));
    u64(e.faults.size());
    for (const std::string& name : e.faults) text(name);
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

TEST(TraceKind, HashIsTheDocumentedDefinition) {
  TraceEvent lost{1500, "link/agentk", "request", "", "lost", "fault"};
  lost.faults = {"link.lost_request"};
  TraceEvent marker{2000, "user", "stop", "alice", "scripted", ""};
  marker.kind = TraceKind::kScripted;
  TraceEvent verdict{2500, "wsim", "violation", "ws-1", "gitlab.S1", "broke"};
  verdict.kind = TraceKind::kViolation;
  Trace trace;
  ReferenceHash reference;
  for (const TraceEvent& e : {lost, marker, verdict}) {
    trace.record(e);
    reference.event(e);
  }
  EXPECT_EQ(trace.hash(), reference.value());
  EXPECT_EQ(trace.events().at(1).kind, TraceKind::kScripted);
  EXPECT_EQ(trace.events().at(0).faults, std::vector<std::string>{"link.lost_request"});
}

TEST(TraceKind, KindAndFaultNamesChangeTheHash) {
  auto hash_of = [](const TraceEvent& e) {
    Trace trace;
    trace.record(e);
    return trace.hash();
  };
  const TraceEvent plain{10, "user", "stop", "alice", "scripted", ""};
  TraceEvent marker = plain;
  marker.kind = TraceKind::kScripted;
  TraceEvent faulted = plain;
  faulted.faults = {"a"};
  TraceEvent two = plain;
  two.faults = {"a", "b"};
  TraceEvent joined = plain;
  joined.faults = {"ab"};
  EXPECT_NE(hash_of(plain), hash_of(marker));
  EXPECT_NE(hash_of(plain), hash_of(faulted));
  EXPECT_NE(hash_of(faulted), hash_of(two));
  EXPECT_NE(hash_of(two), hash_of(joined));
  EXPECT_EQ(trace_kind_name(TraceKind::kViolation), "violation");
}

// One step fires `fault` and records; the next step fires it silently; the step after records.
Task<void> firing_actor(Sim& sim, FaultId fault, bool& done) {
  ChoiceStream stream = sim.stream("faults");
  EXPECT_TRUE(sim.faults().fires(fault, stream));
  EXPECT_TRUE(sim.faults().fires(fault, stream));  // Twice in one step: named once.
  sim.record("actor", "request", "", "lost");
  co_await sim.loop().sleep(10);
  EXPECT_TRUE(sim.faults().fires(fault, stream));  // Fired, but nothing recorded in this step.
  co_await sim.loop().sleep(10);
  sim.record("actor", "request", "", "ok");
  done = true;
}

Task<void> bystander(Sim& sim) {
  co_await sim.loop().sleep(10);
  sim.record("bystander", "poll", "", "ok");  // Same time, its own step.
}

TEST(TraceKind, SimNamesTheFaultsOfTheRecordingStepOnly) {
  Sim sim(ChoiceSource::from_tape({}));
  const FaultId fault =
      sim.faults().declare("link.lost_request", "", Ratio::always(), Ratio::always());
  sim.faults().force(fault, true, Ratio::always());
  bool done = false;
  sim.loop().spawn("actor", firing_actor(sim, fault, done));
  sim.loop().spawn("bystander", bystander(sim));
  sim.loop().run_until_idle(1000);
  ASSERT_TRUE(done);
  const std::vector<TraceEvent>& events = sim.trace().events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].faults, std::vector<std::string>{"link.lost_request"});
  EXPECT_EQ(events[1].actor, "bystander");
  EXPECT_TRUE(events[1].faults.empty());
  EXPECT_EQ(events[2].actor, "actor");
  EXPECT_TRUE(events[2].faults.empty());
}

TEST(TraceKind, SimRecordsScriptedMarkersAndViolationsWithTheirKind) {
  Sim sim(ChoiceSource::from_tape({}));
  sim.record_scripted("user", "stop", "alice");
  sim.record_violation("ws-1", "toy.S1", "two owners");
  sim.record("user/alice", "stop", "ws-1", "ok");
  const std::vector<TraceEvent>& events = sim.trace().events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, TraceKind::kScripted);
  EXPECT_EQ(events[0].result, "scripted");
  EXPECT_EQ(events[1].kind, TraceKind::kViolation);
  EXPECT_EQ(events[1].actor, "wsim");
  EXPECT_EQ(events[1].verb, "violation");
  EXPECT_EQ(events[1].result, "toy.S1");
  EXPECT_EQ(events[2].kind, TraceKind::kAction);
}

}  // namespace
}  // namespace wsim
