#include "sim/run/hunt.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

#include "sim/core/sim.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"

namespace wsim::run {

namespace {

volatile std::sig_atomic_t g_worker_stop = 0;

// How long stopped workers may take to finish their current run before they are killed.
constexpr double kStopGraceSeconds = 30.0;

void on_worker_stop(int) { g_worker_stop = 1; }

// Ctrl-C in the parent: stop the workers, re-run what was found, print the summary. The handler
// resets itself, so a second Ctrl-C ends the hunt at once.
volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int) { g_interrupted = 1; }

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string token(std::string_view text) {
  std::string out(text.empty() ? "-" : text);
  for (char& c : out) {
    if (c == ' ' || c == '\n' || c == '\t') c = '_';
  }
  return out;
}

// What one run found: its masked (known) safety violations, then the violation that decided
// its verdict (or its harness error). `known` is a KnownBug::name, "NEW" or "-" (no labels).
struct RunFinding {
  Verdict verdict = Verdict::kPass;
  std::string invariant;
  std::string known;
};

std::vector<RunFinding> run_findings(const RunResult& result, bool unmasked) {
  std::vector<RunFinding> out;
  const auto label = [&](const std::string& known) {
    return !unmasked ? std::string("-") : known.empty() ? std::string("NEW") : known;
  };
  for (const MaskedViolation& masked : result.masked) {
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
  return out;
}

// The worker process: runs its share of the seeds, one result line per run:
//   R <index> <seed> then per finding (run_findings): <exit code> <invariant> <label>
// then one line per probe, "P <hits> <name>", and "E" when it stops normally.
[[noreturn]] void worker_main(const HuntOptions& options, int fd, std::uint64_t first_index,
                              std::uint64_t stride) {
  struct sigaction action {};
  action.sa_handler = on_worker_stop;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGTERM, &action, nullptr);
  // Ctrl-C reaches the whole process group: the parent decides, workers wait for its SIGTERM
  // (dying here would look like a harness crash).
  ::signal(SIGINT, SIG_IGN);
  // The parent forked with SIGTERM blocked, so a stop sent before the handler above existed is
  // pending rather than fatal; it is delivered (and sets the flag) now.
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_UNBLOCK, &term, nullptr);
  proto::Scenario scenario = options.scenario;
  RunOptions run_options;
  run_options.events_max = options.events_max;
  Probes probes;
  for (std::uint64_t index = first_index; !g_worker_stop; index += stride) {
    if (options.runs && index >= *options.runs) break;
    const std::uint64_t seed = options.seed_start + index;
    scenario.set_seed(seed);
    const RunResult result = options.unmasked ? execute_run_with_known(*options.system, scenario,
                                                                       run_options, *options.known)
                                              : execute_run(*options.system, scenario, run_options);
    probes.merge(result.probes);
    std::string line = "R " + std::to_string(index) + " " + std::to_string(seed);
    for (const RunFinding& finding : run_findings(result, options.unmasked)) {
      line += " " + std::to_string(exit_code(finding.verdict)) + " " + token(finding.invariant) +
              " " + token(finding.known);
    }
    line += "\n";
    if (!write_all(fd, line)) ::_exit(1);
  }
  std::string tail;
  for (const Probe& probe : probes.sorted()) {
    tail += "P " + std::to_string(probe.hits) + " " + token(probe.name) + "\n";
  }
  tail += "E\n";
  write_all(fd, tail);
  ::close(fd);
  ::_exit(0);
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::uint64_t next_index = 0;  // The index it runs next (or was running when it died).
  bool finished = false;         // Sent "E".
  std::string buffer;
};

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "signal " + std::to_string(sig) + " (" + std::string(::strsignal(sig)) + ")";
  }
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
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

std::string rate_text(double runs, double seconds) {
  if (seconds <= 0) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.0f", runs / seconds);
  return buffer;
}

// The label and signature of `finding` from its re-run. In a labels-only hunt the label comes
// from here: the workers ran without a trace.
void label_finding(Finding& finding, const RunResult& rerun, const HuntOptions& options) {
  if (options.known == nullptr) return;
  for (const MaskedViolation& masked : rerun.masked) {
    if (masked.violation.invariant_id != finding.invariant) continue;
    finding.labelled = true;
    finding.known = masked.known;
    finding.signature = masked.signature.text();
    return;
  }
  if (!rerun.violation || rerun.violation->invariant_id != finding.invariant) return;
  WSIM_ASSERT(rerun.signature.has_value());
  finding.labelled = true;
  finding.signature = rerun.signature->text();
  // The re-run had the known list: execute_run matched its signature (consequences included).
  finding.known = rerun.known;
}

}  // namespace

