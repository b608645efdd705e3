// Fields (sim/kube/fields.h): copies share their map until one of them is written; a write is
// never seen through another copy; reads behave like the std::map they stand for.
#include "sim/kube/fields.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>

#include "sim/kube/object.h"

namespace wsim::kube {
namespace {

TEST(Fields, ACopySharesTheMapUntilOneSideWrites) {
  Fields a{{"x", "1"}, {"y", "2"}};
  Fields b = a;
  EXPECT_EQ(&a.map(), &b.map());  // Shared: the copy made no new map.
  b["x"] = "10";
  EXPECT_NE(&a.map(), &b.map());
  EXPECT_EQ(a.at("x"), "1");  // The original is untouched.
  EXPECT_EQ(b.at("x"), "10");
  EXPECT_EQ(b.at("y"), "2");
}

TEST(Fields, EveryWriteDetachesOnlyTheWrittenCopy) {
  const Fields original{{"a", "1"}, {"b", "2"}, {"c", "3"}};
  Fields erased = original;
  EXPECT_EQ(erased.erase("b"), 1u);
  Fields assigned = original;
  assigned.insert_or_assign("d", "4");
  Fields emplaced = original;
  emplaced.emplace("e", "5");
  Fields cleared = original;
  cleared.clear();
  Fields through_map = original;
  through_map.mutable_map()["a"] = "changed";
  EXPECT_EQ(original, (Fields{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(erased, (Fields{{"a", "1"}, {"c", "3"}}));
  EXPECT_EQ(assigned.size(), 4u);
  EXPECT_EQ(emplaced.at("e"), "5");
  EXPECT_TRUE(cleared.empty());
  EXPECT_EQ(through_map.at("a"), "changed");
}

TEST(Fields, EraseOfAMissingKeyDoesNotDetach) {
  Fields a{{"x", "1"}};
  Fields b = a;
  EXPECT_EQ(b.erase("nope"), 0u);
  EXPECT_EQ(&a.map(), &b.map());
}

TEST(Fields, EraseByIteratorOfASharedMapErasesInTheOwnCopy) {
  Fields a{{"a", "1"}, {"b", "2"}, {"c", "3"}};
  Fields b = a;
  // The usual erase-while-iterating loop, started while `b` still shares `a`'s map.
  for (auto it = b.begin(); it != b.end();) {
    it = it->second == "2" ? b.erase(it) : std::next(it);
  }
  EXPECT_EQ(b, (Fields{{"a", "1"}, {"c", "3"}}));
  EXPECT_EQ(a, (Fields{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
}

TEST(Fields, ReadsAreThoseOfTheMap) {
  const Fields empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.find("x"), empty.end());
  EXPECT_EQ(empty, Fields::Map{});
  const Fields f{{"b", "2"}, {"a", "1"}};
  std::string keys;
  for (const auto& [key, value] : f) keys += key + "=" + value + ";";
  EXPECT_EQ(keys, "a=1;b=2;");  // Sorted, as std::map.
  EXPECT_TRUE(f.contains("a"));
  EXPECT_EQ(f.count("z"), 0u);
  EXPECT_EQ(f, (Fields::Map{{"a", "1"}, {"b", "2"}}));
  // An empty map and a Fields that never held one are equal.
  Fields emptied{{"x", "1"}};
  emptied.erase("x");
  EXPECT_EQ(emptied, empty);
}

TEST(Fields, AnObjectCopyChangedDoesNotChangeTheOriginal) {
  Object original;
  original.kind = "ConfigMap";
  original.meta.labels["app"] = "a";
  original.spec["replicas"] = "1";
  original.data["k"] = "v";
  Object copy = original;
  copy.meta.labels["app"] = "b";
  copy.spec.erase("replicas");
  copy.data["k2"] = "v2";
  EXPECT_EQ(original.meta.labels.at("app"), "a");
  EXPECT_EQ(original.spec.at("replicas"), "1");
  EXPECT_EQ(original.data.size(), 1u);
  EXPECT_FALSE(copy == original);
  Object same = original;
  EXPECT_TRUE(same == original);
}

}  // namespace
}  // namespace wsim::kube
