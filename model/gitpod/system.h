// Not a port: the run layer's view of the Gitpod system [invented].
//
// The Gitpod system as the run layer sees it (run::System): versions, invariants, actions,
// defaults, config normalisation, and the factory of GitpodRun.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/run/system.h"

namespace wsim::gitpod {

class GitpodSystem : public run::System {
 public:
  std::string name() const override { return "gitpod"; }
  std::string description() const override;
  std::vector<run::VersionAxis> axes() const override;
  std::vector<run::InvariantInfo> invariants() const override;
  std::vector<run::ActionInfo> actions() const override;
  DurationMs default_fault_phase_ms() const override { return 2 * kHourMs; }
  // Long enough for a timeout (TotalStartup 1 h) plus a 30 min grace period and the backup.
  DurationMs default_settle_ms() const override { return 2 * kHourMs; }
  bool normalize(proto::Scenario& scenario, std::string& error) const override;
  std::unique_ptr<run::SystemRun> create(Sim& sim, const proto::Scenario& scenario) const override;
  // The seam's declarations (sim/run/system.h): fuzz targets, their short phases, actor lanes and
  // the Workspace custom resource.
  std::vector<run::FuzzTarget> fuzz_targets() const override;
  std::vector<std::pair<std::string, std::string>> fast_phase_fields() const override;
  std::vector<run::ActorLane> actor_lanes() const override;
  std::vector<std::string> counterfactual_fix_fields() const override {
    return {"daemon_partial_backup_guard", "daemon_keep_content_until_recorded",
            "mk1_mark_retry_steps"};
  }
  std::vector<run::CustomKind> custom_kinds() const override;
  // Production values, their sources and the amplifier (parameters.cc).
  std::vector<run::Amplifier> amplifiers() const override;
  std::vector<run::ParameterInfo> parameters() const override;
};

}  // namespace wsim::gitpod
