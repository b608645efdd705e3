// What every part of agentk shares for one agent process: the simulation, the API server and the
// agent's client identity, the link to Rails, the versions, the observer and the probes.
// Owned by Agent (agent.h); reconcilers and handlers hold a reference. Single-threaded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/gitlab/agent/agent_observer.h"
#include "model/gitlab/agent/k8s_ops.h"
#include "model/gitlab/probes.h"
#include "model/gitlab/versions.h"
#include "model/gitlab/wire.h"
#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/net/link.h"

namespace wsim::gitlab {

using RailsLink = net::Link<RailsRequest, RailsResponse>;

inline constexpr std::string_view kAgentIdentity = "agentk";

struct AgentTimers {
  DurationMs partial_interval_ms = 10 * kSecondMs;  // agent config partial_sync_interval
  DurationMs full_interval_ms = kHourMs;            // agent config full_sync_interval
};

struct AgentContext {
  Sim& sim;
  kube::ApiServer& api;
  RailsLink& link;
  Versions versions;
  AgentTimers timers;
  AgentObserver* observer = nullptr;     // May be null.
  const GitlabProbes* probes = nullptr;  // May be null.
  K8sOps k8s;
  std::string shared_namespace;  // A3: from the prerequisites API; "" = unique mode.
  std::uint64_t next_request_id = 1;
  std::uint64_t next_generation = 1;
  // Asynchronous applier actors; an agent restart cancels them (the process dies).
  std::vector<ActorId> apply_actors;

  AgentObserver& observe() {
    static AgentObserver none;
    return observer != nullptr ? *observer : none;
  }
  void hit(ProbeId GitlabProbes::*probe) {
    if (probes != nullptr) sim.probes().hit(probes->*probe);
  }
};

}  // namespace wsim::gitlab
