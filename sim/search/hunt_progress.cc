// The hunt's progress line (hunt_progress.h): runs, rate, failures and time, rewritten in place
// on a terminal, every few seconds otherwise.
#include "sim/search/hunt_progress.h"

#include <cstdio>
#include <sstream>

#include "sim/core/assert.h"
#include "sim/run/duration.h"

namespace wsim::run {

namespace {

std::string rate_text(double runs, double seconds) {
  if (seconds <= 0) return "-";
  char buffer[32];
  const int written = std::snprintf(buffer, sizeof buffer, "%.0f", runs / seconds);
  WSIM_ASSERT_GT(written, 0);
  WSIM_ASSERT_LT(written, static_cast<int>(sizeof buffer));
  return buffer;
}

}  // namespace

HuntProgress::HuntProgress(const HuntOptions& options, double started_seconds)
    : options_(options), started_seconds_(started_seconds), last_seconds_(started_seconds) {
  WSIM_ASSERT(options.system != nullptr);
}

void HuntProgress::print(const HuntResult& result, double now, bool final_line) {
  if (options_.progress == nullptr) return;
  if (!final_line && !options_.progress_tty && now - last_seconds_ < 5.0) return;
  if (!final_line && options_.progress_tty && now - last_seconds_ < 0.25) return;
  last_seconds_ = now;
  const double seconds = now - started_seconds_;
  std::ostringstream line;
  line << "hunt " << options_.system->name() << ": " << result.runs << " runs, "
       << rate_text(static_cast<double>(result.runs), seconds) << " runs/s, " << result.failures
       << (result.failures == 1 ? " failure" : " failures") << ", "
       << format_duration_ms(static_cast<DurationMs>(seconds * 1000));
  if (options_.progress_tty) {
    *options_.progress << "\r" << line.str() << "\x1b[K" << (final_line ? "\n" : "");
  } else {
    *options_.progress << line.str() << "\n";
  }
  options_.progress->flush();
}

}  // namespace wsim::run
