// The hunt's worker pool (hunt_pool.h): forked workers, their pipes read line by line, stops
// with a grace period, and crashed workers recorded and replaced.
#include "sim/search/hunt_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "sim/core/assert.h"
#include "sim/search/hunt_worker.h"

namespace wsim::run {

namespace {

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "signal " + std::to_string(sig) + " (" + std::string(::strsignal(sig)) + ")";
  }
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}

// Buffered output would be written twice, once by each side of the fork.
void flush_everything(const HuntOptions& options) {
  std::cout.flush();
  std::cerr.flush();
  if (options.progress) options.progress->flush();
  if (options.log) options.log->flush();
  std::fflush(nullptr);
}

}  // namespace

WorkerPool::WorkerPool(const HuntOptions& options, HuntTally& tally)
    : options_(options), tally_(tally), stride_(static_cast<std::uint64_t>(options.jobs)) {
  WSIM_ASSERT_GE(options.jobs, 1);
  workers_.resize(stride_);
}

void WorkerPool::start() {
  WSIM_ASSERT_EQ(workers_.size(), stride_);
  WSIM_ASSERT(!running());  // Started once.
  for (std::size_t j = 0; j < workers_.size(); ++j) spawn(j, j);
  WSIM_ASSERT(running());
}

bool WorkerPool::running() const {
  for (const Worker& worker : workers_) {
    if (worker.fd >= 0) return true;
  }
  return false;
}

double WorkerPool::now_seconds() const {
  return options_.clock.elapsed_seconds ? options_.clock.elapsed_seconds() : 0.0;
}

// SIGTERM is blocked across the fork so that a stop sent before the worker installed its
// handler stays pending instead of killing it (which would look like a crash).
void WorkerPool::spawn(std::size_t j, std::uint64_t first_index) {
  WSIM_ASSERT_LT(j, workers_.size());
  WSIM_ASSERT_LT(workers_[j].fd, 0);  // The slot's previous worker was reaped.
  int fds[2];
  WSIM_ASSERT_MSG(::pipe2(fds, O_CLOEXEC) == 0, "pipe2: " << std::strerror(errno));
  flush_everything(options_);
  sigset_t term;
  sigset_t previous_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  WSIM_ASSERT_EQ(::sigprocmask(SIG_BLOCK, &term, &previous_mask), 0);
  const pid_t pid = ::fork();
  WSIM_ASSERT_MSG(pid >= 0, "fork: " << std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    for (const Worker& other : workers_) {
      if (other.fd >= 0) ::close(other.fd);
    }
    worker_main(options_, fds[1], first_index, stride_);
  }
  ::sigprocmask(SIG_SETMASK, &previous_mask, nullptr);
  ::close(fds[1]);
  workers_[j] = Worker{pid, fds[0], first_index, false, {}};
  WSIM_ASSERT_GT(workers_[j].pid, 0);
}

void WorkerPool::stop() {
  if (stopping_) return;
  stopping_ = true;
  stop_requested_at_ = now_seconds();
  for (const Worker& worker : workers_) {
    if (worker.fd < 0) continue;
    WSIM_ASSERT_GT(worker.pid, 0);  // kill(0 or -1) would signal a whole process group.
    ::kill(worker.pid, SIGTERM);
  }
}

void WorkerPool::kill_stragglers(double now) {
  if (!stopping_ || killed_ || !options_.clock.elapsed_seconds) return;
  if (now - stop_requested_at_ <= kStopGraceSeconds) return;
  killed_ = true;
  for (const Worker& worker : workers_) {
    if (worker.fd < 0) continue;
    WSIM_ASSERT_GT(worker.pid, 0);
    ::kill(worker.pid, SIGKILL);
  }
}

