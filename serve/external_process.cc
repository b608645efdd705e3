// The external process (external_process.h): fork and exec in a process group of its own, with
// WSIM_SERVER set, output to the log, PDEATHSIG and child-subreaper set, and the virtual clock's
// shim preloaded when asked; stop() is SIGTERM, then SIGKILL after a bounded wait. One thread.
#include "serve/external_process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wsim::serve {
namespace {

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

// In the child: output to the log, WSIM_SERVER set, its own process group, then exec.
// In the child: the virtual clock's page inherited across exec, the shim preloaded (before any
// preload of the user's own).
void preload_virtual_clock(int clock_fd, const std::string& shim_path) {
  if (clock_fd < 0 || shim_path.empty()) return;
  const int flags = fcntl(clock_fd, F_GETFD);
  if (flags < 0 || fcntl(clock_fd, F_SETFD, flags & ~FD_CLOEXEC) != 0) return;
  setenv("WSIM_VCLOCK_FD", std::to_string(clock_fd).c_str(), 1);
  const char* before = getenv("LD_PRELOAD");
  const std::string preload =
      before != nullptr && *before != '\0' ? shim_path + ":" + before : shim_path;
  setenv("LD_PRELOAD", preload.c_str(), 1);
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::string& server_url,
                             const std::string& log_path, int clock_fd,
                             const std::string& shim_path) {
  setpgid(0, 0);
  // Dies with wsim (a hunt worker killed at its stop's grace period must not leave it running).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Its orphaned descendants (a shell's background job whose subshell ended) are re-parented to
  // it, not to init: they stay in the tree busy() and the readiness test walk (kept across exec).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const int fd = open(log_path.empty() ? "/dev/null" : log_path.c_str(),
                      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
  }
  const int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_in >= 0) dup2(null_in, STDIN_FILENO);
  setenv("WSIM_SERVER", server_url.c_str(), 1);
  preload_virtual_clock(clock_fd, shim_path);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  const std::string message = "wsim serve: cannot run " + argv[0] + ": " + strerror(errno) + "\n";
  (void)!write(STDERR_FILENO, message.data(), message.size());
  _exit(127);
}

}  // namespace

TreeLook ExternalProcess::look(std::int64_t timer_horizon_ms) const {
  if (pid_ < 0 || exited_) return TreeLook{};
  return look_at_process_tree(pid_, timer_horizon_ms);
}

bool ExternalProcess::start(const std::vector<std::string>& argv, const std::string& server_url,
                            const std::string& log_path, std::string& error) {
  if (argv.empty()) {
    error = "no command for the external process";
    return false;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + strerror(errno);
    return false;
  }
  if (pid == 0) exec_child(argv, server_url, log_path, clock_fd_, shim_path_);
  setpgid(pid, pid);  // Also here: no race with the child's own setpgid.
  pid_ = pid;
  return true;
}

bool ExternalProcess::running(std::string& exit_text) {
  if (pid_ < 0) {
    exit_text = exit_text_.empty() ? "not started" : exit_text_;
    return false;
  }
  int status = 0;
  if (!exited_ && waitpid(pid_, &status, WNOHANG) == pid_) {
    exited_ = true;
    exit_text_ = describe_status(status);
  }
  exit_text = exit_text_;
  return !exited_;
}

void ExternalProcess::stop() {
  if (pid_ < 0) return;
  std::string ignored;
  if (running(ignored)) {
    kill(-pid_, SIGTERM);
    for (int i = 0; i < 200 && running(ignored); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Whatever of its group is left (the leader's own children), then the leader if it lingers.
    kill(-pid_, SIGKILL);
    if (running(ignored)) {
      int status = 0;
      waitpid(pid_, &status, 0);
      exited_ = true;
      exit_text_ = describe_status(status);
    }
  }
  // Also when the leader had exited on its own: what is left of its group goes with the run.
  // Again while any is left (up to 1 s): a process forking while the group is killed can
  // leave a child the first kill did not reach.
  for (int i = 0; i < 100 && kill(-pid_, SIGKILL) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
}

}  // namespace wsim::serve
