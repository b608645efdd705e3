// Tests of fuzz/proto_mutator.h, the protobuf-reflection mutator of the scenario-level fuzz
// targets (docs/proto-mutator.md): determinism for a seed, outputs that always parse and fit
// max_size, every mutation kind reachable, field hooks respected, crossover from both parents.
// Runs in a plain (non-libFuzzer) build: the byte-mutation hook is left null.
#include "fuzz/proto_mutator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>

#include "sim/proto/scenario.pb.h"

namespace wsim::fuzz {
namespace {

const std::string kEvent = "wsim.proto.ScriptedEvent";
const std::string kScenario = "wsim.proto.Scenario";

proto::Scenario scenario_of(const std::string& text) {
  proto::Scenario scenario;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &scenario)) << text;
  return scenario;
}

const proto::Scenario& limbo_like() {
  static const proto::Scenario scenario = scenario_of(R"(
    name: "seed" seed: 7 scripted_only: true
    gitlab { agent: "A0a" rails: "R1" }
    events { at_ms: 1000 actor: "user" action: "create" target: "ws-0" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "ws-0" }
    events { at_ms: 240000 actor: "kubectl" action: "delete_deployment" target: "ws-0" }
    expect { verdict: PASS })");
  return scenario;
}

std::vector<std::uint8_t> bytes_of(const proto::Scenario& scenario, std::size_t capacity) {
  std::string bytes;
  EXPECT_TRUE(scenario.SerializeToString(&bytes));
  std::vector<std::uint8_t> out(bytes.begin(), bytes.end());
  out.resize(std::max(capacity, out.size()));
  return out;
}

// The hooks of the gitlab_limbo_scenario target, in small.
ProtoMutatorHooks event_hooks() {
  ProtoMutatorHooks hooks;
  hooks.mutable_fields = {kScenario + ".seed", kScenario + ".events", kEvent + ".at_ms",
                          kEvent + ".actor",   kEvent + ".action",    kEvent + ".target"};
  hooks.strings[kEvent + ".actor"] = {"user", "kubectl"};
  hooks.strings[kEvent + ".action"] = {"create", "terminate", "delete_namespace"};
  hooks.strings[kEvent + ".target"] = {"ws-0", "ws-1"};
  hooks.int_ranges[kEvent + ".at_ms"] = {0, 1'200'000};
  hooks.builders[kScenario + ".events"] = [](google::protobuf::Message& message, Xoshiro256& prng) {
    auto& event = static_cast<proto::ScriptedEvent&>(message);
    event.set_actor("kubectl");
    event.set_action("delete_namespace");
    event.set_target("ws-" + std::to_string(prng.below(2)));
    event.set_at_ms(500 * static_cast<std::int64_t>(prng.below(2401)));
  };
  hooks.repeated_max = 16;
  return hooks;
}

// Feeds each output back as the next input, like a fuzzing campaign does.
template <typename Check>
void chain(const ProtoMutator& mutator, std::size_t max_size, int steps, std::uint32_t seed,
           Check check) {
  std::vector<std::uint8_t> data = bytes_of(limbo_like(), max_size);
  std::size_t size = std::min(max_size, limbo_like().ByteSizeLong());
  if (limbo_like().ByteSizeLong() > max_size) size = 0;
  for (int step = 0; step < steps; ++step) {
    MutationKind kind{};
    size = mutator.mutate_bytes(data.data(), size, max_size, seed + step, &kind);
    ASSERT_LE(size, max_size);
    proto::Scenario out;
    ASSERT_TRUE(out.ParseFromArray(data.data(), static_cast<int>(size))) << "step " << step;
    check(out, kind);
  }
}

