// Not a port: the run layer's view of the GitLab system [invented structure].
//
// The GitLab Workspaces system under test (docs/systems/gitlab.md): Rails R0..R3 × agentk
// A0a..A3, unique and shared namespace modes, as the run layer sees it (run::System): versions,
// invariants, actions, defaults, config normalisation, and the factory of GitlabRun (run.h).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/run/system.h"

namespace wsim::gitlab {

class GitlabSystem : public run::System {
 public:
  std::string name() const override { return "gitlab"; }
  std::string description() const override;
  std::vector<run::VersionAxis> axes() const override;
  std::vector<run::InvariantInfo> invariants() const override;
  std::vector<run::ActionInfo> actions() const override;
  DurationMs default_fault_phase_ms() const override { return 2 * kHourMs; }
  DurationMs default_settle_ms() const override { return 3 * kHourMs + 10 * kMinuteMs; }
  bool normalize(proto::Scenario& scenario, std::string& error) const override;
  std::unique_ptr<run::SystemRun> create(Sim& sim, const proto::Scenario& scenario) const override;
  // The seam's declarations (sim/run/system.h): fuzz targets, their short phases, actor lanes.
  std::vector<run::FuzzTarget> fuzz_targets() const override;
  std::vector<std::pair<std::string, std::string>> fast_phase_fields() const override;
  std::vector<run::ActorLane> actor_lanes() const override;
  std::vector<std::string> counterfactual_fix_fields() const override {
    return {"rails_desired_finder_inclusive"};
  }
  // Production values, their sources and the amplifiers (parameters.cc).
  std::vector<run::Amplifier> amplifiers() const override;
  std::vector<run::ParameterInfo> parameters() const override;
};

}  // namespace wsim::gitlab
