// The Gitpod test driver (scenario_runner.h): a scenario's run through GitpodRun in the run layer's
// order (docs/architecture.md §5), fault overrides and swarm included, safety after every event;
// and the loaders of scenario text and files and their expectation.
#include "tests/gitpod/scenario_runner.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "model/gitpod/run.h"
#include "model/gitpod/system.h"
#include "sim/core/sim.h"

namespace wsim::gitpod::testing {

std::string Outcome::describe() const {
  std::ostringstream out;
  out << "verdict " << proto::Verdict_Name(verdict) << "\n";
  for (const run::Violation& v : safety) {
    out << "  safety " << v.invariant_id << " " << v.object << ": " << v.message << "\n";
  }
  for (const run::Violation& v : liveness) {
    out << "  liveness " << v.invariant_id << " " << v.object << ": " << v.message << "\n";
  }
  out << state;
  return out.str();
}

bool Outcome::has(const std::string& invariant) const {
  for (const auto* list : {&safety, &liveness}) {
    for (const run::Violation& v : *list) {
      if (v.invariant_id == invariant) return true;
    }
  }
  return false;
}

Outcome run_gitpod(proto::Scenario scenario, bool keep_going) {
  return run_gitpod_with(std::move(scenario), keep_going, nullptr);
}

Outcome run_gitpod_with(proto::Scenario scenario, bool keep_going,
                        const std::function<void(Sim&, run::SystemRun&)>& setup) {
  GitpodSystem system;
  std::string error;
  EXPECT_TRUE(system.normalize(scenario, error)) << error;
  if (scenario.fault_phase_ms() == 0) scenario.set_fault_phase_ms(system.default_fault_phase_ms());
  if (scenario.settle_ms() == 0) scenario.set_settle_ms(system.default_settle_ms());
  Sim sim(ChoiceSource::from_seed(scenario.seed()));
  std::unique_ptr<run::SystemRun> run = system.create(sim, scenario);
  for (const proto::FaultOverride& o : scenario.faults()) {
    FaultId id = 0;
    EXPECT_TRUE(sim.faults().find(o.name(), id)) << "unknown fault " << o.name();
    if (o.fire_den() > 0) {
      sim.faults().force(id, o.enabled(), Ratio{o.fire_num(), o.fire_den()});
    } else {
      sim.faults().force(id, o.enabled());
    }
  }
  if (!scenario.scripted_only()) sim.faults().draw_swarm(sim.stream("swarm"), sim.stream("swarm2"));

  Outcome outcome;
  EventLoop& loop = sim.loop();
  bool stopped = false;
  auto on_safety = [&](run::Violation v) {
    sim.record_violation(v.object, v.invariant_id, v.message);
    outcome.safety.push_back(v);
    if (!outcome.violation.has_value()) {
      outcome.violation = v;
      outcome.verdict = proto::SAFETY_VIOLATION;
    }
    if (!keep_going) {
      stopped = true;
      loop.request_stop();
    }
  };
  loop.set_after_event([&] {
    if (stopped) return;
    while (std::optional<run::Violation> v = run->check_safety()) {
      on_safety(*v);
      if (stopped) return;
    }
  });
  run->start();
  if (setup) setup(sim, *run);
  for (const proto::ScriptedEvent& event : scenario.events()) {
    loop.schedule(event.at_ms(), [&, event] {
      if (stopped) return;
      sim.record_scripted(event.actor(), event.action(), event.target());
      std::string why;
      EXPECT_TRUE(run->perform(event, why)) << why;
    });
  }
  loop.run_until(scenario.fault_phase_ms());
  if (!stopped) {
    sim.faults().heal();
    run->heal();
    loop.run_until(scenario.fault_phase_ms() + scenario.settle_ms());
  }
  if (!stopped) {
    outcome.liveness = run->check_liveness();
    if (!outcome.liveness.empty() && !outcome.violation.has_value()) {
      outcome.violation = outcome.liveness.front();
      outcome.verdict = proto::LIVENESS_VIOLATION;
    }
  }
  loop.set_after_event(nullptr);
  outcome.state = run->describe_state();
  outcome.trace = sim.trace().events();
  outcome.fingerprint = sim.fingerprint();
  return outcome;
}

proto::Scenario parse_scenario_text(const std::string& text) {
  proto::Scenario scenario;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &scenario)) << text;
  return scenario;
}

proto::Scenario load_scenario(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_scenario_text(buffer.str());
}

std::optional<proto::Expectation> expectation_for(const proto::Scenario& scenario) {
  const proto::GitpodConfig& config = scenario.gitpod();
  for (const proto::Expectation& e : scenario.expect()) {
    bool match = true;
    for (const auto& [key, value] : e.when()) {
      if (key == "manager")
        match = match && (config.manager().empty() ? "mk2" : config.manager()) == value;
      if (key == "upgrade") match = match && config.upgrade() == value;
    }
    if (match) return e;
  }
  return std::nullopt;
}

}  // namespace wsim::gitpod::testing
