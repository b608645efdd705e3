// ChoiceSource: the single source of nondeterminism of a run (docs/architecture.md §2).
//
// Every decision the simulation makes (a latency, whether a fault fires, which user action comes
// next) is a draw from a ChoiceStream. Contract for every call site: choice 0 is the least
// eventful option (no fault, shortest delay, no extra event). That makes shrinking by zeroing or
// lowering choices meaningful and makes an exhausted fuzzer input mean "nothing more happens".
//
// Backends:
//  - seed:  a xoshiro256** generator per named stream, so a draw in one subsystem does not shift
//           the others;
//  - tape:  a recorded list of values (replay, shrinking); values past the end are 0;
//  - keyed tape: recorded values per key (the name of the actor that drew them, set_key_source);
//           each draw takes the next value of its own actor, past the end 0. Shrinking mutes an
//           actor (EventLoop::set_muted) and drops its values without shifting anyone else's
//           (docs/shrinking.md "Muting actors");
//  - bytes: a libFuzzer input; each draw consumes just enough bytes; past the end is 0, or
//           (BytesTail::kRandom) drawn from a xoshiro256** seeded by a hash of the input, so a
//           short input still drives a whole eventful run and its bytes steer the beginning.
// Every backend can record the choices it hands out; replaying that record through the tape
// backend reproduces the run exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/prng.h"

namespace wsim {

// A probability as an integer ratio num/den (never a double). 0 <= num <= den, den > 0.
struct Ratio {
  std::uint32_t num = 0;
  std::uint32_t den = 1;

  static constexpr Ratio never() { return {0, 1}; }
  static constexpr Ratio always() { return {1, 1}; }
  bool is_never() const { return num == 0; }
  friend bool operator==(const Ratio&, const Ratio&) = default;
};

// One consumed choice: the value handed out and the exclusive bound it was drawn below.
struct Choice {
  std::uint64_t value = 0;
  std::uint64_t bound = 1;
  friend bool operator==(const Choice&, const Choice&) = default;
};

class ChoiceSource;

// A cheap handle on one named stream of a ChoiceSource. Copyable; must not outlive its source.
class ChoiceStream {
 public:
  ChoiceStream() = default;

  // Uniform in [0, bound). bound > 0. Returns 0 when bound == 1 without consuming a choice.
  std::uint64_t below(std::uint64_t bound);
  // True with probability `ratio`. Draw 0 means false (no event).
  bool chance(Ratio ratio);
  // Uniform in [lo, hi], both inclusive, lo <= hi. Draw 0 means lo.
  std::int64_t range(std::int64_t lo, std::int64_t hi);

 private:
  friend class ChoiceSource;
  ChoiceStream(ChoiceSource* source, int index) : source_(source), index_(index) {
    WSIM_ASSERT(source_ != nullptr);
    WSIM_ASSERT_GE(index_, 0);
  }
  ChoiceSource* source_ = nullptr;
  int index_ = 0;
};

class ChoiceSource {
 public:
  enum class Backend { kSeed, kTape, kKeyedTape, kBytes };
  // Values per key (actor name), for from_keyed_tape.
  using KeyedTape = std::map<std::string, std::vector<std::uint64_t>, std::less<>>;
  // The key of the draw being made: the running actor's name. The view must stay valid until the
  // next call (an actor's name does while it runs).
  using KeySource = std::function<std::string_view()>;
  enum class BytesTail { kZeros, kRandom };

  static ChoiceSource from_seed(std::uint64_t seed);
  // The seed backend, with the swarm streams (is_swarm_stream) drawn from `swarm_seed` instead:
  // another run's configuration with this run's timings and workload (sim/search/hunt_guide.h).
  static ChoiceSource from_seed(std::uint64_t seed, std::uint64_t swarm_seed);
  // The streams that draw a run's configuration rather than its events: "swarm" and "swarm2"
  // (fault points enabled, sim/core/fault.h), "incidents", "scheduler", and every
  // "<system>.swarm".
  static bool is_swarm_stream(std::string_view name);
  static ChoiceSource from_tape(std::vector<std::uint64_t> values);
  // REQUIRES: set_key_source before the first draw.
  static ChoiceSource from_keyed_tape(KeyedTape values);
  static ChoiceSource from_bytes(std::span<const std::uint8_t> bytes,
                                 BytesTail tail = BytesTail::kZeros);

  ChoiceSource(ChoiceSource&&) = default;
  ChoiceSource& operator=(ChoiceSource&&) = default;

  // The stream named `name`; the same name always gives the same stream. Stream identity only
  // matters for the seed backend; tape and bytes backends serve all streams from one cursor.
  ChoiceStream stream(std::string_view name);

  // Recording is off by default (hunting runs are re-run with recording when they fail).
  void set_recording(bool on) { recording_ = on; }
  const std::vector<Choice>& record() const { return record_; }
  // Where the keyed tape and key recording learn the current key (Sim installs the event loop's
  // running actor). Without one, every draw has the key "-".
  void set_key_source(KeySource source) {
    WSIM_ASSERT(source);
    key_source_ = std::move(source);
  }
  // With recording on: also record the key of every choice (record_keys()[i] indexes key_names()
  // for record()[i]). Off by default: it costs a name lookup per draw.
  void set_recording_keys(bool on) { recording_keys_ = on; }
  const std::vector<std::uint32_t>& record_keys() const { return record_keys_; }
  // True when draws need their key (key recording or the keyed tape): callers that would build a
  // scope key (KeyScope) skip the work otherwise.
  bool keys_needed() const { return recording_keys_ || backend_ == Backend::kKeyedTape; }
  const std::vector<std::string>& key_names() const { return key_names_; }
  std::uint64_t consumed() const { return consumed_; }
  Backend backend() const { return backend_; }
  std::uint64_t seed() const { return seed_; }
  // True once a tape/bytes backend ran past its end (every later draw returned 0, or came from
  // the random tail).
  bool exhausted() const { return exhausted_; }

