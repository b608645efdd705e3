// A hunt worker (hunt_worker.h): the forked process that runs its share of the seeds and
// reports each run as one line on its pipe ("R", "P", "E").
#include "sim/search/hunt_worker.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "sim/core/assert.h"
#include "sim/core/probe.h"
#include "sim/report/bundle_write.h"
#include "sim/run/amplifiers.h"
#include "sim/search/hunt_guide.h"

namespace wsim::run {

namespace {

volatile std::sig_atomic_t g_worker_stop = 0;

void on_worker_stop(int) { g_worker_stop = 1; }

// SIGTERM stops the loop between runs. Ctrl-C reaches the whole process group: the parent
// decides, workers wait for its SIGTERM (dying here would look like a harness crash). The parent
// forked with SIGTERM blocked, so a stop sent before the handler existed is pending rather than
// fatal; it is delivered (and sets the flag) when unblocked here.
void install_worker_signals() {
  struct sigaction action {};
  action.sa_handler = on_worker_stop;
  sigemptyset(&action.sa_mask);
  WSIM_ASSERT_EQ(::sigaction(SIGTERM, &action, nullptr), 0);
  WSIM_ASSERT(::signal(SIGINT, SIG_IGN) != SIG_ERR);
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  WSIM_ASSERT_EQ(::sigprocmask(SIG_UNBLOCK, &term, nullptr), 0);
}

std::string run_line(std::uint64_t index, const proto::Scenario& scenario, const RunResult& result,
                     bool unmasked) {
  std::string line = "R " + std::to_string(index) + " " + std::to_string(scenario.seed()) + " " +
                     (scenario.has_swarm_seed() ? std::to_string(scenario.swarm_seed()) : "-");
  for (const RunFinding& finding : run_findings(result, unmasked)) {
    WSIM_ASSERT(finding.verdict != Verdict::kPass);
    line += " " + std::to_string(exit_code(finding.verdict)) + " " + wire_token(finding.invariant) +
            " " + wire_token(finding.known);
  }
  WSIM_ASSERT_EQ(line.find('\n'), std::string::npos);  // One run, one line (read_from).
  return line + "\n";
}

// "P <hits> <name>" for every probe the run reached.
std::string probe_lines(const Probes& probes) {
  std::string lines;
  for (const Probe& probe : probes.sorted()) {
    if (probe.hits == 0) continue;
    WSIM_ASSERT(!probe.name.empty());
    lines += "P " + std::to_string(probe.hits) + " " + wire_token(probe.name) + "\n";
  }
  return lines;
}

// HuntOptions::record_in_workers: the run with recording and trace, its bundle written here
// when it failed (the parent reads it back: hunt_rerun.cc).
RunResult recorded_run(const HuntOptions& options, const proto::Scenario& scenario) {
  WSIM_ASSERT(options.system != nullptr);
  RunOptions run_options;
  run_options.events_max = options.events_max;
  run_options.record_choices = true;
  run_options.keep_trace = true;
  run_options.known = options.known;
  run_options.go_past_known = options.unmasked;
  RunResult result = execute_run(*options.system, scenario, run_options);
  if (result.verdict == Verdict::kPass || !options.write_bundles) return result;
  proto::Scenario bundled = scenario;
  for (const MaskedViolation& masked : result.masked) {
    proto::KnownViolation* entry = bundled.add_go_past();
    entry->set_invariant(masked.violation.invariant_id);
    entry->set_object(masked.violation.object);
    entry->set_known(masked.known);
  }
  std::string path;
  std::string error;
  // A bundle that cannot be written shows as "no bundle" in the parent's report.
  (void)write_bundle(options.out_dir, *options.system, bundled, result, path, error);
  return result;
}

}  // namespace

bool write_all(int fd, std::string_view bytes) {
  WSIM_ASSERT_GE(fd, 0);
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    WSIM_ASSERT_LE(static_cast<std::size_t>(n), bytes.size());
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string wire_token(std::string_view text) {
  std::string out(text.empty() ? "-" : text);
  for (char& c : out) {
    if (c == ' ' || c == '\n' || c == '\t') c = '_';
  }
  // One token of a line that handle_line reads with >>.
  WSIM_ASSERT(!out.empty());
  WSIM_ASSERT_EQ(out.find(' '), std::string::npos);
  return out;
}

Verdict verdict_of_code(int code) {
  switch (code) {
    case kExitPass:
      return Verdict::kPass;
    case kExitSafety:
      return Verdict::kSafety;
    case kExitLiveness:
      return Verdict::kLiveness;
    default:
      return Verdict::kHarnessError;
  }
}

std::vector<RunFinding> run_findings(const RunResult& result, bool unmasked) {
  std::vector<RunFinding> out;
  const auto label = [&](const std::string& known) {
    return !unmasked ? std::string("-") : known.empty() ? std::string("NEW") : known;
  };
  for (const MaskedViolation& masked : result.masked) {
    WSIM_ASSERT(!masked.violation.invariant_id.empty());
    out.push_back({Verdict::kSafety, masked.violation.invariant_id, label(masked.known)});
  }
  if (result.verdict == Verdict::kPass) return out;
  const bool decided_by_masked =
      !result.masked.empty() && result.verdict == Verdict::kSafety && result.violation &&
      result.violation->invariant_id == result.masked.front().violation.invariant_id &&
      result.violation->object == result.masked.front().violation.object;
  if (decided_by_masked) return out;
  const std::string kind = result.violation ? result.violation->invariant_id : "harness";
  out.push_back({result.verdict, kind, result.violation ? label(result.known) : "-"});
  WSIM_ASSERT(!out.empty());  // A failed run is at least one finding.
  return out;
}

void worker_main(const HuntOptions& options, int fd, std::uint64_t first_index,
                 std::uint64_t stride) {
  WSIM_ASSERT_GE(stride, 1u);
  install_worker_signals();
  proto::Scenario scenario = options.scenario;
  RunOptions run_options;
  run_options.events_max = options.events_max;
  SwarmGuide guide;
  const bool guided = options.guided && !scenario.has_swarm_seed();
  for (std::uint64_t local = first_index; !g_worker_stop; local += stride) {
    const std::uint64_t index = shard_run_index(options.shard, local);
    if (options.runs && index >= *options.runs) break;
    const std::uint64_t seed = options.seed_start + index;
    scenario.set_seed(seed);
    if (guided) {
      const std::optional<std::uint64_t> swarm_seed = guide.pick(index);
      if (swarm_seed) {
        scenario.set_swarm_seed(*swarm_seed);
      } else {
        scenario.clear_swarm_seed();
      }
    }
    // hunt_run_scenario's draw, in place (the scenario is reused from run to run).
    draw_amplifiers(scenario, *options.system, options.amplifiers, config_seed_of(scenario));
    const RunResult result =
        options.record_in_workers ? recorded_run(options, scenario)
        : options.unmasked
            ? execute_run_with_known(*options.system, scenario, run_options, *options.known)
            : execute_run(*options.system, scenario, run_options);
    if (guided) {
      guide.observe(scenario.has_swarm_seed() ? scenario.swarm_seed() : seed,
                    result.probes.sorted());
    }
    // The run's probes go with its R line: a worker killed later (a stop's grace period ends
    // while a long run is in flight) keeps what its finished runs reached.
    const std::string lines =
        probe_lines(result.probes) + run_line(local, scenario, result, options.unmasked);
    if (!write_all(fd, lines)) ::_exit(1);
  }
  write_all(fd, "E\n");
  ::close(fd);
  ::_exit(0);
}

}  // namespace wsim::run
