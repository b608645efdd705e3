// The System seam (sim/run/system.h, issue #11): a system declared only in its model/<system>/
// folder — here the toy, whose CMakeLists.txt calls wsim_add_system(toy ...) and whose
// ToySystem declares its fuzz targets and actor lanes — appears in `wsim list`, in the fuzz
// target list (`wsim list --fuzz-targets`, which fuzz/ and the scripts read) and in the corpus
// replay (CorpusReplay.EveryRegisteredSystemHasRegressionFiles); and no file outside model/ that
// used to list the systems names it any more.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/all_systems/all_systems.h"
#include "sim/core/sim.h"
#include "sim/kube/cluster.h"
#include "sim/kube/inventory.h"
#include "sim/run/system.h"
#include "sim/run/world_oracles.h"
#include "sim/search/fuzz_targets.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

TEST(AllSystems, RegistersEverySystemOfModelInNameOrder) {
  register_all_systems();
  std::vector<std::string> names;
  for (const System* system : systems()) names.push_back(system->name());
  EXPECT_EQ(names, (std::vector<std::string>{"gitlab", "gitpod", "toy"}));
}

TEST(AllSystems, ToyAppearsInWsimList) {
  const std::string dir = testing::scratch_dir("all-systems-list");
  std::string output;
  ASSERT_EQ(testing::run_wsim(dir, "list", &output), 0) << output;
  EXPECT_NE(output.find("toy"), std::string::npos) << output;
  EXPECT_NE(output.find("toy.S1"), std::string::npos) << output;
}

// Every system whose world is a kube::Cluster is judged by the world's oracles too
// (docs/world-invariants.md): `wsim list` and corpus expectations see kube.S1..kube.L3.
TEST(AllSystems, EverySystemListsTheWorldsOwnInvariants) {
  register_all_systems();
  const std::vector<InvariantInfo> world = world_invariants();
  ASSERT_EQ(world.size(), 8u);
  for (const System* system : systems()) {
    const std::vector<InvariantInfo> all = system->invariants();
    for (const InvariantInfo& rule : world) {
      const bool listed = std::any_of(all.begin(), all.end(), [&](const InvariantInfo& info) {
        return info.id == rule.id && info.kind == rule.kind;
      });
      EXPECT_TRUE(listed) << system->name() << " does not list " << rule.id;
    }
  }
  EXPECT_EQ(world.front().id, "kube.S1");
  EXPECT_EQ(world.front().kind, InvariantKind::kSafety);
  EXPECT_EQ(world.back().id, "kube.L3");
  EXPECT_EQ(world.back().kind, InvariantKind::kLiveness);
}

TEST(AllSystems, AWorldViolationSaysItIsTheFakeKubernetesRule) {
  Sim sim(ChoiceSource::from_tape({}));
  kube::Cluster cluster(sim);
  cluster.start();
  EXPECT_EQ(world_safety_violation(cluster), std::nullopt);
  kube::Object late;
  late.kind = "ConfigMap";
  late.meta.namespace_ = "absent";
  late.meta.name = "c";
  late.meta.uid = "uid-x";
  late.meta.generation = 1;
  late.meta.resource_version = cluster.api().current_resource_version() + 1;
  cluster.conformance().observe(kube::WatchEventType::kAdded, late, nullptr);
  const std::optional<Violation> found = world_safety_violation(cluster);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->invariant_id, "kube.S4");
  EXPECT_EQ(found->object, "ConfigMap/absent/c");
  EXPECT_NE(found->message.find("a rule of the fake Kubernetes, not of the system under test"),
            std::string::npos)
      << found->message;
  std::vector<Violation> liveness;
  append_world_liveness(cluster, liveness);
  EXPECT_TRUE(liveness.empty());
}

TEST(AllSystems, ToyTargetsAppearInTheFuzzTargetList) {
  register_all_systems();
  const FuzzTarget* canary = find_fuzz_target("toy_canary");
  ASSERT_NE(canary, nullptr);
  EXPECT_EQ(canary->system, "toy");
  EXPECT_TRUE(canary->canary);
  const std::string dir = testing::scratch_dir("all-systems-fuzz");
  std::string output;
  ASSERT_EQ(testing::run_wsim(dir, "list --fuzz-targets", &output), 0) << output;
  EXPECT_NE(output.find("toy_canary canary gate 4096 toy toy.S1\n"), std::string::npos) << output;
  EXPECT_NE(output.find("toy_guard guard gate 4096 toy -\n"), std::string::npos) << output;
  EXPECT_NE(output.find("gitpod_guard guard batch 8192 gitpod -\n"), std::string::npos) << output;
}