  // Draws a value below `bound` from stream `index`. Prefer ChoiceStream. Inline: a run's every
  // choice comes through here (docs/performance.md §14.0); tape and bytes are out of line.
  std::uint64_t draw(int index, std::uint64_t bound) {
    const std::uint64_t value =
        backend_ == Backend::kSeed ? draw_seeded(index, bound) : draw_replayed(bound);
    WSIM_ASSERT_LT(value, bound);
    ++consumed_;
    if (recording_) {
      record_.push_back(Choice{value, bound});
      if (recording_keys_) record_keys_.push_back(current_key_index());
    }
    WSIM_ASSERT_LE(record_.size(), consumed_);  // Recording may start late, never runs ahead.
    return value;
  }

 private:
  std::uint64_t draw_seeded(int index, std::uint64_t bound) {
    WSIM_ASSERT_LT(static_cast<std::size_t>(index), generators_.size());
    return generators_[static_cast<std::size_t>(index)].below(bound);
  }
  std::uint64_t draw_replayed(std::uint64_t bound);
  explicit ChoiceSource(Backend backend) : backend_(backend) {}
  std::uint64_t next_from_tape(std::uint64_t bound);
  std::uint64_t next_from_bytes(std::uint64_t bound);
  std::uint64_t next_from_keyed_tape(std::uint64_t bound);
  std::string_view current_key() const;
  std::uint32_t current_key_index();

  Backend backend_;
  std::uint64_t seed_ = 0;
  std::uint64_t swarm_seed_ = 0;  // Equal to seed_ unless from_seed(seed, swarm_seed).
  std::map<std::string, int, std::less<>> stream_index_by_name_;
  std::vector<Xoshiro256> generators_;  // seed backend: one per stream
  std::vector<std::uint64_t> tape_;
  KeyedTape keyed_tape_;
  std::map<std::string, std::size_t, std::less<>> keyed_cursor_;
  KeySource key_source_;
  bool recording_keys_ = false;
  std::vector<std::uint32_t> record_keys_;
  std::vector<std::string> key_names_;
  std::map<std::string, std::uint32_t, std::less<>> key_index_by_name_;
  std::uint32_t last_key_index_ = 0;  // Valid when key_names_ is not empty.
  std::string scope_key_;             // KeyScope: replaces the actor's name as the key while set.
  bool scoped_ = false;
  friend class KeyScope;
  std::vector<std::uint8_t> bytes_;
  std::optional<Xoshiro256> tail_;  // BytesTail::kRandom: seeded by FNV-1a of bytes_.
  std::size_t cursor_ = 0;
  bool exhausted_ = false;
  bool recording_ = false;
  std::uint64_t consumed_ = 0;
  std::vector<Choice> record_;
};

// While alive, the draws of `source` have `key` instead of the running actor's name: the API
// server keys a request's draws (latency, injected faults) by its object, so that the choices
// about one workspace's Pod stay its own when shrinking mutes another workspace's user. Does
// nothing unless source.keys_needed(). Scopes nest: the innermost key wins until it ends.
class KeyScope {
 public:
  KeyScope(ChoiceSource& source, std::string_view key) : source_(source) {
    if (!source_.keys_needed()) return;
    WSIM_ASSERT_MSG(!key.empty(), "a key scope needs a key (the object a request is about)");
    active_ = true;
    outer_scoped_ = source_.scoped_;
    if (outer_scoped_) outer_key_ = source_.scope_key_;
    source_.scope_key_.assign(key);
    source_.scoped_ = true;
  }
  ~KeyScope() {
    if (!active_) return;
    WSIM_ASSERT(source_.scoped_);  // Scopes nest: an inner one ended restored ours.
    source_.scoped_ = outer_scoped_;
    if (outer_scoped_) source_.scope_key_ = std::move(outer_key_);
  }
  KeyScope(const KeyScope&) = delete;
  KeyScope& operator=(const KeyScope&) = delete;

 private:
  ChoiceSource& source_;
  bool active_ = false;
  bool outer_scoped_ = false;
  std::string outer_key_;
};

inline std::uint64_t ChoiceStream::below(std::uint64_t bound) {
  WSIM_ASSERT(source_ != nullptr);
  WSIM_ASSERT_GT(bound, 0u);
  if (bound == 1) return 0;
  return source_->draw(index_, bound);
}

// choices.bin: "WSIMCHO1", u64 count, then count × (u64 value, u64 bound), little-endian.
// Returns the bytes of a record.
std::string encode_choice_record(const std::vector<Choice>& record);
// The keyed tape of a record made with set_recording_keys: each key's values in order.
// REQUIRES: keys.size() == record.size(), every key < names.size().
ChoiceSource::KeyedTape keyed_tape_of(const std::vector<Choice>& record,
                                      const std::vector<std::uint32_t>& keys,
                                      const std::vector<std::string>& names);
// Parses choices.bin bytes. On malformed input returns false and sets `error` (what and at which
// byte offset); never allocates more than the input can hold.
bool decode_choice_record(std::string_view bytes, std::vector<Choice>& record, std::string& error);

}  // namespace wsim