TEST(ProtoMutator, IsDeterministicForASeed) {
  const ProtoMutator mutator(proto::Scenario::descriptor(), {});
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    std::vector<std::uint8_t> a = bytes_of(limbo_like(), 4096);
    std::vector<std::uint8_t> b = a;
    const std::size_t size = limbo_like().ByteSizeLong();
    const std::size_t size_a = mutator.mutate_bytes(a.data(), size, 4096, seed);
    const std::size_t size_b = mutator.mutate_bytes(b.data(), size, 4096, seed);
    ASSERT_EQ(size_a, size_b) << "seed " << seed;
    ASSERT_TRUE(std::equal(a.begin(), a.begin() + static_cast<long>(size_a), b.begin()))
        << "seed " << seed;
  }
}

TEST(ProtoMutator, DifferentSeedsGiveDifferentMutations) {
  const ProtoMutator mutator(proto::Scenario::descriptor(), event_hooks());
  std::set<std::string> outputs;
  for (std::uint32_t seed = 0; seed < 100; ++seed) {
    std::vector<std::uint8_t> data = bytes_of(limbo_like(), 4096);
    const std::size_t size =
        mutator.mutate_bytes(data.data(), limbo_like().ByteSizeLong(), 4096, seed);
    outputs.emplace(data.begin(), data.begin() + static_cast<long>(size));
  }
  // Deleting one of 3 events has 3 outcomes, a swap 3: many seeds share an output.
  EXPECT_GE(outputs.size(), 30u);
}

TEST(ProtoMutator, OutputAlwaysParsesAndFitsMaxSize) {
  const ProtoMutator generic(proto::Scenario::descriptor(), {});
  const ProtoMutator hooked(proto::Scenario::descriptor(), event_hooks());
  for (const ProtoMutator* mutator : {&generic, &hooked}) {
    for (const std::size_t max_size : {std::size_t{40}, std::size_t{128}, std::size_t{4096}}) {
      chain(*mutator, max_size, 600, static_cast<std::uint32_t>(max_size),
            [](const proto::Scenario&, MutationKind) {});
    }
  }
}

TEST(ProtoMutator, GarbageInputBecomesAValidMessage) {
  const ProtoMutator mutator(proto::Scenario::descriptor(), event_hooks());
  Xoshiro256 prng(99);
  for (std::uint32_t seed = 0; seed < 500; ++seed) {
    std::array<std::uint8_t, 256> data{};
    const std::size_t size = 1 + prng.below(200);
    for (std::size_t i = 0; i < size; ++i) data[i] = static_cast<std::uint8_t>(prng.below(256));
    const std::size_t out = mutator.mutate_bytes(data.data(), size, data.size(), seed);
    ASSERT_LE(out, data.size());
    proto::Scenario parsed;
    ASSERT_TRUE(parsed.ParseFromArray(data.data(), static_cast<int>(out))) << "seed " << seed;
    EXPECT_TRUE(parsed.GetReflection()->GetUnknownFields(parsed).empty());
  }
}

TEST(ProtoMutator, EveryMutationKindHappens) {
  const ProtoMutator mutator(proto::Scenario::descriptor(), event_hooks());
  std::array<int, kMutationKindsCount> counts{};
  for (std::uint32_t seed = 0; seed < 1000; ++seed) {
    proto::Scenario scenario = limbo_like();
    Xoshiro256 prng(seed);
    ++counts[static_cast<int>(mutator.mutate(scenario, prng))];
  }
  for (int kind = 0; kind < kMutationKindsCount; ++kind) {
    // Kinds are drawn uniformly: about 200 each.
    EXPECT_GE(counts[kind], 120) << mutation_kind_name(static_cast<MutationKind>(kind));
  }
}

