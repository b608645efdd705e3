// Always-on assertions for harness bugs (docs/architecture.md §2). They are never compiled out (not
// tied to NDEBUG). On failure they print the run's seed, the virtual time, the expression and both
// operands, then abort() so that the CLI and libFuzzer both see a crash.
//
// System-under-test misbehaviour is NOT an assertion: it is an invariant violation (sim/run).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "sim/core/time.h"

namespace wsim {

// What an assertion failure prints besides the expression. The event loop keeps `now_ms` current;
// the run layer sets `seed` and `scenario`. One run at a time per process (no threads), so a
// process-wide context is sufficient.
struct AssertContext {
  std::uint64_t seed = 0;
  TimeMs now_ms = 0;
  std::string scenario;  // Short description (system and versions), may be empty.
};

// Inline, so the per-event write of now_ms is a guarded load rather than a call (one context per
// process: an inline function's static is shared by every translation unit). Not `constinit`:
// clang with libstdc++ 12 cannot constant-initialize the std::string member.
inline AssertContext& assert_context() {
  static AssertContext context;
  return context;
}

// Prints the failure report to stderr and aborts. Never returns.
[[noreturn]] void assert_fail(const char* file, int line, const char* expression,
                              const std::string& detail);

namespace assert_detail {
template <typename A, typename B>
std::string operands(const A& a, const B& b) {
  std::ostringstream out;
  out << "left: " << a << ", right: " << b;
  return out.str();
}
}  // namespace assert_detail

}  // namespace wsim

#define WSIM_ASSERT(cond)                                            \
  do {                                                               \
    if (!(cond)) ::wsim::assert_fail(__FILE__, __LINE__, #cond, ""); \
  } while (0)

#define WSIM_ASSERT_MSG(cond, msg)                                            \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::ostringstream wsim_assert_out_;                                    \
      wsim_assert_out_ << msg;                                                \
      ::wsim::assert_fail(__FILE__, __LINE__, #cond, wsim_assert_out_.str()); \
    }                                                                         \
  } while (0)

#define WSIM_ASSERT_OP_(a, b, op)                                             \
  do {                                                                        \
    const auto& wsim_a_ = (a);                                                \
    const auto& wsim_b_ = (b);                                                \
    if (!(wsim_a_ op wsim_b_))                                                \
      ::wsim::assert_fail(__FILE__, __LINE__, #a " " #op " " #b,              \
                          ::wsim::assert_detail::operands(wsim_a_, wsim_b_)); \
  } while (0)

#define WSIM_ASSERT_EQ(a, b) WSIM_ASSERT_OP_(a, b, ==)
#define WSIM_ASSERT_NE(a, b) WSIM_ASSERT_OP_(a, b, !=)
#define WSIM_ASSERT_LT(a, b) WSIM_ASSERT_OP_(a, b, <)
#define WSIM_ASSERT_LE(a, b) WSIM_ASSERT_OP_(a, b, <=)
#define WSIM_ASSERT_GT(a, b) WSIM_ASSERT_OP_(a, b, >)
#define WSIM_ASSERT_GE(a, b) WSIM_ASSERT_OP_(a, b, >=)
