// RecentById (model/gitlab/invariants/recent_by_id.h) against what it replaced: a std::map of id
// to value trimmed to its `capacity` largest ids after every insertion. The checker's and the
// protocol model's verdicts depend on which requests they still remember, so the two must agree
// on every sequence, not only on the standard seeds' mostly increasing ids.
#include "model/gitlab/invariants/recent_by_id.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

namespace wsim::gitlab {
namespace {

struct Op {
  int kind = 0;  // 0 insert, 1 assign, 2 find, 3 trim, 4 clear
  std::uint64_t id = 0;
  int value = 0;
};

void trim(std::map<std::uint64_t, int>& reference, std::size_t capacity) {
  while (reference.size() > capacity) reference.erase(reference.begin());
}

// Applies `op` to both and checks that they answer alike.
void apply(const Op& op, std::size_t capacity, std::map<std::uint64_t, int>& reference,
           RecentById<int>& recent) {
  switch (op.kind) {
    case 0: {
      const bool inserted = reference.emplace(op.id, op.value).second;
      trim(reference, capacity);
      RC_ASSERT(recent.insert(op.id, op.value) == inserted);
      break;
    }
    case 1:
      reference[op.id] = op.value;
      trim(reference, capacity);
      recent.assign(op.id, op.value);
      break;
    case 2: {
      const auto it = reference.find(op.id);
      const int* found = recent.find(op.id);
      // Booleans and ints only: RapidCheck's report dereferences a captured pointer.
      const bool in_recent = found != nullptr;
      const bool in_reference = it != reference.end();
      RC_ASSERT(in_recent == in_reference);
      if (in_recent) RC_ASSERT(*found == it->second);
      break;
    }
    case 3:
      trim(reference, capacity);
      recent.trim();
      break;
    default:
      reference.clear();
      recent.clear();
      break;
  }
  RC_ASSERT(recent.size() == reference.size());
  for (const auto& [id, value] : reference) {
    const int* found = recent.find(id);
    const bool in_recent = found != nullptr;
    RC_ASSERT(in_recent);
    RC_ASSERT(*found == value);
  }
}

RC_GTEST_PROP(RecentByIdProp, AgreesWithATrimmedMap, ()) {
  const auto capacity = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  // Mostly growing ids (requests in order), some repeated or older (answered out of order).
  const auto ops = *rc::gen::container<std::vector<Op>>(rc::gen::build<Op>(
      rc::gen::set(&Op::kind,
                   rc::gen::weightedElement<int>({{6, 0}, {3, 1}, {4, 2}, {1, 3}, {1, 4}})),
      rc::gen::set(&Op::id, rc::gen::inRange<std::uint64_t>(0, 40)),
      rc::gen::set(&Op::value, rc::gen::inRange(0, 100))));
  std::map<std::uint64_t, int> reference;
  RecentById<int> recent(capacity);
  for (const Op& op : ops) apply(op, capacity, reference, recent);
}

TEST(RecentById, KeepsTheLargestIdsAndDropsAnOlderOneAtOnceWhenFull) {
  RecentById<int> recent(2);
  EXPECT_TRUE(recent.insert(10, 1));
  EXPECT_TRUE(recent.insert(11, 2));
  EXPECT_TRUE(recent.insert(12, 3));  // 10 is trimmed.
  EXPECT_EQ(recent.find(10), nullptr);
  ASSERT_NE(recent.find(11), nullptr);
  EXPECT_EQ(*recent.find(12), 3);
  EXPECT_TRUE(recent.insert(5, 4));  // Older than every stored id: inserted, then trimmed.
  EXPECT_EQ(recent.find(5), nullptr);
  EXPECT_EQ(recent.size(), 2u);
  EXPECT_FALSE(recent.insert(12, 9));  // Already stored: unchanged.
  EXPECT_EQ(*recent.find(12), 3);
  recent.assign(12, 9);
  EXPECT_EQ(*recent.find(12), 9);
}

}  // namespace
}  // namespace wsim::gitlab
