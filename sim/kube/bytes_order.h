// The order of std::string (char_traits<char>::compare: unsigned bytes, then the shorter first),
// computed inline. A lookup in a map keyed by strings compares the key with two to five stored
// keys; std::less<std::string> makes each of those a call to libc's memcmp (a tenth of a Gitpod
// run, docs/performance.md §10–§11). compare_bytes gives the very same order eight bytes at a
// time as big-endian words, so maps ordered by it iterate exactly like std::map<std::string, …>.
//
// Contract: compare_bytes(a, b) has the sign of std::string_view(a).compare(b) for every pair
// (tests/kube/object_ref_order_test.cc checks it against std::string::compare).
#pragma once

#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "sim/core/assert.h"

namespace wsim::kube {

namespace bytes_detail {

// Eight bytes at `s` as a big-endian word (the first byte most significant).
inline std::uint64_t load_word(const char* s) {
  std::uint64_t v = 0;
  std::memcpy(&v, s, 8);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

// The k bytes at `s`, 1 <= k <= 7, as a big-endian number (numbers of the same k compare like
// the bytes): two overlapping loads of four (or two) bytes, no loop over the bytes.
inline std::uint64_t load_short(const char* s, std::size_t k) {
  WSIM_ASSERT_GE(k, 1u);
  WSIM_ASSERT_LE(k, 7u);
  if (k >= 4) {
    std::uint32_t hi = 0;
    std::uint32_t lo = 0;
    std::memcpy(&hi, s, 4);
    std::memcpy(&lo, s + k - 4, 4);
    if constexpr (std::endian::native == std::endian::little) {
      hi = __builtin_bswap32(hi);
      lo = __builtin_bswap32(lo);
    }
    const unsigned tail_bits = 8 * static_cast<unsigned>(k - 4);  // 0..24
    return (std::uint64_t{hi} << tail_bits) | (lo & ((std::uint64_t{1} << tail_bits) - 1));
  }
  if (k >= 2) {
    const auto b = [s](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(s[i])}; };
    return k == 2 ? (b(0) << 8) | b(1) : (b(0) << 16) | (b(1) << 8) | b(2);
  }
  return static_cast<unsigned char>(s[0]);
}

}  // namespace bytes_detail

// std::string's order of `a` and `b`, inline (see the top of this file).
inline std::strong_ordering compare_bytes(std::string_view a, std::string_view b) {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  const char* p = a.data();
  const char* q = b.data();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t x = bytes_detail::load_word(p + i);
    const std::uint64_t y = bytes_detail::load_word(q + i);
    if (x != y) return x <=> y;
  }
  if (i < n) {
    // The last 1..7 common bytes as one word: an overlapping load when there are 8 bytes or
    // more (the bytes before it are equal already).
    const std::uint64_t x =
        n >= 8 ? bytes_detail::load_word(p + n - 8) : bytes_detail::load_short(p, n);
    const std::uint64_t y =
        n >= 8 ? bytes_detail::load_word(q + n - 8) : bytes_detail::load_short(q, n);
    if (x != y) return x <=> y;
  }
  return a.size() <=> b.size();
}

// std::less<std::string>'s order through compare_bytes (the comparator of Fields' maps).
// Transparent: a map ordered by it is searched with a std::string_view (a key spelled as a
// literal or a `const char*` constant builds no std::string per lookup, docs/performance.md §12).
struct BytesLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return compare_bytes(a, b) < 0; }
};

}  // namespace wsim::kube
