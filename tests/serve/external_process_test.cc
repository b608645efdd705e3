// serve/external_process.h, the external process as a tree (issue #33, found with the kubectl
// example): busy() sees a descendant on a CPU while the root sleeps in wait(); an orphaned
// grandchild is re-parented to the process (a child subreaper), not to init; and stop() kills
// what is left of the process group even when its leader exited on its own. Linux only.
#include "serve/external_process.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace wsim::serve {
namespace {

using std::chrono::milliseconds;

// The parent pid of `pid` (/proc/PID/stat field 4), or -1 when it is gone.
pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  const std::size_t paren = line.rfind(')');
  if (paren == std::string::npos) return -1;
  char state = 0;
  pid_t parent = -1;
  std::istringstream rest(line.substr(paren + 2));
  rest >> state >> parent;
  return state == 'Z' ? -1 : parent;
}

// The pid the script wrote to `file`, after up to 5 s.
pid_t pid_from(const std::string& file) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(file);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return -1;
}

std::string scratch(const std::string& name) {
  return testing::TempDir() + "/external_process_test_" + name + "_" + std::to_string(::getpid());
}

TEST(ExternalProcess, BusyWhenADescendantRunsWhileTheRootWaits) {
  const std::string marker = scratch("spin");
  ExternalProcess process;
  std::string error;
  // The root shell waits for a child that spins: the root itself sleeps in wait().
  ASSERT_TRUE(process.start(
      {"/bin/sh", "-c", "sh -c 'echo $$ > " + marker + "; while :; do :; done' & wait"},
      "http://127.0.0.1:1", "", error))
      << error;
  ASSERT_GT(pid_from(marker), 0);
  bool busy = false;
  for (int i = 0; i < 200 && !busy; ++i) {
    busy = process.busy();
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_TRUE(busy) << "the spinning grandchild was not seen";
  process.stop();
  std::remove(marker.c_str());
}

TEST(ExternalProcess, OrphansStayInTheTreeAndGoWithTheGroup) {
  const std::string marker = scratch("orphan");
  ExternalProcess process;
  std::string error;
  // A subshell starts a background sleeper, writes its pid and the root's, and exits: the
  // sleeper is orphaned. Then the root exits too, leaving only the orphan in the group.
  ASSERT_TRUE(process.start({"/bin/sh", "-c",
                             "(sleep 30 & echo $! $$ > " + marker + ".tmp; mv " + marker + ".tmp " +
                                 marker + "); sleep 2"},
                            "http://127.0.0.1:1", "", error))
      << error;
  const pid_t orphan = pid_from(marker);
  ASSERT_GT(orphan, 0);
  pid_t root = -1;
  {
    std::ifstream in(marker);
    in >> root >> root;
  }
  ASSERT_GT(root, 0);
  pid_t parent = -1;
  for (int i = 0; i < 100 && parent != root; ++i) {  // The subshell needs a moment to exit.
    parent = parent_of(orphan);
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(parent, root) << "the orphan was not re-parented to the process (subreaper)";
  // The root exits on its own; stop() must still kill the orphan left in its group.
  std::string exit_text;
  for (int i = 0; i < 400 && process.running(exit_text); ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_FALSE(process.running(exit_text));
  process.stop();
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = parent_of(orphan) == -1;
    if (!gone) std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the orphan outlived the run";
  if (!gone) ::kill(orphan, SIGKILL);
  std::remove(marker.c_str());
}

}  // namespace
}  // namespace wsim::serve
