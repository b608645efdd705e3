#include "serve/external_process.h"

#include "serve/readiness.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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
[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::string& server_url,
                             const std::string& log_path) {
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
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  const std::string message = "wsim serve: cannot run " + argv[0] + ": " + strerror(errno) + "\n";
  (void)!write(STDERR_FILENO, message.data(), message.size());
  _exit(127);
}

// The state letter of /proc/.../stat (after the command name in parentheses), or 0.
char state_of(const std::filesystem::path& stat_file) {
  std::ifstream in(stat_file);
  std::string line;
  if (!std::getline(in, line)) return 0;
  const std::size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() ? 0 : line[paren + 2];
}

}  // namespace

// Walks the process tree (/proc/PID/task/TID/children), as readiness.h does: a shell's
// children (kubectl starting up while the shell waits for it) are the process too.
bool ExternalProcess::busy() const {
  if (pid_ < 0 || exited_) return false;
  std::vector<pid_t> pending = {pid_};
  int processes = 0;
  int threads = 0;
  while (!pending.empty()) {
    // A tree too large to look at is taken for busy: the lockstep then waits for HTTP quiet
    // up to its bound (LockstepOptions::wait_max_ms) instead of moving time past its processes.
    if (processes >= kReadinessProcessesMax || threads >= kReadinessThreadsMax) return true;
    const pid_t pid = pending.back();
    pending.pop_back();
    ++processes;
    std::error_code ec;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    for (auto it = std::filesystem::directory_iterator(tasks, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      ++threads;
      const char state = state_of(it->path() / "stat");
      // R: on a CPU or waiting for one; D: in the kernel (an exec loading, a page fault).
      if (state == 'R' || state == 'D') return true;
      std::ifstream children(it->path() / "children");
      for (pid_t child = 0; children >> child;) pending.push_back(child);
    }
  }
  return false;
}

std::optional<std::uint64_t> ExternalProcess::sleep_mark(std::int64_t timer_horizon_ms) const {
  if (pid_ < 0 || exited_) return std::nullopt;
  return process_tree_sleep_mark(pid_, timer_horizon_ms);
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
  if (pid == 0) exec_child(argv, server_url, log_path);
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
