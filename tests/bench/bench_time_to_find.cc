// Time to find the limbo bug (seed 000, gitlab#411205) from scratch with the seed hunt
// (docs/architecture.md §9 target: median ≤ 1 s). Each repetition hunts A0a+R1 from a different
// seed range (seed_start = repetition × 1,000,000) until the first failure, single process, no
// bundles; Google Benchmark reports the median over 20 repetitions. runs_to_find is how many runs
// the hunt needed; the invariant found must be gitlab.L1 or gitlab.L2 (else the benchmark errors).
#include <benchmark/benchmark.h>

#include <string>

#include "model/gitlab/register.h"
#include "sim/run/scenario.h"
#include "sim/search/hunt.h"

namespace wsim::run {
namespace {

LoadedScenario limbo_hunt_scenario() {
  static bool registered = false;
  if (!registered) {
    gitlab::register_gitlab_system();
    registered = true;
  }
  LoadedScenario loaded;
  std::string error;
  bool ok = scenario_for_system("gitlab", loaded, error) &&
            set_field(loaded, "agent", "A0a", "--agent", error) &&
            set_field(loaded, "rails", "R1", "--rails", error) && validate_scenario(loaded, error);
  if (!ok) throw std::runtime_error(error);
  return loaded;
}

void BM_TimeToFindLimbo(benchmark::State& state) {
  static std::uint64_t repetition = 0;
  const LoadedScenario loaded = limbo_hunt_scenario();
  std::string dummy;
  double runs_total = 0;
  for (auto _ : state) {
    HuntOptions options;
    options.system = selected_system(loaded, dummy);
    options.scenario = loaded.scenario;
    options.seed_start = (repetition++) * 1000000;
    options.runs = 10000;
    options.write_bundles = false;
    const HuntResult result = hunt(options);
    if (result.findings.empty() || (result.findings[0].invariant != "gitlab.L1" &&
                                    result.findings[0].invariant != "gitlab.L2")) {
      state.SkipWithError("the hunt did not find the limbo liveness violation");
      return;
    }
    runs_total += static_cast<double>(result.runs);
  }
  state.counters["runs_to_find"] = runs_total / static_cast<double>(state.iterations());
}
BENCHMARK(BM_TimeToFindLimbo)
    ->Iterations(1)
    ->Repetitions(20)
    ->ComputeStatistics("max",
                        [](const std::vector<double>& v) {
                          double m = 0;
                          for (double x : v) m = x > m ? x : m;
                          return m;
                        })
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wsim::run
