// The project's own PRNG: xoshiro256** seeded through splitmix64. Never use <random> engines or
// distributions: their output differs across standard libraries (docs/architecture.md §2).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/core/assert.h"

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

  // Inline, with below(): every choice of a run is one call of each (docs/performance.md §14.0).
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, bound) without modulo bias (Lemire's method with rejection). bound > 0.
  std::uint64_t below(std::uint64_t bound) {
    WSIM_ASSERT_GT(bound, 0u);
    // Lemire, "Fast Random Integer Generation in an Interval" (2019), 128-bit multiply.
    unsigned __int128 product = static_cast<unsigned __int128>(next()) * bound;
    std::uint64_t low = static_cast<std::uint64_t>(product);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        product = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<std::uint64_t>(product);
      }
    }
    const auto value = static_cast<std::uint64_t>(product >> 64);
    WSIM_ASSERT_LT(value, bound);
    return value;
  }

  // A new generator whose sequence is independent of this one's and depends only on this
  // generator's seed and `name` (not on how many numbers were drawn so far).
  Xoshiro256 fork(std::string_view name) const;

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t seed_;
  std::array<std::uint64_t, 4> state_;
};

}  // namespace wsim