TEST(AllSystems, FuzzTargetsAreInNameOrderWithTheirSystemFilledIn) {
  register_all_systems();
  const std::vector<FuzzTarget>& targets = fuzz_targets();
  ASSERT_GE(targets.size(), 7u);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    EXPECT_NE(find_system(targets[i].system), nullptr) << targets[i].name;
    if (i > 0) {
      EXPECT_LT(targets[i - 1].name, targets[i].name);
    }
    LoadedScenario loaded;
    std::string error;
    EXPECT_TRUE(fuzz_target_scenario(targets[i], loaded, error)) << targets[i].name << error;
  }
}

TEST(AllSystems, ActorLanesComeFromTheDeclaringSystem) {
  register_all_systems();
  const System* gitpod = find_system("gitpod");
  const System* gitlab = find_system("gitlab");
  ASSERT_NE(gitpod, nullptr);
  ASSERT_NE(gitlab, nullptr);
  EXPECT_EQ(actor_role(*gitpod, "ws-daemon/node-1"), ActorRole::kNodeDaemon);
  EXPECT_EQ(actor_role(*gitpod, "ws-manager/worker"), ActorRole::kControlPlane);
  EXPECT_EQ(actor_role(*gitlab, "ws-daemon/node-1"), std::nullopt);
  EXPECT_EQ(actor_role(*gitlab, "agentk"), ActorRole::kAgent);
  EXPECT_EQ(actor_role(*gitlab, "kubelet/node-1"), std::nullopt);
}

TEST(AllSystems, CustomKindsComeFromTheSystem) {
  register_all_systems();
  const System* gitpod = find_system("gitpod");
  ASSERT_NE(gitpod, nullptr);
  // register_system() put the system's kinds into the fake API's kind registry.
  for (const CustomKind& kind : gitpod->custom_kinds()) {
    const kube::KindInfo* registered = kube::find_kind(kind.kind);
    ASSERT_NE(registered, nullptr) << kind.kind;
    EXPECT_TRUE(registered->custom);
    EXPECT_EQ(registered->group, kind.group);
  }
  const kube::ObjectRef ref{"Workspace", "ns", "ws1"};
  EXPECT_EQ(kube::inventory_key(ref), "ns_ws1_workspace.gitpod.io_Workspace");
  EXPECT_EQ(kube::find_kind("Workspace")->plural, "workspaces");
}

// The places that listed the systems, their config messages or their fuzz targets until issues
// #11 and #31 must not name a system again: a new system touches only model/<system>/.
TEST(AllSystems, NoSharedFileNamesASystem) {
  const std::vector<std::string> files = {"CMakeLists.txt",
                                          "cli/CMakeLists.txt",
                                          "cli/main.cc",
                                          "fuzz/CMakeLists.txt",
                                          "fuzz/choice_fuzz.cc",
                                          "fuzz/choice_targets.cmake",
                                          "scripts/fuzz",
                                          ".ci/run",
                                          "scripts/check-clusterfuzzlite",
                                          "tests/run/corpus_replay_test.cc",
                                          "sim/search/fuzz_targets.cc",
                                          "sim/kube/inventory.cc",
                                          "sim/proto/CMakeLists.txt",
                                          "tests/CMakeLists.txt",
                                          "sim/proto/scenario.proto.in",
                                          "fuzz/scenario_fuzz.cc"};
  const std::vector<std::string> words = {"register_toy_system",
                                          "register_gitlab_system",
                                          "register_gitpod_system",
                                          "wsim_model_",
                                          "toy_canary",
                                          "gitlab_guard",
                                          "gitpod_guard",
                                          "gitpod.io",
                                          "GitlabConfig",
                                          "GitpodConfig",
                                          "ToyConfig",
                                          "limbo_canary"};
  for (const std::string& file : files) {
    const std::string text = testing::read_text(std::string(WSIM_SOURCE_DIR) + "/" + file);
    ASSERT_FALSE(text.empty()) << file;
    for (const std::string& word : words) {
      EXPECT_EQ(text.find(word), std::string::npos) << file << " names " << word;
    }
  }
}

}  // namespace
}  // namespace wsim::run
