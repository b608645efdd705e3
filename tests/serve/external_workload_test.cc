// serve/external_workload.h: the user workload of external scenarios for any kind — its
// configuration checks, the actions it draws, and that a run is a function of its choices.
#include "serve/external_workload.h"

#include <gtest/gtest.h>

#include <map>

#include "serve/external_system.h"
#include "serve/resources.h"
#include "sim/core/choice.h"
#include "sim/run/scenario.h"

namespace wsim::serve {
namespace {

proto::ExternalConfig notebook_config() {
  proto::ExternalConfig config;
  config.set_namespace_("default");
  config.set_think_min_ms(2000);
  config.set_think_max_ms(15000);
  proto::ExternalWorkload* w = config.mutable_workload();
  w->set_kind("Notebook");
  w->set_group("example.wsim.dev");
  (*w->mutable_spec())["desired"] = "running";
  (*w->mutable_spec())["image"] = "jupyter:{index}";
  (*w->mutable_labels())["notebook"] = "{name}";
  w->set_stop_field("spec.desired");
  w->set_stop_value("stopped");
  return config;
}

struct WorkloadRun {
  Sim sim;
  kube::Cluster cluster;
  proto::ExternalConfig config;
  bool healed = false;
  ExternalWorkload workload;

  WorkloadRun(std::uint64_t seed, proto::ExternalConfig c)
      : sim(ChoiceSource::from_seed(seed)),
        cluster(sim),
        config(std::move(c)),
        workload(sim, cluster, config, healed) {
    sim.trace().set_keep_events(true);
    cluster.start();
    workload.start();
  }

