// Lockstep readiness from /proc (readiness.h, serve/README.md "Fast lockstep"): walks the external
// process's tree (at most kReadinessProcessesMax processes and kReadinessThreadsMax threads, else
// "busy"), reads thread states, context switches and epoll timeouts (x86-64 syscall numbers), and
// checks a port's receive queues in /proc/net/tcp. Linux only; any read that fails means not ready.
#include "serve/readiness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace wsim::serve {
namespace {

// The thread ids of /proc/PID/task, or empty when it cannot be read.
std::vector<std::string> tasks_of(pid_t pid) {
  std::vector<std::string> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return out;
  while (const dirent* entry = ::readdir(handle)) {
    if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') out.emplace_back(entry->d_name);
    if (static_cast<int>(out.size()) > kReadinessThreadsMax) break;
  }
  ::closedir(handle);
  return out;
}

// Up to `cap` - 1 bytes of a /proc file, NUL-terminated; false when it cannot be read. Plain
// read(2): the walk runs on every lockstep poll, and a stream per file costs more than the look.
bool read_proc(const std::string& path, char* buffer, std::size_t cap) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::size_t length = 0;
  while (length + 1 < cap) {
    const ssize_t got = ::read(fd, buffer + length, cap - 1 - length);
    if (got <= 0) break;
    length += static_cast<std::size_t>(got);
  }
  ::close(fd);
  buffer[length] = '\0';
  return length > 0;
}

// The state letter of a /proc stat file (after the command name in parentheses), or 0.
char state_of(const std::string& stat_path) {
  char buffer[1024];
  if (!read_proc(stat_path, buffer, sizeof buffer)) return 0;
  const char* paren = std::strrchr(buffer, ')');
  return paren == nullptr || paren[1] != ' ' ? 0 : paren[2];
}

// How often the thread was switched in: the third number of /proc/.../schedstat (run time,
// wait time, timeslices), or voluntary_ctxt_switches + nonvoluntary_ctxt_switches of
// /proc/.../status where there is no schedstat (a kernel without CONFIG_SCHED_INFO; status is
// heavier: the kernel sums the memory maps). False when neither reads.
bool switches_of(const std::string& base, std::uint64_t& switches) {
  char buffer[4096];
  if (read_proc(base + "/schedstat", buffer, sizeof buffer)) {
    char* end = buffer;
    std::strtoull(end, &end, 10);
    std::strtoull(end, &end, 10);
    const char* last = end;
    switches = std::strtoull(last, &end, 10);
    return end != last;
  }
  if (!read_proc(base + "/status", buffer, sizeof buffer)) return false;
  int found = 0;
  switches = 0;
  for (const char* key : {"voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"}) {
    const char* at = std::strstr(buffer, key);
    if (at == nullptr) continue;
    switches += std::strtoull(at + std::strlen(key), nullptr, 10);
    ++found;
  }
  return found == 2;
}

constexpr long kSysEpollWait = 232;   // x86-64
constexpr long kSysEpollPwait = 281;  // x86-64

// True when the thread sleeps in epoll_wait/epoll_pwait with a timeout of 1..horizon ms
// (/proc/.../syscall: the number, then the arguments in hex; the timeout is the fourth).
bool timer_due_soon(const std::string& syscall_path, std::int64_t horizon_ms) {
#if defined(__x86_64__)
  char buffer[512];
  if (!read_proc(syscall_path, buffer, sizeof buffer)) return false;
  if (buffer[0] < '0' || buffer[0] > '9') return false;  // "running", "-1 ...".
  char* end = buffer;
  const long nr = std::strtol(end, &end, 10);
  if (nr != kSysEpollWait && nr != kSysEpollPwait) return false;
  std::uint64_t args[4] = {};
  for (std::uint64_t& arg : args) {
    const char* before = end;
    arg = std::strtoull(end, &end, 16);
    if (end == before) return false;
  }
  const auto timeout = static_cast<std::int32_t>(args[3]);
  return timeout > 0 && timeout <= horizon_ms;
#else
  (void)syscall_path;
  (void)horizon_ms;
  return false;
#endif
}

