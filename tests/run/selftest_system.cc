// The "selftest" system (selftest_system.h, where its versions and their exact verdicts are
// listed): ticker actors on the event loop, the selftest.glitch fault point and probes, and the
// scripted events the run layer's tests use. No model, no Kubernetes.
#include "tests/run/selftest_system.h"

#include <memory>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/run/system.h"

namespace wsim::selftest {

namespace {

class SelftestRun : public run::SystemRun {
 public:
  SelftestRun(Sim& sim, const proto::SelftestConfig& config, bool scripted_only)
      : sim_(sim), config_(config), scripted_only_(scripted_only) {
    glitch_ =
        sim_.faults().declare("selftest.glitch", "a tick glitches", Ratio{1, 2}, Ratio{1, 10});
    probe_glitch_ = sim_.probes().declare("selftest.glitch", "a glitch fired");
    sim_.probes().declare("selftest.never", "never reached");
    ChoiceStream mix = sim_.stream("selftest.mix");
    think_max_ms_ = 100 + static_cast<DurationMs>(mix.below(900));
  }

  void start() override {
    sim_.record("selftest", "start", "", "ok", config_.version());
    if (scripted_only_) return;
    for (std::uint32_t i = 0; i < config_.tickers(); ++i) {
      sim_.loop().spawn("selftest/ticker-" + std::to_string(i), ticker(static_cast<int>(i)));
    }
  }

  bool perform(const proto::ScriptedEvent& event, std::string& error) override {
    if (event.actor() == "user" && event.action() == "tick" &&
        event.target().rfind("ticker-", 0) == 0) {
      tick(event.target());
      return true;
    }
    if (event.actor() == "user" && event.action() == "fail") {
      if (sim_.now_ms() == 0) return true;  // Passes the dry run; fails when it runs.
      error = "the selftest was asked to fail";
      return false;
    }
    error = "unknown action " + event.actor() + " " + event.action();
    return false;
  }

  std::optional<run::Violation> check_safety() override {
    // version crash: a harness bug, as an always-on assertion (the hunt reports the seed).
    WSIM_ASSERT_MSG(config_.version() != "crash" || ticks_ < 3, "selftest crash");
    if (config_.version() == "unsafe" && ticks_ > 0 &&
        last_tick_ms_ >= config_.violate_after_ms()) {
      return run::Violation{"selftest.S1", last_ticker_,
                            "ticked at " + std::to_string(last_tick_ms_) + " ms"};
    }
    if (config_.version() == "twice" || config_.version() == "leaky") return check_twice();
    return std::nullopt;
  }

  // version twice: S1 once at the first tick after violate_after_ms, then S2 once at the first
  // tick after twice that (each handed out once, as the real systems' queues do).
  std::optional<run::Violation> check_twice() {
    if (ticks_ == 0) return std::nullopt;
    if (!s1_reported_ && last_tick_ms_ >= config_.violate_after_ms()) {
      s1_reported_ = true;
      return run::Violation{"selftest.S1", last_ticker_, "first violation"};
    }
    if (config_.version() == "leaky") return std::nullopt;  // S1 only; the world stays broken.
    if (s1_reported_ && !s2_reported_ && last_tick_ms_ >= 2 * config_.violate_after_ms()) {
      s2_reported_ = true;
      // Another object: a later violation of the object S1 broke would count as its consequence.
      return run::Violation{"selftest.S2", "tick-counter", "second, different violation"};
    }
    return std::nullopt;
  }

  void heal() override { healed_ = true; }

  std::vector<run::Violation> check_liveness() override {
    if (config_.version() == "stuck") {
      return {run::Violation{"selftest.L1", "world",
                             "stuck after " + std::to_string(ticks_) + " ticks"},
              run::Violation{"selftest.L2", "world", "also stuck"}};
    }
    // version leaky: after its S1 the world never recovers (a liveness verdict at the end).
    if (config_.version() == "leaky" && s1_reported_) {
      return {run::Violation{"selftest.L1", "world", "never recovered from S1"}};
    }
    return {};
  }

