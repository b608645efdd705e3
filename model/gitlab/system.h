// The GitLab Workspaces system under test (docs/systems/gitlab.md): Rails R0..R3 × agentk
// A0a..A3, unique and shared namespace modes, plugged into the run layer (sim/run/system.h).
//
// GitlabRun wires one run: a Cluster (fake Kubernetes; in shared mode the namespace exists and the
// agent identity is denied namespace writes by RBAC-lite), the Rails service, the agent ⇄ Rails
// link (net::Link "gitlab.rails": lost requests, lost responses after Rails acted), the agent,
// the invariant monitor and the workload.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/gitlab/agent/agent.h"
#include "model/gitlab/invariants/monitor.h"
#include "model/gitlab/probes.h"
#include "model/gitlab/rails/rails_service.h"
#include "model/gitlab/versions.h"
#include "model/gitlab/workload.h"
#include "sim/kube/cluster.h"
#include "sim/run/system.h"

namespace wsim::gitlab {

// Production values of the two amplifiers (parameters.cc, docs/fidelity.md "Amplifiers"): Rails
// stores microseconds (1 ms is the model's finest unit), and the finder's SELECT and its touch
// run milliseconds apart in one request.
inline constexpr DurationMs kRailsClockProductionMs = 1;
inline constexpr DurationMs kRailsTouchGapProductionMs = 20;

// Everything a run needs, decoded from a normalized proto::GitlabConfig.
struct GitlabRunOptions {
  Versions versions;
  AgentTimers timers;
  RailsClock clock;
  DurationMs touch_gap_max_ms = kRailsTouchGapProductionMs;
  WorkloadOptions workload;
};

// Decodes a NORMALIZED config (see GitlabSystem::normalize); fields left 0/empty for the workload
// swarm (workspaces, workload intensity) are drawn from `swarm`.
GitlabRunOptions decode_config(const proto::GitlabConfig& config, ChoiceStream& swarm);

class GitlabRun : public run::SystemRun {
 public:
  GitlabRun(Sim& sim, GitlabRunOptions options, bool scripted_only);
  ~GitlabRun() override;

  void start() override;
  bool perform(const proto::ScriptedEvent& event, std::string& error) override;
  std::optional<run::Violation> check_safety() override;
  void heal() override;
  std::vector<run::Violation> check_liveness() override;
  std::string describe_state() const override;
  std::vector<std::pair<std::string, std::string>> swarm_parameters() const override;

  // For tests.
  RailsService& rails() { return *rails_; }
  Agent& agent() { return *agent_; }
  kube::Cluster& cluster() { return *cluster_; }
  Monitor& monitor() { return *monitor_; }
  RailsLink& link() { return *link_; }
  const GitlabProbes& probes() const { return probes_; }

 private:
  Sim& sim_;
  GitlabRunOptions options_;
  bool scripted_only_;
  GitlabProbes probes_;
  std::unique_ptr<kube::Cluster> cluster_;
  std::unique_ptr<RailsService> rails_;
  std::unique_ptr<RailsLink> link_;
  std::unique_ptr<Monitor> monitor_;
  std::unique_ptr<Agent> agent_;
  std::unique_ptr<Workload> workload_;
  bool started_ = false;
  bool lose_next_response_ = false;  // Scripted "link lose_next_response".

  // The link's server side: Rails, plus the scripted loss of one response after Rails acted.
  Task<RailsResponse> serve(RailsRequest request);
};

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
