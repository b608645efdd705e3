// Fields (sim/kube/fields.h): copies share their map until one of them is written; a write is
// never seen through another copy; reads behave like the std::map they stand for.
#include "sim/kube/fields.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <string_view>

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

// Lookups by std::string_view (BytesLess is transparent, docs/performance.md §12) find what a
// std::string key finds, in maps whose keys share prefixes and differ in length.
TEST(Fields, LookupsByViewFindWhatAStringKeyFinds) {
  const Fields f{
      {"container.state", "running"}, {"container.stateX", "x"}, {"container.reason", "r"},
      {"phase", "Running"},           {"ph", "short"},           {"ready", ""}};
  for (const std::string key : {"container.state", "container.stateX", "container.stat", "phase",
                                "ph", "p", "ready", "readyz", "", "zzz"}) {
    const std::string_view view = key;
    EXPECT_EQ(f.find(view), f.map().find(key)) << key;
    EXPECT_EQ(f.contains(view), f.map().count(key) == 1) << key;
    EXPECT_EQ(f.count(view), f.map().count(key)) << key;
    EXPECT_EQ(f.lower_bound(view), f.map().lower_bound(key)) << key;
    EXPECT_EQ(f.upper_bound(view), f.map().upper_bound(key)) << key;
  }
  EXPECT_EQ(f.value_or_empty("container.state"), "running");
  EXPECT_EQ(f.value_or_empty("container.stat"), "");  // Absent: empty.
  EXPECT_EQ(f.value_or_empty("ready"), "");           // Present and empty: empty too.
  EXPECT_EQ(Fields().value_or_empty("phase"), "");
}

TEST(Fields, ObjectReadsByViewMatchTheirStringForms) {
  Object pod;
  pod.kind = "Pod";
  pod.status["phase"] = "Running";
  pod.status["container.message"] = "a message longer than the small-string buffer";
  pod.spec["nodeName"] = "node-1";
  pod.conditions.push_back(Condition{"Ready", "True", "", "", 0});
  const char* const key = "container.message";  // A names.h-style constant.
  EXPECT_EQ(pod.status_or(key, "none"), "a message longer than the small-string buffer");
  EXPECT_EQ(pod.status_or(std::string("phase"), "none"), "Running");
  EXPECT_EQ(pod.status_or("reason", "none"), "none");
  EXPECT_EQ(pod.spec_or("nodeName", ""), "node-1");
  EXPECT_EQ(pod.spec_or("nodeSelector", "any"), "any");
  EXPECT_EQ(pod.status_view("phase"), "Running");
  EXPECT_EQ(pod.status_view("reason"), "");
  ASSERT_NE(pod.condition("Ready"), nullptr);
  EXPECT_EQ(pod.condition(std::string("Ready"))->status, "True");
  EXPECT_EQ(pod.condition("Read"), nullptr);
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
