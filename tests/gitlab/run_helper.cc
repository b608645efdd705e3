// The GitLab test driver (run_helper.h): a run's phases as docs/architecture.md §5 orders them,
// stopping at the first safety violation, plus builders of scripted scenarios. Test code: a
// malformed scenario is a WSIM_ASSERT failure, not an error return.
#include "tests/gitlab/run_helper.h"

#include <gtest/gtest.h>

#include "sim/core/assert.h"

namespace wsim::gitlab::testing {

bool Outcome::has_liveness(const std::string& id) const {
  for (const run::Violation& v : liveness) {
    if (v.invariant_id == id) return true;
  }
  return false;
}

std::string Outcome::summary() const {
  std::string out;
  if (safety)
    out += "safety " + safety->invariant_id + " " + safety->object + ": " + safety->message + "\n";
  for (const run::Violation& v : liveness) {
    out += "liveness " + v.invariant_id + " " + v.object + ": " + v.message + "\n";
  }
  return out.empty() ? "pass" : out;
}

TestRun::TestRun(proto::Scenario scenario) : scenario_(std::move(scenario)) {
  GitlabSystem system;
  std::string error;
  const bool ok = system.normalize(scenario_, error);
  WSIM_ASSERT_MSG(ok, error);
  sim_ = std::make_unique<Sim>(ChoiceSource::from_seed(scenario_.seed()));
  auto created = system.create(*sim_, scenario_);
  run_.reset(static_cast<GitlabRun*>(created.release()));
}

Outcome TestRun::run() {
  Outcome outcome;
  EventLoop& loop = sim_->loop();
  loop.set_after_event([&] {
    if (outcome.safety) return;
    if (auto violation = run_->check_safety()) {
      outcome.safety = violation;
      loop.request_stop();
    }
  });
  if (!scenario_.scripted_only())
    sim_->faults().draw_swarm(sim_->stream("swarm"), sim_->stream("swarm2"));
  run_->start();
  for (const proto::ScriptedEvent& event : scenario_.events()) {
    GitlabRun* run = run_.get();
    proto::ScriptedEvent copy = event;
    loop.schedule(event.at_ms(), [run, copy] {
      std::string error;
      const bool ok = run->perform(copy, error);
      WSIM_ASSERT_MSG(ok, error);
    });
  }
  loop.run_until(scenario_.fault_phase_ms());
  if (outcome.safety) return outcome;
  sim_->faults().heal();
  run_->heal();
  loop.run_until(scenario_.fault_phase_ms() + scenario_.settle_ms());
  if (outcome.safety) return outcome;
  outcome.liveness = run_->check_liveness();
  return outcome;
}

proto::Scenario scripted(const std::string& agent, const std::string& rails,
                         const std::string& mode) {
  proto::Scenario scenario;
  scenario.set_name("test");
  scenario.set_seed(1);
  scenario.set_scripted_only(true);
  scenario.set_fault_phase_ms(10 * kMinuteMs);
  scenario.mutable_gitlab()->set_agent(agent);
  scenario.mutable_gitlab()->set_rails(rails);
  scenario.mutable_gitlab()->set_namespace_mode(mode);
  return scenario;
}

void add_event(proto::Scenario& scenario, DurationMs at_ms, const std::string& actor,
               const std::string& action, const std::string& target) {
  proto::ScriptedEvent* event = scenario.add_events();
  event->set_at_ms(at_ms);
  event->set_actor(actor);
  event->set_action(action);
  event->set_target(target);
}

proto::Scenario limbo(const std::string& agent, const std::string& rails) {
  proto::Scenario scenario = scripted(agent, rails);
  scenario.set_name("limbo-411205");
  add_event(scenario, 1 * kSecondMs, "user", "create", "ws-0");
  add_event(scenario, 2 * kMinuteMs, "kubectl", "delete_namespace", "ws-0");
  add_event(scenario, 2 * kMinuteMs + 500, "user", "terminate", "ws-0");
  return scenario;
}

}  // namespace wsim::gitlab::testing
