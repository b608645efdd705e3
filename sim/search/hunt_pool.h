// The worker pool of a hunt (hunt.h): forks HuntOptions::jobs worker processes (hunt_worker.h),
// reads their run lines into a HuntTally, replaces a worker that died (a harness crash, reported
// with the seed it was running) and stops them all on request.
//
// Worker j runs the shard-local run indices j, j + jobs, j + 2 jobs, ... (hunt.h: Shard) Stopping
// sends SIGTERM, honoured between runs; a worker still running kStopGraceSeconds later (stuck
// inside one run) is killed. Single-threaded: the hunt's parent process drives it with poll_once().
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/search/hunt.h"
#include "sim/search/hunt_tally.h"

namespace wsim::run {

class WorkerPool {
 public:
  // How long stopped workers may take to finish their current run before they are killed.
  static constexpr double kStopGraceSeconds = 30.0;

  // REQUIRES: options.jobs >= 1. Both references outlive the pool.
  WorkerPool(const HuntOptions& options, HuntTally& tally);

  // Forks the workers.
  void start();
  // True while some worker's pipe is open.
  bool running() const;
  // Waits up to `timeout_ms` for worker output, feeds it to the tally (stopping the pool when
  // the tally says so), and reaps workers that ended.
  void poll_once(int timeout_ms);
  // Asks every worker to stop after its current run (idempotent).
  void stop();
  bool stopping() const { return stopping_; }
  // Kills the workers that have not stopped within the grace period, once `now_seconds` is past
  // it (elapsed-seconds clock of the hunt).
  void kill_stragglers(double now_seconds);

 private:
  struct Worker {
    pid_t pid = -1;
    int fd = -1;
    std::uint64_t next_index = 0;  // The local index it runs next (or was running when it died).
    bool finished = false;         // Sent "E".
    std::string buffer;
  };

  void spawn(std::size_t j, std::uint64_t first_index);
  void read_from(std::size_t j);
  void handle_line(Worker& worker, const std::string& text);
  void reap(std::size_t j);
  double now_seconds() const;

  const HuntOptions& options_;
  HuntTally& tally_;
  std::uint64_t stride_;
  std::vector<Worker> workers_;
  bool stopping_ = false;
  bool killed_ = false;
  double stop_requested_at_ = 0;
};

}  // namespace wsim::run
