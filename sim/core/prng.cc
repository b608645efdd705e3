#include "sim/core/prng.h"

#include "sim/core/assert.h"

namespace wsim {

namespace {
constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t hash) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

Xoshiro256::Xoshiro256(std::uint64_t seed) : seed_(seed) {
  SplitMix64 mix(seed);
  for (auto& word : state_) word = mix.next();
  // xoshiro256** must never be seeded all-zero (it would stay zero forever).
  WSIM_ASSERT((state_[0] | state_[1] | state_[2] | state_[3]) != 0);
}

std::uint64_t Xoshiro256::next() {
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

std::uint64_t Xoshiro256::below(std::uint64_t bound) {
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

Xoshiro256 Xoshiro256::fork(std::string_view name) const {
  WSIM_ASSERT_MSG(!name.empty(), "a forked stream needs a name");
  return Xoshiro256(SplitMix64(seed_ ^ fnv1a64(name)).next());
}

}  // namespace wsim
