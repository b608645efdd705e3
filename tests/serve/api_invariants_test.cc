// serve/api_invariants.h: the scenario's invariants over API state — parsing (with errors that
// say what was expected) and checking them on a fake API server.
#include "serve/api_invariants.h"

#include <gtest/gtest.h>

#include "sim/core/choice.h"
#include "sim/kube/api_server.h"

namespace wsim::serve {
namespace {

struct Fixture {
  Sim sim{ChoiceSource::from_seed(1)};
  kube::ApiServer api{sim};

  Fixture() { add("Namespace", "", "default"); }

  void add(const std::string& kind, const std::string& ns, const std::string& name,
           std::map<std::string, std::string> labels = {}) {
    kube::Object object;
    object.kind = kind;
    object.meta.namespace_ = ns;
    object.meta.name = name;
    object.meta.labels = std::move(labels);
    ASSERT_TRUE(api.server_create(object, "test").ok());
  }
};

ApiInvariant parsed(const std::string& text) {
  ApiInvariant inv;
  std::string error;
  EXPECT_TRUE(parse_api_invariant(text, inv, error)) << error;
  inv.id = "external.X";
  return inv;
}

TEST(ServeApiInvariants, ParseErrorsSayWhatWasExpected) {
  ApiInvariant inv;
  std::string error;
  EXPECT_FALSE(parse_api_invariant("sometimes: at most 1 Pod per label a", inv, error));
  EXPECT_NE(error.find("'always:' or 'eventually:'"), std::string::npos) << error;
  EXPECT_FALSE(parse_api_invariant("always: at most x Pod per label a", inv, error));
  EXPECT_NE(error.find("at most N KIND per label KEY"), std::string::npos) << error;
  EXPECT_FALSE(parse_api_invariant("eventually: at most 1 Pod per label a", inv, error));
  EXPECT_FALSE(parse_api_invariant("always: every Pod has", inv, error));
  EXPECT_FALSE(parse_api_invariant("always: every Pod has Workspace a b c", inv, error));
  EXPECT_FALSE(parse_api_invariant("always: no Pod in", inv, error));
  std::vector<ApiInvariant> list;
  EXPECT_FALSE(parse_api_invariants({"always: no Pod", "bad"}, list, error));
  EXPECT_NE(error.find("invariants[1]"), std::string::npos) << error;
}

TEST(ServeApiInvariants, IdsAreNumberedPerKindInOrder) {
  std::vector<ApiInvariant> list;
  std::string error;
  ASSERT_TRUE(parse_api_invariants(
      {"always: no Pod", "eventually: no Pod", "always: at most 2 Pod per label a"}, list, error))
      << error;
  EXPECT_EQ(list[0].id, "external.S1");
  EXPECT_EQ(list[1].id, "external.L1");
  EXPECT_EQ(list[2].id, "external.S2");
  EXPECT_EQ(list[2].at_most, 2);
}

TEST(ServeApiInvariants, AtMostCountsLiveObjectsPerLabelValue) {
  Fixture f;
  const ApiInvariant inv = parsed("always: at most 1 Pod per label workspace");
  f.add("Pod", "default", "a", {{"workspace", "w1"}});
  f.add("Pod", "default", "b", {{"workspace", "w2"}});
  f.add("Pod", "default", "c");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
  f.add("Pod", "default", "d", {{"workspace", "w1"}});
  const std::vector<run::Violation> found = check_api_invariant(inv, f.api);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant_id, "external.X");
  EXPECT_EQ(found[0].object, "Pod workspace=w1");
  EXPECT_NE(found[0].message.find("(a, d)"), std::string::npos) << found[0].message;
}

TEST(ServeApiInvariants, EveryHasFindsTheOwnerByTemplateOrLabel) {
  Fixture f;
  const ApiInvariant owner =
      parsed("eventually: every Pod labelled workspace has Workspace default/{label:workspace}");
  const ApiInvariant pod = parsed(
      "eventually: every Workspace in default has Pod labelled "
      "workspace={name}");
  f.add("Namespace", "", "ws-a");
  f.add("Pod", "ws-a", "p", {{"workspace", "a"}});
  ASSERT_EQ(check_api_invariant(owner, f.api).size(), 1u);
  EXPECT_EQ(check_api_invariant(owner, f.api)[0].object, "Pod/ws-a/p");
  f.add("Workspace", "default", "a");
  EXPECT_TRUE(check_api_invariant(owner, f.api).empty());
  EXPECT_TRUE(check_api_invariant(pod, f.api).empty());
  f.add("Workspace", "default", "b");
  ASSERT_EQ(check_api_invariant(pod, f.api).size(), 1u);
  EXPECT_EQ(check_api_invariant(pod, f.api)[0].object, "Workspace/default/b");
}

TEST(ServeApiInvariants, NoForbidsEveryMatchingObject) {
  Fixture f;
  const ApiInvariant inv = parsed("always: no ConfigMap in default labelled orphan");
  f.add("ConfigMap", "default", "kept");
  EXPECT_TRUE(check_api_invariant(inv, f.api).empty());
  f.add("ConfigMap", "default", "o", {{"orphan", "yes"}});
  EXPECT_EQ(check_api_invariant(inv, f.api).size(), 1u);
}

}  // namespace
}  // namespace wsim::serve
