// The virtual-time log (STYLE.md §8: "logs go through spdlog with virtual time on every line,
// never wall time"). One spdlog logger per process (log.cc) whose only sink writes
//   [t=90.061s] [debug] kubelet/node-0: Pod/ws-0/ws-0 Pending -> Running
// stamped with the run's virtual time (assert_context().now_ms, which the event loop keeps
// current), never the wall clock spdlog records. Off by default; `wsim --log-level debug` turns
// it on (lines go to stderr). The macros take a stream expression, like WSIM_ASSERT_MSG, so this
// header needs no third-party include.
//
// Threading: single-threaded, like the runs (the sink has no mutex). Process-wide like the
// assertion context, and for the same reason: one run at a time, and only diagnostics depend on
// it. Invariants: logging never draws a choice, records a trace event or changes a hash — a run
// has the same trace hash with the log on or off (tests/run/determinism_test.cc). Logging is
// cheap when off: WSIM_LOG_* test the level before formatting anything.
#pragma once

#include <ostream>
#include <sstream>
#include <string_view>

namespace wsim {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };

// True when a line of `level` is written at the current level.
bool log_enabled(LogLevel level);

// Writes one line (the virtual time and the level are prepended). Use the macros.
void log_line(LogLevel level, std::string_view text);

// Sets the level by name: "off" (the default), "error", "warn", "info", "debug" or "trace".
// Returns false (level unchanged) for another name.
[[nodiscard]] bool set_log_level(std::string_view level);

// Where log lines go: std::cerr by default. REQUIRES: `out` outlives its use (tests).
void set_log_stream(std::ostream& out);

}  // namespace wsim

#define WSIM_LOG_AT_(level, stream_expression)      \
  do {                                              \
    if (::wsim::log_enabled(level)) {               \
      std::ostringstream wsim_log_out_;             \
      wsim_log_out_ << stream_expression;           \
      ::wsim::log_line(level, wsim_log_out_.str()); \
    }                                               \
  } while (0)
#define WSIM_LOG_DEBUG(stream_expression) WSIM_LOG_AT_(::wsim::LogLevel::kDebug, stream_expression)
#define WSIM_LOG_INFO(stream_expression) WSIM_LOG_AT_(::wsim::LogLevel::kInfo, stream_expression)
#define WSIM_LOG_WARN(stream_expression) WSIM_LOG_AT_(::wsim::LogLevel::kWarn, stream_expression)
