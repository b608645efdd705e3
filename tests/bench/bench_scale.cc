// The cost of one run at scale (issue 13, docs/performance.md "At scale"): a Gitpod latest-mk2
// run with a load shape of W live workspaces (scenario `load { live_workspaces: W }`, one node per
// 20 workspaces, at least 2) for a fault phase of H simulated hours plus 10 minutes of settle, W in
// {10, 100, 1000} x H in {2, 24}. Each cell runs in a forked child, so its peak RSS
// (getrusage ru_maxrss of the child) is the run's own high-water mark (plus the parent's pages at
// the fork, a few MB), and a cell that crashes or runs out of memory costs only its cell.
//
// Counters per cell: CPU seconds of the run (user + system: the machine is shared with builds, so
// wall time would measure the neighbours), peak RSS in MB, the simulated hours the run reached,
// event-loop events, the verdict (Verdict enum: 1 pass, 3 liveness), the distinct safety violations
// the run went past (RunOptions::go_past_every_safety: a cell measures the run's full length, not
// the time to its first bug; the bugs of the load runs are triaged in docs/performance.md), and
// seconds per workspace-hour (wall seconds / (W x simulated hours reached)). BM_ScaleSlope, last,
// fits seconds = a + b x workspace-hours by least squares over the cells measured and prints b,
// the cost per workspace-hour, and the worst cell.
//
// WSIM_SCALE_MAX_WS (environment, benchmark-side only) skips cells with more workspaces, e.g. 100
// for a quick look. WSIM_SCALE_IN_PROCESS=1 runs each cell in the benchmark's own process (no
// fork), for heap profilers that do not follow a fork (heaptrack); its peak RSS is then the
// process's high-water mark so far.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/all_systems/all_systems.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"

namespace wsim::run {
namespace {

struct Cell {
  int workspaces = 0;
  int hours = 0;
  double seconds = 0;
  double rss_mb = 0;
  double sim_hours = 0;
  double events = 0;
  int verdict = 0;
  double violations = 0;  // Distinct safety violations gone past.
};

std::vector<Cell>& cells() {
  static std::vector<Cell> all;
  return all;
}

LoadedScenario scale_scenario(int workspaces, int hours) {
  register_all_systems();
  LoadedScenario loaded;
  std::string error;
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"manager", "mk2"},
      {"nodes", std::to_string(std::max(2, workspaces / 20))},
      {"load.live_workspaces", std::to_string(workspaces)},
      {"fault_phase_ms", std::to_string(hours) + "h"},
      {"settle_ms", "10m"},
      {"seed", "1"}};
  bool ok = scenario_for_system("gitpod", loaded, error);
  for (const auto& [path, value] : fields) ok = ok && set_field(loaded, path, value, path, error);
  ok = ok && validate_scenario(loaded, error);
  if (!ok) throw std::runtime_error(error);
  return loaded;
}

// Runs the cell; returns "seconds rss_kb end_ms events verdict violations".
std::string measure_cell(int workspaces, int hours) {
  const LoadedScenario loaded = scale_scenario(workspaces, hours);
  std::string error;
  const System* system = selected_system(loaded, error);
  RunOptions options;
  options.events_max = 4'000'000'000ULL;
  options.go_past_every_safety = true;  // The run's full length: its cost, not its first bug.
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const RunResult result = execute_run(*system, loaded.scenario, options);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  // CPU seconds (user + system) of the run: the machine is shared, wall time is not the cost.
  auto cpu_s = [](const rusage& u) {
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  };
  const double seconds = cpu_s(usage) - cpu_s(before);
  const std::string line = std::to_string(seconds) + " " + std::to_string(usage.ru_maxrss) + " " +
                           std::to_string(result.end_ms) + " " + std::to_string(result.events) +
                           " " + std::to_string(static_cast<int>(result.verdict)) + " " +
                           std::to_string(result.masked.size()) + "\n";
  return line;
}

