// The external process under test (`wsim serve --scenario FILE -- COMMAND...`): started with
// WSIM_SERVER=http://127.0.0.1:PORT in its environment, its output to a log file, in a process
// group of its own; stopped with SIGTERM, then SIGKILL after a bounded wait.
//
// Threading: one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "serve/readiness.h"

namespace wsim::serve {

class ExternalProcess {
 public:
  ExternalProcess() = default;
  ~ExternalProcess() { stop(); }
  ExternalProcess(const ExternalProcess&) = delete;
  ExternalProcess& operator=(const ExternalProcess&) = delete;

  // Before start(): run the process's clocks and timed waits on the virtual clock of the page
  // `clock_fd` (serve/virtual_clock.h) through the LD_PRELOAD shim `shim_path`: the child
  // inherits the descriptor (WSIM_VCLOCK_FD) and LD_PRELOAD names the shim first.
  void use_virtual_clock(int clock_fd, std::string shim_path) {
    clock_fd_ = clock_fd;
    shim_path_ = std::move(shim_path);
  }
  // Starts `argv` (argv[0] looked up in PATH). `log_path` empty = /dev/null. False with `error`.
  bool start(const std::vector<std::string>& argv, const std::string& server_url,
             const std::string& log_path, std::string& error);
  // True while it runs; once it has exited, false and `exit_text` says how.
  bool running(std::string& exit_text);
  // readiness.h look_at_process_tree of the process and its descendants (a shell's children:
  // kubectl starting up while the shell waits for it, are the process too); not busy and not
  // asleep when it is not running.
  TreeLook look(std::int64_t timer_horizon_ms) const;
  // look().busy: a thread of the process or of its descendants is running, runnable or in the
  // kernel (Linux: state R or D in /proc/PID/task/*/stat). False elsewhere.
  bool busy() const { return look(0).busy; }
  // SIGTERM to its process group, up to 2 s, then SIGKILL. Idempotent.
  void stop();

 private:
  pid_t pid_ = -1;
  int clock_fd_ = -1;
  std::string shim_path_;
  bool exited_ = false;
  std::string exit_text_;
};

}  // namespace wsim::serve
