// The reflector's exponential backoff manager (backoff_manager.h).
#include "sim/kube/backoff_manager.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace wsim::kube {

BackoffManager::BackoffManager(BackoffManagerOptions options, TimeMs created_ms)
    : options_(options), duration_ms_(options.initial_ms), last_start_ms_(created_ms) {
  WSIM_ASSERT_GT(options_.initial_ms, 0);
  WSIM_ASSERT_GE(options_.cap_ms, options_.initial_ms);
  WSIM_ASSERT_GE(options_.factor, 1.0);
  WSIM_ASSERT_GE(options_.jitter, 0.0);
}

DurationMs BackoffManager::next(TimeMs now_ms, ChoiceStream& stream) {
  WSIM_ASSERT_GE(now_ms, last_start_ms_);
  // getNextBackoff: a quiet spell longer than the reset duration starts from the beginning.
  if (now_ms - last_start_ms_ > options_.reset_ms) duration_ms_ = options_.initial_ms;
  last_start_ms_ = now_ms;
  // Backoff.Step: the current duration is used, the next one is multiplied and capped.
  const DurationMs base = duration_ms_;
  const auto grown = static_cast<DurationMs>(std::llround(base * options_.factor));
  duration_ms_ = std::min(grown, options_.cap_ms);
  const auto max_jitter = static_cast<DurationMs>(std::floor(options_.jitter * base));
  const DurationMs jitter = max_jitter > 0 ? stream.range(0, max_jitter) : 0;
  WSIM_ASSERT_LE(jitter, max_jitter);
  WSIM_ASSERT_GT(base + jitter, 0);
  return base + jitter;
}

}  // namespace wsim::kube
