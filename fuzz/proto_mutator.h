// A small structure-aware mutator over protobuf reflection (docs/architecture.md §7):
// libprotobuf-mutator is not packaged in Debian 12 and nothing is vendored, so this is the
// project's own `LLVMFuzzerCustomMutator` / `LLVMFuzzerCustomCrossOver` engine.
//
// The input and output are binary protobuf of one message type (the root descriptor). One call
// to `mutate` applies exactly one mutation, chosen first by kind, then by site:
//
//   kScalar  change one scalar field (ints: small log-scaled deltas, a bit flip, a boundary value
//            or, with a range hook, a value drawn in range; bool: flip; enum: another value;
//            string: a word of the field's vocabulary, else libFuzzer's own byte mutation of the
//            string (the dictionary), else a random byte edit);
//   kAdd     insert a new element into a repeated field (built by the field's builder hook when
//            there is one, else a default element with every scalar field randomized);
//   kDelete  erase one element of a repeated field;
//   kCopy    duplicate one element of a repeated field at another position;
//   kSwap    swap two elements of a repeated field.
//
// Crossover splices the repeated fields of two parents (a prefix of one, a suffix of the other)
// and takes each singular scalar field from either parent.
//
// Threading: none; an object is used by one thread (libFuzzer calls the mutator from the fuzzing
// thread only).
//
// Invariants:
//   1. Deterministic: the output is a function of (input bytes, seed, max_size, hooks). All
//      randomness comes from a wsim::Xoshiro256 seeded with the libFuzzer seed; the one exception
//      is the optional `mutate_bytes` hook (libFuzzer's LLVMFuzzerMutate uses its own RNG).
//   2. The output parses as the root message, and is at most max_size bytes: a mutation that
//      would exceed it is retried, and at last the input is returned unchanged.
//   3. Only fields accepted by the `mutable_fields` hook are ever changed (others keep their
//      input value, including after crossover, where they come from the first parent).
//   4. Unknown fields are discarded on parse (LPM #179: fuzzed unknown fields are noise) and the
//      recursion depth is capped at kDepthMax (LPM #143, #179: stack overflows).
//
// Not modelled: oneof switching, map-specific keys (a map is mutated as a repeated message of
// entries, so duplicate keys collapse on parse), groups, extensions, `Any`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "sim/core/prng.h"

namespace wsim::fuzz {

enum class MutationKind { kScalar = 0, kAdd, kDelete, kCopy, kSwap };
inline constexpr int kMutationKindsCount = 5;
const char* mutation_kind_name(MutationKind kind);

// Field-specific knowledge. Fields are named by their full name: "wsim.proto.ScriptedEvent.at_ms".
struct ProtoMutatorHooks {
  // The fields the mutator may change (scalars) or add to / delete from (repeated) or descend
  // into (messages). Empty = every field.
  std::set<std::string> mutable_fields;
  // Words a string field draws from (3 times in 4; otherwise a byte mutation).
  std::map<std::string, std::vector<std::string>> strings;
  // Inclusive range of an integer field: mutated values are clamped into it, and a quarter of
  // the mutations draw uniformly in it.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> int_ranges;
  // Builds a new element of a repeated message field (a valid one; kAdd), given the generator.
  std::map<std::string, std::function<void(google::protobuf::Message&, Xoshiro256& prng)>> builders;
  // libFuzzer's LLVMFuzzerMutate(data, size, max_size) → new size (uses the -dict words); null in
  // unit tests (then a random byte edit).
  std::function<std::size_t(std::uint8_t*, std::size_t, std::size_t)> mutate_bytes;
  // Repairs the root message after every mutation and crossover (libprotobuf-mutator's
  // PostProcessorRegistration): e.g. an action whose actor does not perform it gets that actor.
  // Must be deterministic (it gets no generator) and must not grow the message much.
  std::function<void(google::protobuf::Message&)> post_process;
  // Cap of one string field after mutation.
  std::size_t string_bytes_max = 256;
  // Cap of one repeated field's length (kAdd/kCopy are not offered at the cap).
  int repeated_max = 64;
};

class ProtoMutator {
 public:
  // REQUIRES: `root` outlives the mutator (generated descriptors are static).
  ProtoMutator(const google::protobuf::Descriptor* root, ProtoMutatorHooks hooks);

  // Applies one mutation to `message` (of the root type), then the post_process hook, and returns
  // its kind. When nothing is
  // mutable (no allowed field at all), leaves the message as it is and returns kScalar.
  MutationKind mutate(google::protobuf::Message& message, Xoshiro256& prng) const;

  // LLVMFuzzerCustomMutator: parses data[0, size) (empty message on failure), mutates once,
  // serializes deterministically into data. REQUIRES: data holds max_size bytes. Returns the new
  // size (<= max_size). `kind`, if not null, receives the kind applied.
  std::size_t mutate_bytes(std::uint8_t* data, std::size_t size, std::size_t max_size,
                           std::uint32_t seed, MutationKind* kind = nullptr) const;

  // Splices `a` and `b` into `out` (all three of the root type; `out` is overwritten).
  void cross_over(const google::protobuf::Message& a, const google::protobuf::Message& b,
                  google::protobuf::Message& out, Xoshiro256& prng) const;

  // LLVMFuzzerCustomCrossOver: writes at most max_out_size bytes to out and returns the size
  // (a parent unchanged, cut to nothing, if no splice fits).
  std::size_t cross_over_bytes(const std::uint8_t* data1, std::size_t size1,
                               const std::uint8_t* data2, std::size_t size2, std::uint8_t* out,
                               std::size_t max_out_size, std::uint32_t seed) const;

  static constexpr int kDepthMax = 8;
  static constexpr int kAttemptsMax = 8;  // mutations tried before the input is kept as it is

 private:
  struct Site;
  bool allowed(const google::protobuf::FieldDescriptor* field) const;
  void collect(google::protobuf::Message& message, int depth, std::vector<Site>& sites) const;
  void apply(const Site& site, Xoshiro256& prng) const;
  void mutate_scalar(google::protobuf::Message& message,
                     const google::protobuf::FieldDescriptor* field, int index,
                     Xoshiro256& prng) const;
  std::int64_t mutate_int(const google::protobuf::FieldDescriptor* field, std::int64_t value,
                          std::int64_t lo, std::int64_t hi, Xoshiro256& prng) const;
  std::string mutate_string(const google::protobuf::FieldDescriptor* field, std::string value,
                            Xoshiro256& prng) const;
  void randomize(google::protobuf::Message& message, int depth, Xoshiro256& prng) const;
  void add_element(google::protobuf::Message& message,
                   const google::protobuf::FieldDescriptor* field, Xoshiro256& prng) const;
  void splice(const google::protobuf::Message& a, const google::protobuf::Message& b,
              google::protobuf::Message& out, int depth, Xoshiro256& prng) const;

  const google::protobuf::Descriptor* root_;
  ProtoMutatorHooks hooks_;
};

}  // namespace wsim::fuzz
