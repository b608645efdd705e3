// End-to-end lifecycles of the mk2 model with scripted events: the happy path, and the
// building blocks the corpus cases rely on.
#include <gtest/gtest.h>

#include "tests/gitpod/scenario_runner.h"

namespace wsim::gitpod::testing {
namespace {

TEST(GitpodLifecycle, Mk2StartWriteStopBacksUpAndCleansUp) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 1
    scripted_only: true
    fault_phase_ms: 600000
    settle_ms: 3600000
    gitpod { manager: "mk2" }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 61000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
  )"));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  EXPECT_NE(o.state.find("latest=v2 backup=v2"), std::string::npos) << o.describe();
}

}  // namespace
}  // namespace wsim::gitpod::testing