void WorkerPool::poll_once(int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<std::size_t> owner;
  for (std::size_t j = 0; j < workers_.size(); ++j) {
    if (workers_[j].fd < 0) continue;
    fds.push_back(pollfd{workers_[j].fd, POLLIN, 0});
    owner.push_back(j);
  }
  if (fds.empty()) return;
  WSIM_ASSERT_EQ(fds.size(), owner.size());
  const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
  WSIM_ASSERT_MSG(ready >= 0 || errno == EINTR, "poll: " << std::strerror(errno));
  for (std::size_t k = 0; ready > 0 && k < fds.size(); ++k) {
    if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    read_from(owner[k]);
  }
}

void WorkerPool::read_from(std::size_t j) {
  WSIM_ASSERT_LT(j, workers_.size());
  Worker& worker = workers_[j];
  WSIM_ASSERT_GE(worker.fd, 0);
  char chunk[65536];
  const ssize_t n = ::read(worker.fd, chunk, sizeof chunk);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) {
    reap(j);  // End of file: the worker is gone.
    return;
  }
  worker.buffer.append(chunk, static_cast<std::size_t>(n));
  std::size_t begin = 0;
  for (std::size_t end = worker.buffer.find('\n'); end != std::string::npos;
       begin = end + 1, end = worker.buffer.find('\n', begin)) {
    handle_line(worker, worker.buffer.substr(begin, end - begin));
  }
  worker.buffer.erase(0, begin);
  // Only a partial line waits for the next read.
  WSIM_ASSERT_EQ(worker.buffer.find('\n'), std::string::npos);
}

void WorkerPool::handle_line(Worker& worker, const std::string& text) {
  std::istringstream line(text);
  std::string tag;
  line >> tag;
  if (tag == "R") {
    std::uint64_t local = 0;
    std::uint64_t seed = 0;
    std::string swarm;
    line >> local >> seed >> swarm;
    std::optional<std::uint64_t> swarm_seed;
    if (swarm != "-") swarm_seed = std::stoull(swarm);
    // A worker reports its runs in order over its own pipe (worker_main's stride).
    WSIM_ASSERT_EQ(local, worker.next_index);
    worker.next_index = local + stride_;
    std::vector<RunFinding> findings;
    int code = 0;
    RunFinding finding;
    while (line >> code >> finding.invariant >> finding.known) {
      finding.verdict = verdict_of_code(code);
      WSIM_ASSERT(finding.verdict != Verdict::kPass);  // Paired with run_findings.
      findings.push_back(finding);
    }
    if (tally_.record_run(local, seed, swarm_seed, findings)) stop();
  } else if (tag == "P") {
    std::uint64_t hits = 0;
    std::string name;
    line >> hits >> name;
    tally_.add_probe_hits(name, hits);
  } else if (tag == "E") {
    worker.finished = true;
  }
}

// A worker that ended without "E" crashed, unless we stopped or killed it.
void WorkerPool::reap(std::size_t j) {
  WSIM_ASSERT_LT(j, workers_.size());
  Worker& worker = workers_[j];
  WSIM_ASSERT_GE(worker.fd, 0);  // Reaped once, at its end of file.
  ::close(worker.fd);
  worker.fd = -1;
  int status = 0;
  while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (worker.finished) return;
  const bool stopped_by_us = stopping_ && WIFSIGNALED(status) &&
                             (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGKILL);
  const std::uint64_t seed =
      options_.seed_start + shard_run_index(options_.shard, worker.next_index);
  if (killed_ || stopped_by_us) {
    if (killed_ && options_.log) {
      *options_.log << "worker " << j << " did not stop within " << kStopGraceSeconds
                    << " s and was killed (running seed " << seed << ")\n";
    }
    return;
  }
  if (tally_.record_crash(worker.next_index, seed,
                          "the worker died running this seed: " + describe_status(status))) {
    stop();
  }
  const std::uint64_t next = worker.next_index + stride_;
  const bool within_budget =
      !options_.runs || shard_run_index(options_.shard, next) < *options_.runs;
  if (!stopping_ && within_budget) spawn(j, next);
}

}  // namespace wsim::run
