// The project's own PRNG: xoshiro256** seeded through splitmix64. Never use <random> engines or
// distributions: their output differs across standard libraries (docs/architecture.md §2).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace wsim {

// splitmix64 (Steele, Lea, Flood 2014): used to expand a 64-bit seed into generator state.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();

 private:
  std::uint64_t state_;
};

// 64-bit FNV-1a over bytes. Stable across platforms; used to derive stream seeds from names.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t hash = 0xcbf29ce484222325ULL);

// xoshiro256** 1.0 (Blackman, Vigna 2018).
class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed);

  std::uint64_t next();

  // Uniform in [0, bound) without modulo bias (Lemire's method with rejection). bound > 0.
  std::uint64_t below(std::uint64_t bound);

  // A new generator whose sequence is independent of this one's and depends only on this
  // generator's seed and `name` (not on how many numbers were drawn so far).
  Xoshiro256 fork(std::string_view name) const;

 private:
  std::uint64_t seed_;
  std::array<std::uint64_t, 4> state_;
};

}  // namespace wsim