  // Verb counts of the users' requests ("create", "patch", "delete").
  std::map<std::string, int> user_verbs() {
    std::map<std::string, int> out;
    for (const TraceEvent& event : sim.trace().events()) {
      if (event.actor.rfind("user/", 0) == 0) ++out[event.verb];
    }
    return out;
  }
};

proto::ExternalConfig normalized(proto::ExternalConfig config) {
  std::string error;
  EXPECT_TRUE(ExternalWorkload::normalize_workload(config, error)) << error;
  return config;
}

TEST(ServeExternalWorkload, NormalizeFillsDefaultsAndServesTheKind) {
  const proto::ExternalConfig config = normalized(notebook_config());
  const proto::ExternalWorkload& w = config.workload();
  EXPECT_EQ(w.plural(), "notebooks");
  EXPECT_EQ(w.version(), "v1");
  EXPECT_EQ(w.name_prefix(), "notebook-");
  EXPECT_EQ(w.objects(), 2u);
  EXPECT_EQ(w.restart(), "stop-start");
  EXPECT_EQ(w.weight_start(), 4u);
  EXPECT_EQ(w.weight_stop(), 2u);
  const Resource* resource = find_by_kind("Notebook");
  ASSERT_NE(resource, nullptr);
  EXPECT_EQ(resource->api_version(), "example.wsim.dev/v1");
  EXPECT_EQ(resource->plural, "notebooks");
}

TEST(ServeExternalWorkload, BadConfigurationsNameTheirField) {
  auto error_of = [](proto::ExternalConfig config) {
    std::string error;
    EXPECT_FALSE(ExternalWorkload::normalize_workload(config, error));
    return error;
  };
  proto::ExternalConfig config = notebook_config();
  config.mutable_workload()->set_kind("");
  EXPECT_EQ(error_of(config).rfind("workload.kind:", 0), 0u);
  config = notebook_config();
  config.mutable_workload()->set_kind("Unserved");
  config.mutable_workload()->clear_group();
  EXPECT_EQ(error_of(config).rfind("workload.group:", 0), 0u);
  config = notebook_config();
  config.mutable_workload()->set_stop_field("desired");
  EXPECT_EQ(error_of(config).rfind("workload.stop_field:", 0), 0u);
  config = notebook_config();
  config.mutable_workload()->set_restart("reboot");
  EXPECT_EQ(error_of(config).rfind("workload.restart:", 0), 0u);
  config = notebook_config();
  config.mutable_workload()->set_objects(17);
  EXPECT_EQ(error_of(config).rfind("workload.objects", 0), 0u);
  config = notebook_config();
  config.mutable_workload()->set_weight_idle(1);
  EXPECT_EQ(error_of(config).rfind("workload.weight_start:", 0), 0u);
  config = notebook_config();
  config.mutable_workload()->clear_stop_field();
  config.mutable_workload()->set_weight_start(1);
  config.mutable_workload()->set_weight_stop(1);
  EXPECT_EQ(error_of(config).rfind("workload.weight_stop:", 0), 0u);
}

TEST(ServeExternalWorkload, ObjectFollowsTheTemplate) {
  WorkloadRun run(1, normalized(notebook_config()));
  const kube::Object object = run.workload.object(1);
  EXPECT_EQ(object.kind, "Notebook");
  EXPECT_EQ(object.meta.namespace_, "default");
  EXPECT_EQ(object.meta.name, "notebook-1");
  EXPECT_EQ(object.spec_or("image", ""), "jupyter:1");
  EXPECT_EQ(object.spec_or("desired", ""), "running");
  EXPECT_EQ(object.meta.labels.at("notebook"), "notebook-1");
}

TEST(ServeExternalWorkload, UsersStartStopRestartAndTerminate) {
  WorkloadRun run(7, normalized(notebook_config()));
  run.sim.loop().run_until(20 * kMinuteMs);
  std::map<std::string, int> verbs = run.user_verbs();
  EXPECT_GT(verbs["create"], 2) << run.sim.trace().events().size();
  EXPECT_GT(verbs["patch"], 2);  // Stops and starts of stopped notebooks.
  EXPECT_GT(verbs["delete"], 1);
  // After heal nothing more.
  run.healed = true;
  run.sim.loop().run_until(25 * kMinuteMs);
  const std::size_t after_heal = run.sim.trace().events().size();
  run.sim.loop().run_until(60 * kMinuteMs);
  std::map<std::string, int> later = run.user_verbs();
  EXPECT_EQ(later, run.user_verbs());
  EXPECT_GE(run.sim.trace().events().size(), after_heal);
}

TEST(ServeExternalWorkload, RecreateRestartsDeleteThenCreate) {
  proto::ExternalConfig config = notebook_config();
  proto::ExternalWorkload* w = config.mutable_workload();
  w->clear_stop_field();
  w->clear_stop_value();
  w->set_weight_start(1);
  w->set_weight_restart(5);
  w->set_objects(1);
  WorkloadRun run(3, normalized(config));
  EXPECT_EQ(run.config.workload().restart(), "recreate");
  run.sim.loop().run_until(10 * kMinuteMs);
  std::map<std::string, int> verbs = run.user_verbs();
  EXPECT_GT(verbs["delete"], 1);
  EXPECT_GE(verbs["create"], verbs["delete"]);
  EXPECT_EQ(verbs["patch"], 0);
}

TEST(ServeExternalWorkload, ScriptedActionsApplyAtOnce) {
  WorkloadRun run(1, normalized(notebook_config()));
  std::string error;
  const kube::ObjectRef ref{"Notebook", "default", "notebook-0"};
  ASSERT_TRUE(run.workload.perform("start", "notebook-0", error)) << error;
  ASSERT_NE(run.cluster.api().peek(ref), nullptr);
  ASSERT_TRUE(run.workload.perform("stop", "notebook-0", error)) << error;
  EXPECT_EQ(run.cluster.api().peek(ref)->spec_or("desired", ""), "stopped");
  ASSERT_TRUE(run.workload.perform("start", "notebook-0", error)) << error;
  EXPECT_EQ(run.cluster.api().peek(ref)->spec_or("desired", ""), "running");
  ASSERT_TRUE(run.workload.perform("terminate", "notebook-0", error)) << error;
  EXPECT_EQ(run.cluster.api().peek(ref), nullptr);
  EXPECT_FALSE(run.workload.perform("start", "notebook-9", error));
  EXPECT_NE(error.find("no object 'notebook-9'"), std::string::npos) << error;
  EXPECT_FALSE(run.workload.perform("explode", "notebook-0", error));
  EXPECT_NE(error.find("unknown workload action"), std::string::npos) << error;
}

TEST(ServeExternalWorkload, SameSeedSameTraceOtherSeedOtherTrace) {
  auto hash_of = [](std::uint64_t seed) {
    WorkloadRun run(seed, normalized(notebook_config()));
    run.sim.loop().run_until(10 * kMinuteMs);
    return run.sim.trace().hash();
  };
  EXPECT_EQ(hash_of(5), hash_of(5));
  EXPECT_NE(hash_of(5), hash_of(6));
}

// A bad rule is located at its own line of the scenario file, not at the first `invariants:`
// entry's (sim/run/scenario_validate.cc repeated_index).
TEST(ExternalScenario, ABadRuleIsLocatedAtItsOwnLine) {
  register_external_system(ExternalSettings{});
  const std::string text =
      "external {\n"
      "  invariants: \"always: no Pod\"\n"
      "  invariants: \"eventually: no Pod\"\n"
      "  invariants: \"always: Pod with x == 1 implies label a\"\n"
      "}\n";
  run::LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(run::parse_scenario(text, "s.textproto", loaded, error)) << error;
  EXPECT_FALSE(run::validate_scenario(loaded, error));
  EXPECT_EQ(error.rfind("s.textproto:4:", 0), 0u) << error;
  EXPECT_NE(error.find("field external.invariants[2]"), std::string::npos) << error;
}

}  // namespace
}  // namespace wsim::serve
