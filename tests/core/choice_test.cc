// Choices (sim/core/choice.h): the seed, tape and bytes backends, independent named streams,
// exhausted input meaning zero (the least eventful choice), choices.bin round trips and its
// malformed-file errors, the swarm seed's streams and keyed tapes.
#include "sim/core/choice.h"

#include <gtest/gtest.h>
#include <algorithm>

#include <string>
#include <string_view>
#include <vector>

namespace wsim {
namespace {

std::vector<std::uint64_t> draw_some(ChoiceSource& source) {
  ChoiceStream api = source.stream("api");
  ChoiceStream faults = source.stream("faults");
  std::vector<std::uint64_t> out;
  for (int i = 0; i < 20; ++i) {
    out.push_back(api.below(1000));
    out.push_back(faults.chance(Ratio{1, 3}) ? 1 : 0);
    out.push_back(static_cast<std::uint64_t>(api.range(5, 9)));
  }
  return out;
}

TEST(Choice, SameSeedSameDraws) {
  ChoiceSource a = ChoiceSource::from_seed(11);
  ChoiceSource b = ChoiceSource::from_seed(11);
  EXPECT_EQ(draw_some(a), draw_some(b));
  ChoiceSource c = ChoiceSource::from_seed(12);
  EXPECT_NE(draw_some(a), draw_some(c));
}

TEST(Choice, RecordedChoicesReplayThroughTape) {
  ChoiceSource original = ChoiceSource::from_seed(99);
  original.set_recording(true);
  const std::vector<std::uint64_t> first = draw_some(original);
  std::vector<std::uint64_t> values;
  for (const Choice& choice : original.record()) values.push_back(choice.value);
  EXPECT_EQ(original.record().size(), original.consumed());

  ChoiceSource replay = ChoiceSource::from_tape(values);
  EXPECT_EQ(draw_some(replay), first);
  EXPECT_FALSE(replay.exhausted());
}

TEST(Choice, StreamsAreIndependentUnderTheSeedBackend) {
  ChoiceSource a = ChoiceSource::from_seed(5);
  ChoiceSource b = ChoiceSource::from_seed(5);
  ChoiceStream a_api = a.stream("api");
  ChoiceStream b_api = b.stream("api");
  ChoiceStream b_other = b.stream("other");
  for (int i = 0; i < 7; ++i) b_other.below(100);  // Draws elsewhere do not shift "api".
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a_api.below(1u << 20), b_api.below(1u << 20));
}

TEST(Choice, ExhaustedTapeAndBytesMeanZeroTheLeastEventfulChoice) {
  ChoiceSource tape = ChoiceSource::from_tape({3});
  ChoiceStream s = tape.stream("x");
  EXPECT_EQ(s.below(10), 3u);
  EXPECT_EQ(s.below(10), 0u);
  EXPECT_TRUE(tape.exhausted());
  EXPECT_FALSE(s.chance(Ratio{99, 100}));  // 0 = no event, even at 99%.
  EXPECT_EQ(s.range(-4, 4), -4);

  ChoiceSource empty = ChoiceSource::from_bytes({});
  EXPECT_EQ(empty.stream("y").below(1000), 0u);
}

TEST(Choice, ChanceZeroIsFalseAndTopValuesAreTrue) {
  ChoiceSource tape = ChoiceSource::from_tape({0, 2, 1});
  ChoiceStream s = tape.stream("x");
  EXPECT_FALSE(s.chance(Ratio{1, 3}));  // 0
  EXPECT_TRUE(s.chance(Ratio{1, 3}));   // 2 >= 3-1
  EXPECT_FALSE(s.chance(Ratio{1, 3}));  // 1
  EXPECT_TRUE(s.chance(Ratio::always()));
  EXPECT_FALSE(s.chance(Ratio::never()));
  EXPECT_EQ(tape.consumed(), 3u);  // always/never do not consume.
}

TEST(Choice, BytesBackendConsumesJustEnoughBytes) {
  const std::uint8_t bytes[] = {0x05, 0x34, 0x12, 0xff};
  ChoiceSource source = ChoiceSource::from_bytes(bytes);
  ChoiceStream s = source.stream("x");
  EXPECT_EQ(s.below(256), 5u);         // One byte.
  EXPECT_EQ(s.below(65536), 0x1234u);  // Two bytes, little-endian.
  EXPECT_EQ(s.below(10), 0xffu % 10);  // Out of range wraps.
  EXPECT_EQ(s.below(10), 0u);          // Exhausted.
}

TEST(Choice, BytesRandomTailIsDeterministicPerInputAndKeepsThePrefix) {
  using Tail = ChoiceSource::BytesTail;
  const std::uint8_t a[] = {0x07, 0x01};
  const std::uint8_t b[] = {0x07, 0x02};
  const auto draws = [](std::span<const std::uint8_t> bytes) {
    ChoiceSource source = ChoiceSource::from_bytes(bytes, Tail::kRandom);
    ChoiceStream s = source.stream("x");
    std::vector<std::uint64_t> out;
    for (int i = 0; i < 40; ++i) out.push_back(s.below(1000));
    EXPECT_TRUE(source.exhausted());
    return out;
  };
  const std::vector<std::uint64_t> first = draws(a);
  EXPECT_EQ(first, draws(a));           // Same input, same run.
  EXPECT_EQ(first[0], 0x0107u % 1000);  // The input's bytes come first.
  const std::vector<std::uint64_t> other = draws(b);
  EXPECT_NE(std::vector<std::uint64_t>(first.begin() + 1, first.end()),
            std::vector<std::uint64_t>(other.begin() + 1, other.end()));  // Tail seeded by input.
  // The tail is not all zeros: a short input still drives an eventful run.
  EXPECT_GT(std::count_if(first.begin() + 1, first.end(), [](std::uint64_t v) { return v != 0; }),
            30);
  // The default tail stays 0 ("nothing more happens").
  ChoiceSource zeros = ChoiceSource::from_bytes(a);
  ChoiceStream z = zeros.stream("x");
  z.below(1000);
  EXPECT_EQ(z.below(1000), 0u);
}

TEST(Choice, TapeValuesOutOfBoundWrap) {
  ChoiceSource tape = ChoiceSource::from_tape({17});
  EXPECT_EQ(tape.stream("x").below(5), 2u);
}

TEST(Choice, RecordRoundTripsThroughChoicesBin) {
  std::vector<Choice> record = {{0, 2}, {41, 100}, {7, 1u << 31}};
  const std::string bytes = encode_choice_record(record);
  std::vector<Choice> decoded;
  std::string error;
  ASSERT_TRUE(decode_choice_record(bytes, decoded, error)) << error;
  EXPECT_EQ(decoded, record);
}

TEST(Choice, MalformedChoicesBinIsRejectedWithOffset) {
  std::vector<Choice> decoded;
  std::string error;
  EXPECT_FALSE(decode_choice_record("nonsense", decoded, error));
  EXPECT_NE(error.find("byte 0"), std::string::npos);

  std::string truncated = encode_choice_record({{1, 2}, {3, 4}});
  truncated.pop_back();
  EXPECT_FALSE(decode_choice_record(truncated, decoded, error));
  EXPECT_NE(error.find("count 2"), std::string::npos);

  std::string bad_value = encode_choice_record({{9, 4}});
  EXPECT_FALSE(decode_choice_record(bad_value, decoded, error));
  EXPECT_NE(error.find("not below its bound"), std::string::npos);
  EXPECT_TRUE(decoded.empty());

  // A huge count with no body must not allocate.
  std::string huge = encode_choice_record({});
  huge[8] = static_cast<char>(0xff);
  huge[15] = static_cast<char>(0x7f);
  EXPECT_FALSE(decode_choice_record(huge, decoded, error));
}

}  // namespace
}  // namespace wsim

