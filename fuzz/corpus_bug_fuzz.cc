// A libFuzzer target for any known bug of the regression corpus (sim/triage/corpus_bugs.h): the bug
// is named on the command line, the input bytes are the run's choice stream (like choice_fuzz.cc),
// and only a violation of the bug's invariant is a finding. It measures how fast coverage-guided
// mutation reaches each corpus bug (scripts/bench-find); it is not a CI target, since it needs an
// argument (libFuzzer ignores flags that start with "--" and passes them on):
//
//   build/fuzz/fuzz/corpus_bug_fuzz --bug=corpus/regressions/gitlab/limbo-411205.textproto#0
//       -max_total_time=60 CORPUS_DIR
//
// Its crash files are measurements, not repros: `wsim hunt --bug FILE#N` finds the same bug with a
// seed and writes a full failure bundle.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "model/all_systems/all_systems.h"
#include "sim/search/fuzz_targets.h"
#include "sim/triage/corpus_bugs.h"

namespace {

wsim::run::CorpusBug* g_bug = nullptr;
wsim::run::LoadedScenario* g_scenario = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  wsim::register_all_systems();
  std::string spec;
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp((*argv)[i], "--bug=", 6) == 0) spec = (*argv)[i] + 6;
  }
  if (spec.empty()) {
    std::fprintf(stderr, "corpus_bug_fuzz: give --bug=FILE#N (see `wsim corpus bugs`)\n");
    std::exit(1);
  }
  g_bug = new wsim::run::CorpusBug();
  g_scenario = new wsim::run::LoadedScenario();
  std::string error;
  if (!wsim::run::parse_corpus_bug(spec, *g_bug, error) ||
      !wsim::run::corpus_bug_scenario(*g_bug, *g_scenario, error)) {
    std::fprintf(stderr, "corpus_bug_fuzz: --bug=%s: %s\n", spec.c_str(), error.c_str());
    std::exit(1);
  }
  std::fprintf(stderr, "corpus_bug_fuzz: bug %s (%s when %s)\n", g_bug->name.c_str(),
               g_bug->invariant.c_str(), g_bug->when.c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const wsim::run::RunResult result =
      wsim::run::execute_run(*g_scenario->system, g_scenario->scenario,
                             wsim::run::fuzz_run_options(std::span(data, size)));
  if (!result.violation || result.violation->invariant_id != g_bug->invariant) return 0;
  std::fprintf(stderr, "\nWSIM-FINDING corpus_bug_fuzz %s %s: %s\n", g_bug->name.c_str(),
               result.violation->invariant_id.c_str(), result.violation->message.c_str());
  std::abort();
}
