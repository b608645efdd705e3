// Logging (log.h): an spdlog logger whose sink stamps every line with virtual time, never wall
// time; off unless `wsim --log-level` turns it on.
#include "sim/core/log.h"

#include <spdlog/details/null_mutex.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "sim/core/assert.h"

namespace wsim {

namespace {

// "[t=90.061s] [debug] text": the virtual time of the event being run, then the level and the
// message; spdlog's own (wall-clock) timestamp is ignored.
class VirtualTimeSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  void set_stream(std::ostream& out) { out_ = &out; }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const TimeMs now_ms = assert_context().now_ms;
    WSIM_ASSERT_GE(now_ms, 0);
    WSIM_ASSERT(out_ != nullptr);  // set_stream() takes a reference; the default is std::cerr.
    char stamp[48];
    std::snprintf(stamp, sizeof stamp, "[t=%lld.%03llds] [", static_cast<long long>(now_ms / 1000),
                  static_cast<long long>(now_ms % 1000));
    const auto level = spdlog::level::to_string_view(msg.level);
    *out_ << stamp << std::string_view(level.data(), level.size()) << "] "
          << std::string_view(msg.payload.data(), msg.payload.size()) << '\n';
  }
  void flush_() override { out_->flush(); }

 private:
  std::ostream* out_ = &std::cerr;
};

struct Log {
  std::shared_ptr<VirtualTimeSink> sink = std::make_shared<VirtualTimeSink>();
  spdlog::logger logger{"wsim", sink};
  Log() { logger.set_level(spdlog::level::off); }
};

Log& log_state() {
  static Log log;
  return log;
}

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  WSIM_ASSERT_MSG(false, "unknown log level " << static_cast<int>(level));
  return spdlog::level::off;
}

}  // namespace

bool log_enabled(LogLevel level) { return log_state().logger.should_log(to_spdlog(level)); }

void log_line(LogLevel level, std::string_view text) {
  WSIM_ASSERT_NE(static_cast<int>(level), static_cast<int>(LogLevel::kOff));
  WSIM_ASSERT(log_enabled(level));  // Paired with WSIM_LOG_AT_: a line is built only when on.
  log_state().logger.log(to_spdlog(level), text);
}

bool set_log_level(std::string_view level) {
  static constexpr std::pair<std::string_view, LogLevel> kLevels[] = {
      {"off", LogLevel::kOff},   {"error", LogLevel::kError}, {"warn", LogLevel::kWarn},
      {"info", LogLevel::kInfo}, {"debug", LogLevel::kDebug}, {"trace", LogLevel::kTrace},
  };
  for (const auto& [name, value] : kLevels) {
    if (name != level) continue;
    log_state().logger.set_level(to_spdlog(value));
    WSIM_ASSERT_EQ(log_state().logger.level(), to_spdlog(value));
    return true;
  }
  return false;
}

void set_log_stream(std::ostream& out) { log_state().sink->set_stream(out); }

}  // namespace wsim