  std::string describe_state() const override { return std::to_string(ticks_) + " ticks\n"; }

  std::vector<std::pair<std::string, std::string>> swarm_parameters() const override {
    return {{"selftest.think_max_ms", std::to_string(think_max_ms_)}};
  }

 private:
  Task<void> ticker(int index) {
    const std::string name = "ticker-" + std::to_string(index);
    ChoiceStream stream = sim_.stream("selftest." + name);
    while (!healed_) {
      co_await sim_.loop().sleep(stream.range(1, think_max_ms_));
      if (healed_) break;
      if (sim_.faults().fires(glitch_, stream)) {
        sim_.probes().hit(probe_glitch_);
        sim_.record("selftest/" + name, "glitch", name, "fault");
      }
      tick(name);
    }
  }

  void tick(const std::string& name) {
    ++ticks_;
    last_tick_ms_ = sim_.now_ms();
    last_ticker_ = name;
    sim_.record("selftest/" + name, "tick", name, "ok", "tick " + std::to_string(ticks_));
  }

  Sim& sim_;
  proto::SelftestConfig config_;
  bool scripted_only_;
  FaultId glitch_ = 0;
  ProbeId probe_glitch_ = 0;
  DurationMs think_max_ms_ = 0;
  bool healed_ = false;
  std::uint64_t ticks_ = 0;
  TimeMs last_tick_ms_ = 0;
  std::string last_ticker_;
  bool s1_reported_ = false;
  bool s2_reported_ = false;
};

class SelftestSystem : public run::System {
 public:
  std::string name() const override { return "selftest"; }
  std::string description() const override { return "harness self-test: tickers"; }
  std::vector<run::VersionAxis> axes() const override {
    return {
        run::VersionAxis{"version", {"crash", "stuck", "unsafe", "twice", "leaky", "ok"}, "ok"}};
  }
  std::vector<run::InvariantInfo> invariants() const override {
    return {{"selftest.S1", run::InvariantKind::kSafety, "no tick after violate_after_ms", ""},
            {"selftest.S2", run::InvariantKind::kSafety, "twice: no tick after 2 × that", ""},
            {"selftest.L1", run::InvariantKind::kLiveness, "not stuck", ""},
            {"selftest.L2", run::InvariantKind::kLiveness, "not stuck either", ""}};
  }
  std::vector<run::ActionInfo> actions() const override {
    return {{"user", "tick", "one extra tick of <target>"},
            {"user", "fail", "fails when performed (harness error)"}};
  }
  DurationMs default_fault_phase_ms() const override { return 60 * kSecondMs; }
  DurationMs default_settle_ms() const override { return 10 * kSecondMs; }
  bool normalize(proto::Scenario& scenario, std::string& error) const override {
    proto::SelftestConfig* config = scenario.mutable_selftest();
    if (config->version().empty()) config->set_version("ok");
    if (config->version() != "ok" && config->version() != "unsafe" &&
        config->version() != "stuck" && config->version() != "crash" &&
        config->version() != "twice" && config->version() != "leaky") {
      error = "version \"" + config->version() +
              "\" is not one of: crash, stuck, unsafe, twice, leaky, ok";
      return false;
    }
    if (config->tickers() == 0) config->set_tickers(2);
    if (config->tickers() > 8) {
      error = "tickers " + std::to_string(config->tickers()) + " is out of range 1..8";
      return false;
    }
    if (config->violate_after_ms() < 0) {
      error = "violate_after_ms must not be negative";
      return false;
    }
    return true;
  }
  std::unique_ptr<run::SystemRun> create(Sim& sim, const proto::Scenario& scenario) const override {
    return std::make_unique<SelftestRun>(sim, scenario.selftest(), scenario.scripted_only());
  }
};

}  // namespace

void register_selftest_system() {
  if (run::find_system("selftest") != nullptr) return;
  run::register_system(std::make_unique<SelftestSystem>());
}

}  // namespace wsim::selftest