namespace wsim {
namespace {

std::vector<std::uint64_t> draws(ChoiceSource& source, std::string_view stream, int n) {
  ChoiceStream s = source.stream(stream);
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(s.below(1u << 30));
  return out;
}

TEST(SwarmSeed, SwarmStreamsComeFromTheSwarmSeedAndTheOthersFromTheSeed) {
  for (const char* name : {"swarm", "swarm2", "incidents", "scheduler", "gitlab.swarm"}) {
    EXPECT_TRUE(ChoiceSource::is_swarm_stream(name)) << name;
  }
  for (const char* name : {"gitpod.faults", "swarmy", ".swarm", "kube.api", "scheduler.ranks"}) {
    EXPECT_FALSE(ChoiceSource::is_swarm_stream(name)) << name;
  }
  // Each comparison takes fresh sources: a stream goes on where its last draw stopped.
  const auto first8 = [](ChoiceSource source, std::string_view stream) {
    return draws(source, stream, 8);
  };
  for (const char* stream : {"swarm", "kube.api"}) {
    EXPECT_EQ(first8(ChoiceSource::from_seed(5, 5), stream),
              first8(ChoiceSource::from_seed(5), stream));
  }
  for (const char* stream : {"swarm", "gitlab.swarm", "incidents", "scheduler"}) {
    EXPECT_EQ(first8(ChoiceSource::from_seed(5, 9), stream),
              first8(ChoiceSource::from_seed(9), stream));
    EXPECT_NE(first8(ChoiceSource::from_seed(5, 9), stream),
              first8(ChoiceSource::from_seed(5), stream));
  }
  for (const char* stream : {"kube.api", "gitpod.faults"}) {
    EXPECT_EQ(first8(ChoiceSource::from_seed(5, 9), stream),
              first8(ChoiceSource::from_seed(5), stream));
  }
}

}  // namespace
}  // namespace wsim

