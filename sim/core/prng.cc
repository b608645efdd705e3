// SplitMix64, FNV-1a and the xoshiro256** seeding and forking behind ChoiceSource's seed backend
// (prng.h).
#include "sim/core/prng.h"

#include "sim/core/assert.h"

namespace wsim {

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

Xoshiro256 Xoshiro256::fork(std::string_view name) const {
  WSIM_ASSERT_MSG(!name.empty(), "a forked stream needs a name");
  return Xoshiro256(SplitMix64(seed_ ^ fnv1a64(name)).next());
}

}  // namespace wsim