// The child pids listed in /proc/.../children, appended to `out`.
void children_of(const std::string& children_path, std::vector<pid_t>& out) {
  char buffer[4096];
  if (!read_proc(children_path, buffer, sizeof buffer)) return;
  char* at = buffer;
  while (true) {
    char* end = at;
    const long child = std::strtol(at, &end, 10);
    if (end == at) break;
    out.push_back(static_cast<pid_t>(child));
    at = end;
  }
}

// FNV-1a 64 step over the 8 bytes of `value`.
std::uint64_t mix(std::uint64_t digest, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    digest ^= (value >> (8 * i)) & 0xffu;
    digest *= 0x100000001b3ull;
  }
  return digest;
}

TreeLook walk_tree(pid_t root, std::int64_t timer_horizon_ms) {
  TreeLook look;
  look.asleep = true;
  std::uint64_t digest = 0xcbf29ce484222325ull;
  std::vector<pid_t> pending = {root};
  while (!pending.empty()) {
    const pid_t pid = pending.back();
    pending.pop_back();
    if (++look.processes > kReadinessProcessesMax) return TreeLook{.busy = true};
    const std::vector<std::string> tasks = tasks_of(pid);
    // Gone between its parent's children list and now (it exited; the parent reaps it).
    if (tasks.empty()) look.asleep = false;
    for (const std::string& tid : tasks) {
      if (++look.threads > kReadinessThreadsMax) return TreeLook{.busy = true};
      const std::string base = "/proc/" + std::to_string(pid) + "/task/" + tid;
      const char state = state_of(base + "/stat");
      // R: on a CPU or waiting for one; D: in the kernel (an exec loading, a page fault).
      if (state == 'R' || state == 'D') return TreeLook{.busy = true};
      std::uint64_t switches = 0;
      if (state != 'S' || !switches_of(base, switches)) look.asleep = false;
      if (look.asleep && timer_horizon_ms > 0 &&
          timer_due_soon(base + "/syscall", timer_horizon_ms)) {
        look.timer_due = true;
      }
      digest = mix(mix(mix(digest, static_cast<std::uint64_t>(pid)), std::stoull(tid)), switches);
      children_of(base + "/children", pending);
    }
  }
  if (!look.asleep) look.timer_due = false;
  look.digest = look.asleep ? mix(digest, static_cast<std::uint64_t>(look.threads)) : 0;
  return look;
}

}  // namespace

// /proc is the kernel's, but a number that does not parse must not end the run: not asleep.
TreeLook look_at_process_tree(pid_t root, std::int64_t timer_horizon_ms) {
  try {
    return walk_tree(root, timer_horizon_ms);
  } catch (const std::exception&) {
    return TreeLook{};
  }
}

std::optional<std::uint64_t> process_tree_sleep_mark(pid_t root, std::int64_t timer_horizon_ms) {
  const TreeLook look = look_at_process_tree(root, timer_horizon_ms);
  if (!look.asleep || look.timer_due) return std::nullopt;
  return look.digest;
}

bool loopback_queues_empty(int port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  if (!std::getline(in, line)) return false;  // The header.
  char wanted[8];
  std::snprintf(wanted, sizeof wanted, ":%04X", static_cast<unsigned>(port) & 0xffffu);
  while (std::getline(in, line)) {
    // "  sl  local_address rem_address   st tx_queue:rx_queue ..."
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues;
    if (!(fields >> slot >> local >> remote >> state >> queues)) continue;
    const bool ours = local.size() > 5 && remote.size() > 5 &&
                      (local.compare(local.size() - 5, 5, wanted) == 0 ||
                       remote.compare(remote.size() - 5, 5, wanted) == 0);
    if (!ours) continue;
    // rx_queue only: tx_queue counts bytes not yet acknowledged, which a delayed ACK keeps
    // above 0 after the peer has read them; a listening socket's rx_queue is its accept backlog.
    const std::size_t colon = queues.find(':');
    if (colon == std::string::npos || queues.substr(colon + 1) != "00000000") return false;
  }
  return true;
}

}  // namespace wsim::serve
