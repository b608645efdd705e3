// Not a port: the run harness (run.h) [invented structure].
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/run.h"

#include "model/gitlab/names.h"
#include "sim/core/assert.h"
#include "sim/run/world_oracles.h"

namespace wsim::gitlab {
namespace {

kube::ClusterOptions cluster_options(const Versions& versions) {
  kube::ClusterOptions options;
  options.nodes = 2;  // GitLab workspace pods ask no resources: two nodes hold any load.
  if (versions.shared()) options.namespaces.push_back(std::string(kSharedNamespace));
  return options;
}

}  // namespace

// --- GitlabRun ------------------------------------------------------------------------------

GitlabRun::GitlabRun(Sim& sim, GitlabRunOptions options, bool scripted_only)
    : sim_(sim), options_(options), scripted_only_(scripted_only) {
  // decode_config's output (system.cc): a normalized config, amplifiers within their ranges.
  WSIM_ASSERT_GE(options_.clock.granularity_ms, 1);
  WSIM_ASSERT_GE(options_.touch_gap_max_ms, 0);
  WSIM_ASSERT_LE(options_.timers.partial_interval_ms, options_.timers.full_interval_ms);
  const Versions& v = options_.versions;
  probes_ = GitlabProbes::declare(sim.probes());
  cluster_ = std::make_unique<kube::Cluster>(sim, cluster_options(v));
  RailsOptions rails_options;
  rails_options.versions = v;
  rails_options.clock = options_.clock;
  rails_options.touch_gap_max_ms = options_.touch_gap_max_ms;
  rails_options.settings.partial_reconciliation_interval_s =
      options_.timers.partial_interval_ms / kSecondMs;
  rails_options.settings.full_reconciliation_interval_s =
      options_.timers.full_interval_ms / kSecondMs;
  rails_ = std::make_unique<RailsService>(sim, rails_options, &probes_);
  link_ = std::make_unique<RailsLink>(
      sim, "gitlab.rails", net::LinkOptions{},
      [this](RailsRequest request) { return serve(std::move(request)); });
  CheckerOptions checker_options{v, options_.timers.full_interval_ms,
                                 options_.timers.partial_interval_ms};
  checker_ =
      std::make_unique<Checker>(sim, cluster_->api(), rails_->table(), checker_options, &probes_);
  Checker* checker = checker_.get();
  rails_->table().set_observer(
      [checker](const std::optional<WorkspaceRow>& before, const WorkspaceRow& after) {
        checker->on_row_written(before, after);
      });
  rails_->set_hooks(RailsService::Hooks{
      [checker](const RailsRequest& request) { checker->on_rails_request_begin(request); },
      [checker]() { checker->on_rails_request_end(); },
      [checker](const RailsRequest& request, const RailsResponse& response) {
        checker->on_rails_response(request, response);
      }});
  agent_ =
      std::make_unique<Agent>(sim, cluster_->api(), *link_, v, options_.timers, checker, &probes_);
  Agent* agent = agent_.get();
  checker_->set_agent_view(AgentView{[agent]() { return agent->state(); },
                                     [agent]() { return agent->cached_deployments(); }});
  workload_ = std::make_unique<Workload>(sim, *rails_, *cluster_, *agent_, *link_,
                                         options_.workload, &probes_);
  workload_->set_lose_next_response([this] { lose_next_response_ = true; });
}

Task<RailsResponse> GitlabRun::serve(RailsRequest request) {
  WSIM_ASSERT(started_);  // The agent sends nothing before start().
  const bool reconcile = request.endpoint == RailsRequest::Endpoint::kReconcile;
  RailsResponse response = co_await rails_->handle(std::move(request));
  if (reconcile && lose_next_response_) {
    // Lose exactly this response, after Rails committed and touched (docs/systems/gitlab.md §9.2).
    lose_next_response_ = false;
    link_->lose_next_response();
  }
  co_return response;
}

GitlabRun::~GitlabRun() = default;

void GitlabRun::start() {
  WSIM_ASSERT(!started_);
  started_ = true;
  cluster_->start();
  if (options_.versions.shared()) {
    // cluster_options' shared namespace: the agent may not create it.
    WSIM_ASSERT(cluster_->api().peek(
                    kube::ObjectRef{"Namespace", "", std::string(kSharedNamespace)}) != nullptr);
    // §5.8: in shared mode the agent may not create/update/delete namespaces (RBAC).
    const std::string identity(kAgentIdentity);
    for (kube::Verb verb :
         {kube::Verb::kCreate, kube::Verb::kUpdate, kube::Verb::kPatch, kube::Verb::kDelete}) {
      cluster_->api().deny(identity, verb, "Namespace");
    }
  }
  sim_.record("gitlab", "start", "", "ok", describe(options_.versions));
  agent_->start();
  if (scripted_only_) return;
  sim_.loop().spawn("gitlab/workload", workload_->run());
  for (std::uint32_t slot = 0; slot < options_.workload.live_workspaces; ++slot) {
    sim_.loop().spawn("gitlab/resident", workload_->resident(slot));
  }
}

bool GitlabRun::perform(const proto::ScriptedEvent& event, std::string& error) {
  WSIM_ASSERT(started_);  // The driver performs scripted events during the fault phase.
  return workload_->perform(event.actor(), event.action(), event.target(), error);
}

std::optional<run::Violation> GitlabRun::check_safety() {
  // Nearly every event queues nothing: answer that without building an empty optional per layer.
  if (!cluster_->conformance().has_safety_violation() && !checker_->has_safety_violation()) {
    return std::nullopt;
  }
  if (auto world = run::world_safety_violation(*cluster_)) return world;
  return checker_->take_safety_violation();
}

void GitlabRun::heal() {
  WSIM_ASSERT(started_);
  workload_->stop();
  link_->set_partitioned(false);
  checker_->on_heal(sim_.now_ms());
}

std::vector<run::Violation> GitlabRun::check_liveness() {
  WSIM_ASSERT(started_);
  std::vector<run::Violation> out = checker_->check_liveness();
  run::append_world_liveness(*cluster_, out);
  return out;
}

std::string GitlabRun::describe_state() const {
  std::string out = describe(options_.versions) + "\n";
  const ReconcilerState* state = agent_->state();
  for (const WorkspaceRow& row : rails_->table().rows()) {
    out += row.name + ": desired " + std::string(state_name(row.desired_state)) + ", actual " +
           std::string(state_name(row.actual_state)) + ", desired_state_updated_at " +
           std::to_string(row.desired_state_updated_at) + ", responded_to_agent_at " +
           (row.responded_to_agent_at ? std::to_string(*row.responded_to_agent_at) : "NULL");
    const bool deployment =
        cluster_->api().peek(kube::ObjectRef{"Deployment", row.namespace_, row.name}) != nullptr;
    out += deployment ? ", Deployment present" : ", no Deployment";
    const bool tracked = state != nullptr && state->termination.contains_name(row.name);
    out += tracked ? ", tracked" : ", not tracked";
    out += "\n";
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> GitlabRun::swarm_parameters() const {
  if (options_.workload.live_workspaces > 0) {
    return {{"gitlab.versions", describe(options_.versions)},
            {"load.live_workspaces", std::to_string(options_.workload.live_workspaces)},
            {"load.mean_lifetime_ms", std::to_string(options_.workload.mean_lifetime_ms)},
            {"gitlab.workload", options_.workload.intensity}};
  }
  return {{"gitlab.versions", describe(options_.versions)},
          {"gitlab.workspaces", std::to_string(options_.workload.workspaces_max)},
          {"gitlab.workload", options_.workload.intensity + " (tick " +
                                  std::to_string(options_.workload.tick_ms) + " ms, action " +
                                  std::to_string(options_.workload.action_per_mille) + "‰, burst " +
                                  std::to_string(options_.workload.burst_per_mille) + "‰)"}};
}

}  // namespace wsim::gitlab
