// SharedVector (sim/kube/shared_vector.h): copies share their vector until one of them is
// written; a write is never seen through another copy; reads behave like the std::vector they
// stand for. Object's conditions and owner references are SharedVectors.
#include "sim/kube/shared_vector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/kube/object.h"

namespace wsim::kube {
namespace {

TEST(SharedVector, ACopySharesTheVectorUntilOneSideWrites) {
  SharedVector<std::string> a{"x", "y"};
  SharedVector<std::string> b = a;
  EXPECT_EQ(&a.vector(), &b.vector());  // Shared: the copy made no new vector.
  b.push_back("z");
  EXPECT_NE(&a.vector(), &b.vector());
  EXPECT_EQ(a.vector(), (std::vector<std::string>{"x", "y"}));  // The original is untouched.
  EXPECT_EQ(b.vector(), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(SharedVector, EveryWriteDetachesOnlyTheWrittenCopy) {
  const SharedVector<int> original{1, 2, 3};
  SharedVector<int> pushed = original;
  pushed.push_back(4);
  SharedVector<int> emplaced = original;
  emplaced.emplace_back(5);
  SharedVector<int> cleared = original;
  cleared.clear();
  SharedVector<int> through_vector = original;
  through_vector.mutable_vector()[0] = 10;
  SharedVector<int> assigned = original;
  assigned = std::vector<int>{7};
  EXPECT_EQ(original, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(pushed, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(emplaced, (std::vector<int>{1, 2, 3, 5}));
  EXPECT_TRUE(cleared.empty());
  EXPECT_EQ(through_vector, (std::vector<int>{10, 2, 3}));
  EXPECT_EQ(assigned, (std::vector<int>{7}));
}

TEST(SharedVector, ReadsAsAVector) {
  const SharedVector<int> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.begin(), empty.end());
  const SharedVector<int> v{3, 1, 2};
  const std::vector<int>& as_vector = v;  // Binds without a copy.
  EXPECT_EQ(&as_vector, &v.vector());
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1], 1);
  EXPECT_EQ(v.front(), 3);
  EXPECT_EQ(v.back(), 2);
  int sum = 0;
  for (int x : v) sum += x;
  EXPECT_EQ(sum, 6);
  EXPECT_EQ(v, (SharedVector<int>{3, 1, 2}));  // Equal by content, not by sharing.
  EXPECT_FALSE(v == (SharedVector<int>{3, 1}));
}

TEST(SharedVector, AnObjectCopyChangedLeavesTheOriginal) {
  Object original;
  original.kind = "Pod";
  original.conditions.push_back(Condition{"Ready", "True", "", "", 5});
  original.meta.owner_references.push_back(OwnerReference{"Workspace", "ws-1", "uid-1", true});
  Object copy = original;
  EXPECT_EQ(copy, original);
  copy.conditions.mutable_vector()[0].status = "False";
  copy.meta.owner_references.clear();
  EXPECT_EQ(original.conditions[0].status, "True");
  EXPECT_EQ(original.meta.owner_references.size(), 1u);
  EXPECT_NE(copy, original);
}

}  // namespace
}  // namespace wsim::kube