int HuntResult::exit_code() const {
  for (const Finding& finding : findings) {
    if (!unmasked || !finding.labelled || finding.known.empty()) {
      return run::exit_code(finding.verdict);
    }
  }
  return kExitPass;
}

std::string render_probe_coverage(const std::vector<Probe>& sorted) {
  std::size_t reached = 0;
  std::size_t width = 0;
  for (const Probe& probe : sorted) {
    if (probe.hits > 0) ++reached;
    width = std::max(width, probe.name.size());
  }
  std::ostringstream out;
  out << "probes: " << reached << " of " << sorted.size() << " reached\n";
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

HuntResult hunt(const HuntOptions& options) {
  WSIM_ASSERT(options.system != nullptr);
  WSIM_ASSERT_GE(options.jobs, 1);
  HuntResult result;
  const auto elapsed = [&] {
    return options.clock.elapsed_seconds ? options.clock.elapsed_seconds() : 0.0;
  };
  const double started = elapsed();

  // Every declared probe, so the report also lists the ones no run reached.
  std::map<std::string, Probe> probes;
  {
    Sim dummy(ChoiceSource::from_seed(0));
    std::unique_ptr<SystemRun> run = options.system->create(dummy, options.scenario);
    for (const Probe& probe : dummy.probes().sorted()) probes[probe.name] = probe;
  }

  const auto jobs = static_cast<std::uint64_t>(options.jobs);
  std::vector<Worker> workers(jobs);
  bool stopping = false;
  std::map<std::tuple<int, std::string, std::string>, std::size_t> finding_by_kind;
  result.unmasked = options.unmasked;
  WSIM_ASSERT(!options.unmasked || options.known != nullptr);

  const auto spawn = [&](std::size_t j, std::uint64_t first_index) {
    int fds[2];
    WSIM_ASSERT_MSG(::pipe2(fds, O_CLOEXEC) == 0, "pipe2: " << std::strerror(errno));
    std::cout.flush();
    std::cerr.flush();
    if (options.progress) options.progress->flush();
    if (options.log) options.log->flush();
    std::fflush(nullptr);
    sigset_t term;
    sigset_t previous_mask;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &term, &previous_mask);
    const pid_t pid = ::fork();
    WSIM_ASSERT_MSG(pid >= 0, "fork: " << std::strerror(errno));
    if (pid != 0) ::sigprocmask(SIG_SETMASK, &previous_mask, nullptr);
    if (pid == 0) {
      ::close(fds[0]);
      for (const Worker& other : workers) {
        if (other.fd >= 0) ::close(other.fd);
      }
      worker_main(options, fds[1], first_index, jobs);
    }
    ::close(fds[1]);
    workers[j] = Worker{pid, fds[0], first_index, false, {}};
  };
  double stop_requested_at = 0;
  bool killed = false;
  const auto stop_all = [&] {
    if (stopping) return;
    stopping = true;
    stop_requested_at = elapsed();
    for (const Worker& worker : workers) {
      if (worker.fd >= 0) ::kill(worker.pid, SIGTERM);
    }
  };
  // A known finding of an unmasked hunt does not stop it.
  const auto record_failure = [&](std::uint64_t seed, Verdict verdict, const std::string& kind,
                                  const std::string& label, const std::string& message) {
    const auto key = std::make_tuple(static_cast<int>(verdict), kind, label);
    auto it = finding_by_kind.find(key);
    if (it == finding_by_kind.end()) {
      it = finding_by_kind.emplace(key, result.findings.size()).first;
      Finding finding;
      finding.seed = seed;
      finding.verdict = verdict;
      finding.invariant = kind;
      finding.message = message;
      finding.labelled = options.unmasked && label != "-";
      if (finding.labelled && label != "NEW") finding.known = label;
      result.findings.push_back(std::move(finding));
    }
    ++result.findings[it->second].count;
    const bool wanted = options.until_invariant.empty() || kind == options.until_invariant;
    const bool is_new = !options.unmasked || label == "NEW" || label == "-";
    if (!options.keep_going && wanted && (is_new || !options.until_invariant.empty())) stop_all();
  };

  g_interrupted = 0;
  struct sigaction interrupt {};
  struct sigaction previous_interrupt {};
  interrupt.sa_handler = on_interrupt;
  interrupt.sa_flags = SA_RESETHAND;
  sigemptyset(&interrupt.sa_mask);
  ::sigaction(SIGINT, &interrupt, &previous_interrupt);

  for (std::size_t j = 0; j < workers.size(); ++j) spawn(j, j);

  double last_progress = started;
  const auto print_progress = [&](bool final_line) {
    if (options.progress == nullptr) return;
    const double now = elapsed();
    if (!final_line && !options.progress_tty && now - last_progress < 5.0) return;
    if (!final_line && options.progress_tty && now - last_progress < 0.25) return;
    last_progress = now;
    std::ostringstream line;
    line << "hunt " << options.system->name() << ": " << result.runs << " runs, "
         << rate_text(static_cast<double>(result.runs), now - started) << " runs/s, "
         << result.failures << (result.failures == 1 ? " failure" : " failures") << ", "
         << format_duration_ms(static_cast<DurationMs>((now - started) * 1000));
    if (options.progress_tty) {
      *options.progress << "\r" << line.str() << "\x1b[K" << (final_line ? "\n" : "");
    } else {
      *options.progress << line.str() << "\n";
    }
    options.progress->flush();
  };

  while (true) {
    std::vector<pollfd> fds;
    std::vector<std::size_t> owner;
    for (std::size_t j = 0; j < workers.size(); ++j) {
      if (workers[j].fd < 0) continue;
      fds.push_back(pollfd{workers[j].fd, POLLIN, 0});
      owner.push_back(j);
    }
    if (fds.empty()) break;
    const int ready = ::poll(fds.data(), fds.size(), 100);
    if (ready < 0 && errno != EINTR) {
      WSIM_ASSERT_MSG(false, "poll: " << std::strerror(errno));
    }
    for (std::size_t k = 0; ready > 0 && k < fds.size(); ++k) {
      if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Worker& worker = workers[owner[k]];
      char chunk[65536];
      const ssize_t n = ::read(worker.fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        worker.buffer.append(chunk, static_cast<std::size_t>(n));
        std::size_t begin = 0;
        for (std::size_t end = worker.buffer.find('\n'); end != std::string::npos;
             begin = end + 1, end = worker.buffer.find('\n', begin)) {
          std::istringstream line(worker.buffer.substr(begin, end - begin));
          std::string tag;
          line >> tag;
          if (tag == "R") {
            std::uint64_t index = 0;
            std::uint64_t seed = 0;
            line >> index >> seed;
            ++result.runs;
            worker.next_index = index + jobs;
            int code = 0;
            std::string invariant;
            std::string label;
            bool failed = false;
            while (line >> code >> invariant >> label) {
              if (code == kExitPass) continue;
              failed = true;
              record_failure(seed, verdict_of_code(code), invariant, label, "");
            }
            if (failed) ++result.failures;
          } else if (tag == "P") {
            std::uint64_t hits = 0;
            std::string name;
            line >> hits >> name;
            Probe& probe = probes[name];
            probe.name = name;
            probe.hits += hits;
          } else if (tag == "E") {
            worker.finished = true;
          }
        }
        worker.buffer.erase(0, begin);
        continue;
      }
      // End of file: the worker is gone.
      ::close(worker.fd);
      worker.fd = -1;
      int status = 0;
      while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
      }
      const bool stopped_by_us = stopping && WIFSIGNALED(status) &&
                                 (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGKILL);
      if (!worker.finished && (killed || stopped_by_us)) {
        if (killed && options.log) {
          *options.log << "worker " << owner[k] << " did not stop within " << kStopGraceSeconds
                       << " s and was killed (running seed "
                       << options.seed_start + worker.next_index << ")\n";
        }
      } else if (!worker.finished) {
        const std::uint64_t seed = options.seed_start + worker.next_index;
        ++result.failures;
        record_failure(seed, Verdict::kHarnessError, "crash", "-",
                       "the worker died running this seed: " + describe_status(status));
        const std::uint64_t next = worker.next_index + jobs;
        if (!stopping && (!options.runs || next < *options.runs)) spawn(owner[k], next);
      }
    }
    if (!stopping && g_interrupted) {
      result.interrupted = true;
      stop_all();
    }
    if (!stopping && options.clock.deadline_reached && options.clock.deadline_reached()) {
      result.deadline_reached = true;
      stop_all();
    }
    // Workers stop between runs; one stuck inside a single run is killed after a grace period.
    if (stopping && !killed && options.clock.elapsed_seconds &&
        elapsed() - stop_requested_at > kStopGraceSeconds) {
      killed = true;
      for (const Worker& worker : workers) {
        if (worker.fd >= 0) ::kill(worker.pid, SIGKILL);
      }
    }
    print_progress(false);
  }
  ::sigaction(SIGINT, &previous_interrupt, nullptr);
  result.seconds = elapsed() - started;
  print_progress(true);
  for (auto& [name, probe] : probes) result.probes.push_back(std::move(probe));

  // Re-run each kind of failure with recording on: the same verdict, and a bundle.
  std::ostream* log = options.log;
  for (std::size_t i = 0; i < result.findings.size() && i < 20; ++i) {
    Finding& finding = result.findings[i];
    if (log) *log << "\n";
    if (finding.invariant == "crash") {
      if (log) {
        *log << "HARNESS CRASH at seed " << finding.seed << ": " << finding.message << "\n"
             << "reproduce with:\n  " << options.repro_command << " --seed " << finding.seed
             << "\n";
      }
      continue;
    }
    proto::Scenario scenario = options.scenario;
    scenario.set_seed(finding.seed);
    RunOptions run_options;
    run_options.record_choices = true;
    run_options.keep_trace = true;
    run_options.log = log;
    run_options.events_max = options.events_max;
    run_options.known = options.known;
    run_options.go_past_known = options.unmasked;
    RunResult rerun = execute_run(*options.system, scenario, run_options);
    const std::string label =
        finding.labelled ? (finding.known.empty() ? "NEW" : finding.known) : std::string("-");
    bool same = false;
    for (const RunFinding& again : run_findings(rerun, options.unmasked)) {
      same = same || (again.verdict == finding.verdict && again.invariant == finding.invariant &&
                      again.known == label);
    }
    if (!same) {
      const std::string rerun_kind = rerun.violation ? rerun.violation->invariant_id : "";
      if (log) {
        *log << "NONDETERMINISM: seed " << finding.seed << " gave " << verdict_name(finding.verdict)
             << " " << finding.invariant << " while hunting, but " << verdict_name(rerun.verdict)
             << " " << rerun_kind << " when re-run with recording\n";
      }
      finding.verdict = Verdict::kNondeterminism;
      finding.message = "the re-run with recording gave a different verdict";
      continue;
    }
    label_finding(finding, rerun, options);
    if (rerun.violation) {
      finding.object = rerun.violation->object;
      finding.message = rerun.violation->message;
      for (const MaskedViolation& masked : rerun.masked) {
        if (masked.violation.invariant_id != finding.invariant ||
            finding.verdict != Verdict::kSafety)
          continue;
        finding.object = masked.violation.object;
        finding.message = masked.violation.message;
        break;
      }
    } else {
      finding.message = rerun.harness_error;
    }
    // The bundle replays exactly only if it goes past the same known violations.
    for (const MaskedViolation& masked : rerun.masked) {
      proto::KnownViolation* entry = scenario.add_go_past();
      entry->set_invariant(masked.violation.invariant_id);
      entry->set_object(masked.violation.object);
      entry->set_known(masked.known);
    }
    if (options.write_bundles) {
      std::string path;
      std::string error;
      if (write_bundle(options.out_dir, *options.system, scenario, rerun, path, error)) {
        finding.bundle = path;
      } else if (log) {
        *log << "cannot write the bundle: " << error << "\n";
      }
    }
    if (log) {
      if (!finding.bundle.empty()) *log << "bundle " << finding.bundle << "\n";
      *log << "reproduce with:\n";
      if (!finding.bundle.empty()) *log << "  scripts/wsim replay " << finding.bundle << "\n";
      *log << "  " << options.repro_command << " --seed " << finding.seed << "\n";
    }
  }
  return result;
}

}  // namespace wsim::run