// In the child: runs the cell and writes measure_cell's line to `fd`.
[[noreturn]] void run_cell_child(int workspaces, int hours, int fd) {
  const std::string line = measure_cell(workspaces, hours);
  const ssize_t written = write(fd, line.data(), line.size());
  _exit(written == static_cast<ssize_t>(line.size()) ? 0 : 1);
}

// The cell's line, measured in a forked child (or in process, WSIM_SCALE_IN_PROCESS).
bool cell_line(const Cell& cell, std::string& line) {
  if (std::getenv("WSIM_SCALE_IN_PROCESS") != nullptr) {
    line = measure_cell(cell.workspaces, cell.hours);
    return true;
  }
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    run_cell_child(cell.workspaces, cell.hours, fds[1]);
  }
  close(fds[1]);
  char buffer[256] = {};
  const ssize_t n = read(fds[0], buffer, sizeof(buffer) - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
  line = buffer;
  return true;
}

bool run_cell(Cell& cell) {
  std::string buffer;
  if (!cell_line(cell, buffer)) return false;
  double rss_kb = 0, end_ms = 0;
  if (std::sscanf(buffer.c_str(), "%lf %lf %lf %lf %d %lf", &cell.seconds, &rss_kb, &end_ms,
                  &cell.events, &cell.verdict, &cell.violations) != 6) {
    return false;
  }
  cell.rss_mb = rss_kb / 1024.0;
  cell.sim_hours = end_ms / 3'600'000.0;
  return true;
}

void BM_ScaleCell(benchmark::State& state) {
  Cell cell;
  cell.workspaces = static_cast<int>(state.range(0));
  cell.hours = static_cast<int>(state.range(1));
  const char* max_ws = std::getenv("WSIM_SCALE_MAX_WS");
  if (max_ws != nullptr && cell.workspaces > std::atoi(max_ws)) {
    state.SkipWithError("skipped (WSIM_SCALE_MAX_WS)");
    return;
  }
  for (auto _ : state) {
    if (!run_cell(cell)) {
      state.SkipWithError("the cell's child failed (crash, out of memory or bad scenario)");
      return;
    }
    state.SetIterationTime(cell.seconds);
  }
  cells().push_back(cell);
  state.counters["seconds"] = cell.seconds;
  state.counters["peak_rss_MB"] = cell.rss_mb;
  state.counters["sim_hours"] = cell.sim_hours;
  state.counters["events"] = cell.events;
  state.counters["verdict"] = cell.verdict;
  state.counters["violations"] = cell.violations;
  state.counters["s_per_ws_hour"] =
      cell.seconds / (cell.workspaces * std::max(cell.sim_hours, 1e-9));
}
BENCHMARK(BM_ScaleCell)
    ->ArgNames({"workspaces", "hours"})
    ->ArgsProduct({{10, 100, 1000}, {2, 24}})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

// Least-squares fit of seconds = a + b x workspace-hours over the cells measured.
void BM_ScaleSlope(benchmark::State& state) {
  for (auto _ : state) {
  }
  const std::vector<Cell>& all = cells();
  if (all.size() < 2) {
    state.SkipWithError("fewer than two cells measured");
    return;
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0, worst_s = 0, worst_rss = 0;
  for (const Cell& c : all) {
    const double x = c.workspaces * c.sim_hours;
    sx += x;
    sy += c.seconds;
    sxx += x * x;
    sxy += x * c.seconds;
    worst_s = std::max(worst_s, c.seconds);
    worst_rss = std::max(worst_rss, c.rss_mb);
  }
  const double n = static_cast<double>(all.size());
  const double b = (n * sxy - sx * sy) / std::max(n * sxx - sx * sx, 1e-12);
  state.counters["ms_per_ws_hour"] = b * 1000.0;
  state.counters["intercept_s"] = (sy - b * sx) / n;
  state.counters["worst_cell_s"] = worst_s;
  state.counters["worst_peak_rss_MB"] = worst_rss;
}
BENCHMARK(BM_ScaleSlope)->Iterations(1);

}  // namespace
}  // namespace wsim::run
