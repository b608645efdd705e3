// Not a port: the harness around the ports [invented structure]; the ports cite their upstream
// files. GitlabRun wires one run of GitLab Workspaces (Rails R0..R3 × agentk A0a..A3, unique and
// shared namespace modes) for the run layer (run::SystemRun, sim/run/system.h).
//
// GitlabRun wires one run: a Cluster (fake Kubernetes; in shared mode the namespace exists and the
// agent identity is denied namespace writes by RBAC-lite), the Rails service, the agent ⇄ Rails
// link (net::Link "gitlab.rails": lost requests, lost responses after Rails acted), the agent,
// the invariant checker and the workload. Single-threaded, runs on the event loop.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/gitlab/agent/agent.h"
#include "model/gitlab/invariants/checker.h"
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
  kube::ApiServer* api_server() override { return &cluster_->api(); }
  std::vector<std::pair<std::string, std::string>> swarm_parameters() const override;

  // For tests.
  RailsService& rails() { return *rails_; }
  Agent& agent() { return *agent_; }
  kube::Cluster& cluster() { return *cluster_; }
  Checker& checker() { return *checker_; }
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
  std::unique_ptr<Checker> checker_;
  std::unique_ptr<Agent> agent_;
  std::unique_ptr<Workload> workload_;
  bool started_ = false;
  bool lose_next_response_ = false;  // Scripted "link lose_next_response".

  // The link's server side: Rails, plus the scripted loss of one response after Rails acted.
  Task<RailsResponse> serve(RailsRequest request);
};

}  // namespace wsim::gitlab
