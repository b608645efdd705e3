// The failure path of the always-on assertions (assert.h): prints the expression, its operands,
// the run's seed and virtual time, then aborts so that the CLI and libFuzzer both see a crash.
#include "sim/core/assert.h"

#include <cstdio>
#include <cstdlib>

namespace wsim {

void assert_fail(const char* file, int line, const char* expression, const std::string& detail) {
  const AssertContext& context = assert_context();
  std::fprintf(stderr,
               "wsim: harness assertion failed at %s:%d\n"
               "  expression: %s\n"
               "  %s%s"
               "  seed: %llu  virtual time: %lld ms%s%s\n",
               file, line, expression, detail.c_str(), detail.empty() ? "" : "\n",
               static_cast<unsigned long long>(context.seed),
               static_cast<long long>(context.now_ms),
               context.scenario.empty() ? "" : "  scenario: ", context.scenario.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace wsim
