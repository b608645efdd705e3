// One libFuzzer target per entry of sim/run/fuzz_targets.cc (compiled once per target with
// WSIM_FUZZ_TARGET set to its name). The input bytes are the run's choice stream; a violation (for
// a guard: one whose signature matches no known bug of WSIM_CORPUS_DIR, the regression corpus;
// sim/run/signature.h) prints the invariant and the repro command, then abort()s so libFuzzer
// saves the input as crash-<sha1>. Without the corpus directory (a build moved elsewhere) a guard
// knows no bug and reports every violation.
//
//   build/fuzz/fuzz/toy_canary -max_total_time=60 corpus/fuzz/toy_canary
//   scripts/wsim replay --fuzz-target toy_canary crash-<sha1>    # → a full failure bundle
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <filesystem>
#include <vector>

#include "sim/run/corpus_bugs.h"
#include "sim/run/fuzz_targets.h"
#include "fuzz/register_systems.h"

#ifndef WSIM_FUZZ_TARGET
#error "compile with -DWSIM_FUZZ_TARGET=\"<name>\""
#endif

namespace {

const wsim::run::FuzzTarget* g_target = nullptr;
wsim::run::LoadedScenario* g_scenario = nullptr;
std::vector<wsim::run::KnownBug>* g_known = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  wsim::fuzz::register_systems();
  g_target = wsim::run::find_fuzz_target(WSIM_FUZZ_TARGET);
  if (g_target == nullptr) {
    std::fprintf(stderr, "fuzz: no target named %s in sim/run/fuzz_targets.cc\n",
                 WSIM_FUZZ_TARGET);
    std::abort();
  }
  g_scenario = new wsim::run::LoadedScenario();
  std::string error;
  if (!wsim::run::fuzz_target_scenario(*g_target, *g_scenario, error)) {
    std::fprintf(stderr, "fuzz: %s: %s\n", WSIM_FUZZ_TARGET, error.c_str());
    std::abort();
  }
  g_known = new std::vector<wsim::run::KnownBug>();
  std::error_code ec;
  if (!g_target->canary && std::filesystem::is_directory(WSIM_CORPUS_DIR, ec) &&
      !wsim::run::known_bugs(WSIM_CORPUS_DIR, g_target->system, *g_known, error)) {
    std::fprintf(stderr, "fuzz: %s: known bugs: %s\n", WSIM_FUZZ_TARGET, error.c_str());
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
  std::fprintf(stderr,
               "full bundle: scripts/wsim replay --fuzz-target %s <the crash file below>\n",
               g_target->name.c_str());
  std::abort();
}