namespace wsim {
namespace {

// The keyed tape (shrinking's muting, docs/shrinking.md "Muting actors"): a record made with keys
// replays per key; dropping one key's values changes nothing for the other keys' draws, where a
// plain tape would shift them.
TEST(Choice, KeyedTapeServesEachKeyItsOwnValues) {
  std::string key;
  ChoiceSource original = ChoiceSource::from_seed(7);
  original.set_key_source([&key]() -> std::string_view { return key; });
  original.set_recording(true);
  original.set_recording_keys(true);
  ChoiceStream stream = original.stream("workload");
  std::vector<std::uint64_t> a_draws;
  std::vector<std::uint64_t> b_draws;
  for (int i = 0; i < 30; ++i) {
    key = i % 3 == 0 ? "user/b" : "user/a";
    (key == "user/a" ? a_draws : b_draws).push_back(stream.below(1000));
  }
  ASSERT_EQ(original.record_keys().size(), original.record().size());
  ASSERT_EQ(original.key_names().size(), 2u);
  ChoiceSource::KeyedTape tape =
      keyed_tape_of(original.record(), original.record_keys(), original.key_names());
  EXPECT_EQ(tape["user/a"], a_draws);
  EXPECT_EQ(tape["user/b"], b_draws);

  // Without user/b: user/a draws exactly what it drew before; user/b gets 0s (exhausted).
  tape.erase("user/b");
  ChoiceSource replay = ChoiceSource::from_keyed_tape(tape);
  replay.set_key_source([&key]() -> std::string_view { return key; });
  ChoiceStream again = replay.stream("workload");
  key = "user/a";
  std::vector<std::uint64_t> a_again;
  for (std::size_t i = 0; i < a_draws.size(); ++i) a_again.push_back(again.below(1000));
  EXPECT_EQ(a_again, a_draws);
  EXPECT_FALSE(replay.exhausted());
  key = "user/b";
  EXPECT_EQ(again.below(1000), 0u);
  EXPECT_TRUE(replay.exhausted());
}

// Recording keys is off unless asked: a plain record has no keys.
TEST(Choice, KeysAreRecordedOnlyWhenAsked) {
  ChoiceSource source = ChoiceSource::from_seed(3);
  source.set_key_source([]() -> std::string_view { return "x"; });
  source.set_recording(true);
  ChoiceStream stream = source.stream("s");
  for (int i = 0; i < 5; ++i) stream.below(10);
  EXPECT_EQ(source.record().size(), 5u);
  EXPECT_TRUE(source.record_keys().empty());
}

}  // namespace
}  // namespace wsim
