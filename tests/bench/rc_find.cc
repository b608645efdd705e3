// rc_find: the RapidCheck column of scripts/bench-find. Time to find one corpus bug
// (sim/triage/corpus_bugs.h) by RapidCheck generation: each test case is a choice stream drawn by
// rc::gen (a byte vector whose length grows with RapidCheck's size, fed through the bytes
// backend exactly like a libFuzzer input), run on the bug's hunting scenario; the property "the
// run does not violate the bug's invariant" fails at the first run that does. Shrinking is off:
// this measures finding, not minimizing (`wsim shrink` does that on the bundle of a hunt).
//
//   build/release/tests/bench/rc_find --bug corpus/regressions/gitlab/limbo-411205.textproto#0
//       --runs 10 --budget 60 [--first-run K]
//
// Run r uses RapidCheck seeds derived from r, in rounds of 100 cases (sizes 0..max) until the bug
// is found or the budget is spent. Prints one line per run ("run R: found in S s after N cases" or
// "run R: not found in S s, N cases") and a last line "median S s (F/R found)". Wall-clock figures
// measure this machine: a tool, not a ctest.
#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "model/all_systems/all_systems.h"
#include "sim/run/driver.h"
#include "sim/search/fuzz_targets.h"
#include "sim/triage/corpus_bugs.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string bug;
  int runs = 10;
  int first_run = 0;  // Runs first_run .. first_run + runs - 1 (each run's seeds derive from it).
  double budget_s = 60;
  int max_bytes = 2048;  // RapidCheck's maxSize: the longest choice stream generated.
};

bool parse_args(int argc, char** argv, Args& args) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--bug") {
      args.bug = value;
    } else if (flag == "--runs") {
      args.runs = std::atoi(value);
    } else if (flag == "--first-run") {
      args.first_run = std::atoi(value);
    } else if (flag == "--budget") {
      args.budget_s = std::atof(value);
    } else if (flag == "--max-bytes") {
      args.max_bytes = std::atoi(value);
    } else {
      std::fprintf(stderr, "rc_find: unknown flag %s\n", flag.c_str());
      return false;
    }
  }
  if (argc % 2 == 0 || args.bug.empty() || args.runs < 1 || args.first_run < 0 ||
      args.budget_s <= 0 || args.max_bytes < 1) {
    std::fprintf(stderr,
                 "usage: rc_find --bug FILE#N [--runs R] [--first-run K] [--budget SECONDS] "
                 "[--max-bytes N]\n");
    return false;
  }
  return true;
}

struct RunOutcome {
  bool found = false;
  double seconds = 0;
  std::uint64_t cases = 0;
};

RunOutcome find_once(const wsim::run::CorpusBug& bug, const wsim::run::LoadedScenario& loaded,
                     const Args& args, int run) {
  RunOutcome outcome;
  const Clock::time_point start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const auto property = [&] {
    const auto bytes =
        *rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>());
    ++outcome.cases;
    const wsim::run::RunResult result =
        wsim::run::execute_run(*loaded.system, loaded.scenario, wsim::run::fuzz_run_options(bytes));
    const bool hit = result.violation && result.violation->invariant_id == bug.invariant;
    if (hit && !outcome.found) {
      outcome.found = true;
      outcome.seconds = elapsed();
    }
    RC_ASSERT(!hit);
  };
  for (std::uint64_t round = 0; !outcome.found && elapsed() < args.budget_s; ++round) {
    rc::detail::TestParams params;
    params.seed = (static_cast<std::uint64_t>(run) << 32) + round;
    params.maxSuccess = 100;
    params.maxSize = args.max_bytes;
    params.disableShrinking = true;
    rc::detail::checkTestable(property, rc::detail::TestMetadata{}, params);
  }
  if (!outcome.found) outcome.seconds = elapsed();
  return outcome;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse_args(argc, argv, args)) return 2;
  wsim::register_all_systems();
  wsim::run::CorpusBug bug;
  wsim::run::LoadedScenario loaded;
  std::string error;
  if (!wsim::run::parse_corpus_bug(args.bug, bug, error) ||
      !wsim::run::corpus_bug_scenario(bug, loaded, error)) {
    std::fprintf(stderr, "rc_find: --bug %s: %s\n", args.bug.c_str(), error.c_str());
    return 2;
  }
  std::vector<double> found_seconds;
  for (int run = args.first_run; run < args.first_run + args.runs; ++run) {
    const RunOutcome outcome = find_once(bug, loaded, args, run);
    std::printf("run %d: %s in %.2f s, %llu cases\n", run, outcome.found ? "found" : "not found",
                outcome.seconds, static_cast<unsigned long long>(outcome.cases));
    std::fflush(stdout);
    if (outcome.found) found_seconds.push_back(outcome.seconds);
  }
  std::sort(found_seconds.begin(), found_seconds.end());
  const std::size_t n = found_seconds.size();
  if (n == 0) {
    std::printf("median - (0/%d found)\n", args.runs);
  } else {
    const double median =
        n % 2 ? found_seconds[n / 2] : (found_seconds[n / 2 - 1] + found_seconds[n / 2]) / 2;
    std::printf("median %.2f s (%zu/%d found)\n", median, n, args.runs);
  }
  return 0;
}
