// The hunt (hunt.h): the worker phase under Ctrl-C and the deadline, then the tally, the re-runs
// of what was found and the order of the findings; the probe coverage report.
#include "sim/search/hunt.h"

#include <signal.h>

#include <algorithm>
#include <csignal>
#include <iomanip>
#include <sstream>
#include <tuple>

#include "sim/core/assert.h"
#include "sim/run/amplifiers.h"
#include "sim/search/hunt_pool.h"
#include "sim/search/hunt_progress.h"
#include "sim/search/hunt_rerun.h"
#include "sim/search/hunt_tally.h"

namespace wsim::run {

namespace {

// Ctrl-C in the parent: stop the workers, re-run what was found, print the summary. The handler
// resets itself, so a second Ctrl-C ends the hunt at once.
volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int) { g_interrupted = 1; }

// Installs the Ctrl-C handler for the life of the hunt's worker phase.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = 0;
    struct sigaction interrupt {};
    interrupt.sa_handler = on_interrupt;
    interrupt.sa_flags = SA_RESETHAND;
    sigemptyset(&interrupt.sa_mask);
    WSIM_ASSERT_EQ(::sigaction(SIGINT, &interrupt, &previous_), 0);  // SIGINT is catchable.
  }
  ~InterruptGuard() { WSIM_ASSERT_EQ(::sigaction(SIGINT, &previous_, nullptr), 0); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction previous_ {};
};

// The worker phase: runs the pool until every worker ended, stopping it at Ctrl-C or the
// deadline (the tally stops it at a failure).
void run_workers(const HuntOptions& options, HuntResult& result, HuntTally& tally) {
  const auto elapsed = [&] {
    return options.clock.elapsed_seconds ? options.clock.elapsed_seconds() : 0.0;
  };
  const double started = elapsed();
  HuntProgress progress(options, started);
  InterruptGuard interrupt_guard;
  WorkerPool pool(options, tally);
  pool.start();
  while (pool.running()) {
    pool.poll_once(100);
    if (!pool.stopping() && g_interrupted) {
      result.interrupted = true;
      pool.stop();
    }
    if (!pool.stopping() && options.clock.deadline_reached && options.clock.deadline_reached()) {
      result.deadline_reached = true;
      pool.stop();
    }
    pool.kill_stragglers(elapsed());
    progress.print(result, elapsed(), false);
  }
  result.seconds = elapsed() - started;
  WSIM_ASSERT(result.seconds >= 0.0);  // The hunt's clock never runs backwards.
  progress.print(result, elapsed(), true);
}

}  // namespace

bool finding_order(const Finding& a, const Finding& b) {
  return std::make_tuple(a.seed, static_cast<int>(a.verdict), a.invariant, a.labelled, a.known) <
         std::make_tuple(b.seed, static_cast<int>(b.verdict), b.invariant, b.labelled, b.known);
}

int HuntResult::exit_code() const {
  for (const Finding& finding : findings) {
    // A finding is a failed run: its verdict never exits 0.
    WSIM_ASSERT_NE(run::exit_code(finding.verdict), kExitPass);
    if (!unmasked || !finding.labelled || finding.known.empty()) {
      return run::exit_code(finding.verdict);
    }
  }
  return kExitPass;
}

std::string render_probe_coverage(const std::vector<Probe>& sorted, bool brief) {
  WSIM_ASSERT(std::is_sorted(sorted.begin(), sorted.end(), [](const Probe& a, const Probe& b) {
    return a.name < b.name;
  }));  // Probes::sorted().
  std::size_t reached = 0;
  std::size_t width = 0;
  for (const Probe& probe : sorted) {
    if (probe.hits > 0) ++reached;
    width = std::max(width, probe.name.size());
  }
  std::ostringstream out;
  out << "probes: " << reached << " of " << sorted.size() << " reached";
  if (brief) {
    std::string never;
    for (const Probe& probe : sorted) {
      if (probe.hits == 0) never += (never.empty() ? "" : ", ") + probe.name;
    }
    out << (never.empty() ? "" : "; never: " + never) << "\n";
    return out.str();
  }
  out << "\n";
  for (int pass = 0; pass < 2; ++pass) {
    for (const Probe& probe : sorted) {
      if ((probe.hits > 0) != (pass == 0)) continue;
      out << "  " << (probe.hits > 0 ? "reached" : "never  ") << " " << std::right << std::setw(10)
          << probe.hits << "  " << std::left << std::setw(static_cast<int>(width)) << probe.name
          << "  " << probe.description << "\n";
    }
  }
  return out.str();
}

proto::Scenario hunt_run_scenario(const HuntOptions& options, std::uint64_t seed,
                                  std::optional<std::uint64_t> swarm_seed) {
  proto::Scenario scenario = options.scenario;
  scenario.set_seed(seed);
  if (swarm_seed) scenario.set_swarm_seed(*swarm_seed);
  draw_amplifiers(scenario, *options.system, options.amplifiers, config_seed_of(scenario));
  WSIM_ASSERT_EQ(scenario.seed(), seed);  // The amplifiers change the config, not the seed.
  return scenario;
}

std::optional<std::uint64_t> own_production_seed(const Finding& finding) {
  if (!finding.production_seed) return std::nullopt;
  WSIM_ASSERT_GE(*finding.production_seed, finding.seed);  // finding.seed is the smallest.
  const bool names_a_bug = finding.labelled && !finding.known.empty();
  if (names_a_bug || *finding.production_seed == finding.seed) return finding.production_seed;
  return std::nullopt;
}

void merge_failed_without(std::map<std::string, std::uint64_t>& into,
                          const std::map<std::string, std::uint64_t>& more) {
  for (const auto& [name, seed] : more) {
    auto [it, inserted] = into.emplace(name, seed);
    if (!inserted) it->second = std::min(it->second, seed);
  }
  WSIM_ASSERT_GE(into.size(), more.size());
}

int realism_rank(const Finding& finding) {
  if (!finding.realism) return own_production_seed(finding) ? 0 : 1;
  return finding.realism->realistic ? 0 : 2;
}

void order_by_realism(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return realism_rank(a) < realism_rank(b);
  });
}

HuntResult hunt(const HuntOptions& options) {
  WSIM_ASSERT(options.system != nullptr);
  WSIM_ASSERT_GE(options.jobs, 1);
  WSIM_ASSERT(!options.unmasked || options.known != nullptr);
  HuntResult result;
  result.unmasked = options.unmasked;
  HuntTally tally(options, result);
  run_workers(options, result, tally);
  tally.finish();
  rerun_findings(options, result);
  order_by_realism(result.findings);
  return result;
}

}  // namespace wsim::run
