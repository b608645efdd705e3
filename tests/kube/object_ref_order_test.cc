// ObjectRef's inline order (ObjectRef::compare_bytes / compare_ref, sim/kube/object.h) is
// std::string's: lists, the store and the informer caches iterate in the order they did with
// std::string's operator<=> (docs/performance.md §10). Checked against std::string::compare on
// generated strings with shared prefixes, every length around the 8-byte words, and bytes ≥ 0x80.
// The same order keys the maps of Fields (sim/kube/bytes_order.h, docs/performance.md §11).
#include <gtest/gtest.h>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>  // tidy: allow-unordered (ObjectRefHash's test)
#include <vector>

#include "sim/kube/object.h"

namespace wsim::kube {
namespace {

std::strong_ordering reference(const std::string& a, const std::string& b) {
  const int c = a.compare(b);
  return c < 0 ? std::strong_ordering::less
               : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

// Strings of length 0..19 over a small alphabet (many shared prefixes), some with bytes ≥ 0x80.
std::vector<std::string> samples() {
  const std::string alphabet = std::string("ab-z") + static_cast<char>(0x80) +
                               static_cast<char>(0xff) + static_cast<char>(0x01);
  std::vector<std::string> out = {""};
  std::uint64_t x = 7;
  for (int i = 0; i < 400; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::size_t len = (x >> 33) % 20;
    std::string s;
    for (std::size_t j = 0; j < len; ++j) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      // Mostly 'a' so that strings share long prefixes and differ late.
      s += (x >> 60) < 12 ? 'a' : alphabet[(x >> 33) % alphabet.size()];
    }
    out.push_back(s);
  }
  return out;
}

TEST(ObjectRefOrder, CompareBytesIsStdStringCompare) {
  const std::vector<std::string> all = samples();
  for (const std::string& a : all) {
    for (const std::string& b : all) {
      ASSERT_EQ(ObjectRef::compare_bytes(a, b), reference(a, b))
          << "'" << a << "' vs '" << b << "'";
    }
  }
}

TEST(ObjectRefOrder, RefsOrderByNamespaceNameKind) {
  const std::vector<std::string> all = samples();
  for (std::size_t i = 0; i + 2 < all.size(); i += 3) {
    const ObjectRef a{all[i], all[i + 1], all[i + 2]};
    const ObjectRef b{all[i + 2], all[i + 1], all[i]};
    const auto expected =
        std::tie(a.namespace_, a.name, a.kind) <=> std::tie(b.namespace_, b.name, b.kind);
    EXPECT_EQ(a <=> b, expected);
    EXPECT_EQ(ObjectRefLess()(a, ObjectRefView{b.kind, b.namespace_, b.name}), expected < 0);
    EXPECT_EQ(ObjectRefLess()(ObjectRefView{a.kind, a.namespace_, a.name}, b), expected < 0);
  }
}

TEST(ObjectRefOrder, ViewLookupFindsWhatTheRefFinds) {
  std::map<ObjectRef, int, ObjectRefLess> map;
  map.emplace(ObjectRef{"Pod", "default", "ws-1"}, 1);
  map.emplace(ObjectRef{"Pod", "default", "ws-10"}, 2);
  map.emplace(ObjectRef{"Namespace", "", "default"}, 3);
  EXPECT_EQ(map.find(ObjectRefView{"Pod", "default", "ws-10"})->second, 2);
  EXPECT_EQ(map.find(ObjectRefView{"Namespace", "", "default"})->second, 3);
  EXPECT_EQ(map.find(ObjectRefView{"Pod", "default", "ws-2"}), map.end());
  EXPECT_EQ(map.begin()->second, 3);  // Namespace "" sorts first, as with std::string.
}

// Fields' maps order their keys with BytesLess (sim/kube/fields.h): a Fields iterates in the
// order of a std::map<std::string, std::string> with the same entries and finds every key.
TEST(ObjectRefOrder, FieldsIterateInStdMapOrder) {
  std::map<std::string, std::string> reference_map;
  for (const std::string& s : samples()) reference_map[s] = s + "=";
  const Fields fields(reference_map);
  ASSERT_EQ(fields.size(), reference_map.size());
  EXPECT_TRUE(std::equal(fields.begin(), fields.end(), reference_map.begin()));
  EXPECT_EQ(fields, reference_map);
  for (const auto& [key, value] : reference_map) {
    auto it = fields.find(key);
    ASSERT_NE(it, fields.end()) << key;
    EXPECT_EQ(it->second, value);
  }
  EXPECT_EQ(fields.find("not-a-sample-key-at-all"), fields.end());
  Fields edited = fields;
  edited["aaaa-new"] = "x";  // Inserted where std::map would insert it.
  reference_map["aaaa-new"] = "x";
  EXPECT_EQ(edited, reference_map);
  EXPECT_NE(fields, reference_map);
}

// ObjectRefHash / ObjectRefEqual (the lookup-only hash indexes of the store and the conformance
// monitor, docs/performance.md §14.2): a ref and its view hash alike; the parts are delimited
// (moving bytes between them changes the hash); a hash map keyed by them finds every sample.
TEST(ObjectRefHash, RefsAndViewsHashAlikeAndPartsAreDelimited) {
  const ObjectRefHash hash;
  const ObjectRefEqual equal;
  const ObjectRef ref{"Pod", "default", "ws-1"};
  EXPECT_EQ(hash(ref), hash(ObjectRefView{"Pod", "default", "ws-1"}));
  EXPECT_TRUE(equal(ref, ObjectRefView{"Pod", "default", "ws-1"}));
  EXPECT_FALSE(equal(ref, ObjectRefView{"Pod", "default", "ws-2"}));
  EXPECT_FALSE(equal(ref, ObjectRefView{"Secret", "default", "ws-1"}));
  EXPECT_FALSE(equal(ref, ObjectRefView{"Pod", "other", "ws-1"}));
  EXPECT_NE(hash(ObjectRefView{"Pod", "ab", "c"}), hash(ObjectRefView{"Pod", "a", "bc"}));
  EXPECT_NE(hash(ObjectRefView{"Pod", "", "abc"}), hash(ObjectRefView{"Pod", "abc", ""}));
  EXPECT_NE(hash(ObjectRefView{"Pod", "ns", "name-of-sixteen!"}),
            hash(ObjectRefView{"Pod", "ns", "name-of-sixteen?"}));
  // Every sample as a name and as a namespace, in one map: each found again, none confused.
  std::unordered_map<ObjectRef, int, ObjectRefHash, ObjectRefEqual>
      map;  // tidy: allow-unordered (a test's lookups)
  const std::vector<std::string> all = samples();
  const std::set<std::string> unique(all.begin(), all.end());
  int n = 0;
  for (const std::string& s : unique) {
    map[ObjectRef{"Pod", "ns", s}] = n++;
    map[ObjectRef{"Pod", s, "name"}] = n++;
  }
  ASSERT_EQ(map.size(), static_cast<std::size_t>(n));
  n = 0;
  for (const std::string& s : unique) {
    EXPECT_EQ(map.find(ObjectRefView{"Pod", "ns", s})->second, n++);
    EXPECT_EQ(map.find(ObjectRefView{"Pod", s, "name"})->second, n++);
  }
  EXPECT_EQ(map.find(ObjectRefView{"Pod", "ns", "not-a-sample-name"}), map.end());
}

}  // namespace
}  // namespace wsim::kube