TEST(ProtoMutator, TouchesOnlyTheAllowedFieldsAndKeepsValuesInVocabularyAndRange) {
  const ProtoMutator mutator(proto::Scenario::descriptor(), event_hooks());
  int in_vocabulary = 0;
  int strings = 0;
  chain(mutator, 2048, 2000, 5, [&](const proto::Scenario& out, MutationKind) {
    ASSERT_EQ(out.name(), "seed");
    ASSERT_TRUE(out.scripted_only());
    ASSERT_EQ(out.gitlab().agent(), "A0a");
    ASSERT_EQ(out.expect_size(), 1);
    ASSERT_LE(out.events_size(), 16);
    for (const proto::ScriptedEvent& event : out.events()) {
      ASSERT_GE(event.at_ms(), 0);
      ASSERT_LE(event.at_ms(), 1'200'000);
      ASSERT_TRUE(event.args().empty());
      for (const std::string& word : {event.actor(), event.action(), event.target()}) {
        ++strings;
        const std::set<std::string> vocabulary = {"user",
                                                  "kubectl",
                                                  "create",
                                                  "stop",
                                                  "terminate",
                                                  "delete_namespace",
                                                  "delete_deployment",
                                                  "ws-0",
                                                  "ws-1"};
        in_vocabulary += vocabulary.count(word) > 0 ? 1 : 0;
      }
    }
  });
  // Byte edits (1 string mutation in 4) make the rest; the vocabulary dominates.
  EXPECT_GT(in_vocabulary * 10, strings * 7);
}

TEST(ProtoMutator, CrossOverYieldsElementsOfBothParents) {
  const ProtoMutator mutator(proto::Scenario::descriptor(), event_hooks());
  const proto::Scenario a = scenario_of(R"(
    name: "a" events { actor: "a" at_ms: 1 } events { actor: "a" at_ms: 2 }
    events { actor: "a" at_ms: 3 })");
  const proto::Scenario b = scenario_of(R"(
    name: "b" events { actor: "b" at_ms: 1 } events { actor: "b" at_ms: 2 })");
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    std::vector<std::uint8_t> out(4096);
    const std::vector<std::uint8_t> da = bytes_of(a, 0);
    const std::vector<std::uint8_t> db = bytes_of(b, 0);
    const std::size_t size = mutator.cross_over_bytes(da.data(), da.size(), db.data(), db.size(),
                                                      out.data(), out.size(), seed);
    proto::Scenario child;
    ASSERT_TRUE(child.ParseFromArray(out.data(), static_cast<int>(size)));
    int from_a = 0;
    int from_b = 0;
    for (const proto::ScriptedEvent& event : child.events()) {
      (event.actor() == "a" ? from_a : from_b) += 1;
    }
    EXPECT_GE(from_a, 1) << "seed " << seed;
    EXPECT_GE(from_b, 1) << "seed " << seed;
    EXPECT_EQ(child.name(), "a");  // Not a mutable field: from the first parent.
  }
}

TEST(ProtoMutator, CrossOverRespectsMaxOutSize) {
  const ProtoMutator mutator(proto::Scenario::descriptor(), {});
  const std::vector<std::uint8_t> a = bytes_of(limbo_like(), 0);
  for (std::uint32_t seed = 0; seed < 100; ++seed) {
    std::vector<std::uint8_t> out(a.size() / 2);
    const std::size_t size = mutator.cross_over_bytes(a.data(), a.size(), a.data(), a.size(),
                                                      out.data(), out.size(), seed);
    ASSERT_LE(size, out.size());
    proto::Scenario child;
    ASSERT_TRUE(child.ParseFromArray(out.data(), static_cast<int>(size)));
  }
}

TEST(ProtoMutator, PostProcessRunsAfterEveryMutationAndCrossOver) {
  ProtoMutatorHooks hooks = event_hooks();
  hooks.post_process = [](google::protobuf::Message& message) {
    static_cast<proto::Scenario&>(message).set_description("post-processed");
  };
  const ProtoMutator mutator(proto::Scenario::descriptor(), hooks);
  chain(mutator, 2048, 100, 11, [](const proto::Scenario& out, MutationKind) {
    ASSERT_EQ(out.description(), "post-processed");
  });
  proto::Scenario child;
  Xoshiro256 prng(3);
  mutator.cross_over(limbo_like(), limbo_like(), child, prng);
  EXPECT_EQ(child.description(), "post-processed");
}

}  // namespace
}  // namespace wsim::fuzz
