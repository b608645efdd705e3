// A small driver for GitLab runs inside tests: the phases of docs/architecture.md §5 (start → fault
// phase with scripted events → heal → settle → liveness), keeping the run alive afterwards so a
// test can inspect the final state (e.g. the production row of seed 000).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/gitlab/run.h"
#include "model/gitlab/system.h"
#include "sim/core/sim.h"
#include "sim/proto/scenario.pb.h"

namespace wsim::gitlab::testing {

struct Outcome {
  std::optional<run::Violation> safety;
  std::vector<run::Violation> liveness;
  bool passed() const { return !safety && liveness.empty(); }
  bool has_liveness(const std::string& id) const;
  std::string summary() const;
};

class TestRun {
 public:
  // REQUIRES: scenario.has_gitlab(). Normalizes it (asserting success).
  explicit TestRun(proto::Scenario scenario);
  Outcome run();
  GitlabRun& system() { return *run_; }
  Sim& sim() { return *sim_; }
  const proto::Scenario& scenario() const { return scenario_; }

 private:
  proto::Scenario scenario_;
  std::unique_ptr<Sim> sim_;
  std::unique_ptr<GitlabRun> run_;
};

// A scripted-only scenario for agent/rails with the given events added by the caller.
proto::Scenario scripted(const std::string& agent, const std::string& rails,
                         const std::string& mode = "unique");
void add_event(proto::Scenario& scenario, DurationMs at_ms, const std::string& actor,
               const std::string& action, const std::string& target);
// The limbo scenario of docs/systems/gitlab.md §7.1 / seed 000.
proto::Scenario limbo(const std::string& agent, const std::string& rails);

}  // namespace wsim::gitlab::testing
