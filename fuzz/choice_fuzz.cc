// Every choice-stream libFuzzer target of every system (System::fuzz_targets(),
// sim/run/system.h) is this one binary under the target's name: fuzz/CMakeLists.txt links
// fuzz/<name> to it for each line of `wsim list --fuzz-targets`, and the binary picks its target
// by the name it was started as (argv[0]). The input bytes are the run's choice stream; a
// violation (for a guard: one whose signature matches no known bug of WSIM_CORPUS_DIR, the
// regression corpus; sim/run/signature.h) prints the invariant and the repro command, then
// abort()s so libFuzzer saves the input as crash-<sha1>. Without the corpus directory (a build
// moved elsewhere) a guard knows no bug and reports every violation.
//
//   build/fuzz/fuzz/<target> -max_total_time=60 corpus/fuzz/<target>
//   scripts/wsim replay --fuzz-target <target> crash-<sha1>    # → a full failure bundle
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "model/all_systems/all_systems.h"
#include "sim/search/fuzz_targets.h"
#include "sim/triage/corpus_bugs.h"

namespace {

const wsim::run::FuzzTarget* g_target = nullptr;
wsim::run::LoadedScenario* g_scenario = nullptr;
std::vector<wsim::run::KnownBug>* g_known = nullptr;
std::string* g_name = nullptr;

// The target this binary runs: the file name it was started as.
std::string target_name(const char* argv0) {
  return std::filesystem::path(argv0 == nullptr ? "" : argv0).filename().string();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  wsim::register_all_systems();
  g_name = new std::string(target_name(*argc > 0 ? (*argv)[0] : nullptr));
  g_target = wsim::run::find_fuzz_target(*g_name);
  if (g_target == nullptr) {
    std::fprintf(
        stderr, "fuzz: '%s' is no fuzz target (run it as fuzz/<target>; targets:", g_name->c_str());
    for (const auto& target : wsim::run::fuzz_targets()) {
      std::fprintf(stderr, " %s", target.name.c_str());
    }
    std::fprintf(stderr, ")\n");
    std::abort();
  }
  g_scenario = new wsim::run::LoadedScenario();
  std::string error;
  if (!wsim::run::fuzz_target_scenario(*g_target, *g_scenario, error)) {
    std::fprintf(stderr, "fuzz: %s: %s\n", g_name->c_str(), error.c_str());
    std::abort();
  }
  g_known = new std::vector<wsim::run::KnownBug>();
  std::error_code ec;
  if (!g_target->canary && std::filesystem::is_directory(WSIM_CORPUS_DIR, ec) &&
      !wsim::run::known_bugs(WSIM_CORPUS_DIR, g_target->system, *g_known, error)) {
    std::fprintf(stderr, "fuzz: %s: known bugs: %s\n", g_name->c_str(), error.c_str());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const wsim::run::RunResult result =
      wsim::run::fuzz_execute(*g_target, *g_scenario, std::span(data, size), *g_known);
  if (!wsim::run::fuzz_finding(*g_target, result)) return 0;
  std::fprintf(stderr, "\nWSIM-FINDING %s %s %s%s%s\n", g_target->name.c_str(),
               wsim::run::verdict_name(result.verdict),
               result.violation ? result.violation->invariant_id.c_str() : "",
               result.violation ? ": " : result.harness_error.c_str(),
               result.violation ? result.violation->message.c_str() : "");
  std::fprintf(stderr, "full bundle: scripts/wsim replay --fuzz-target %s <the crash file below>\n",
               g_target->name.c_str());
  std::abort();
}
