// The reflector's exponential backoff manager (backoff_manager.h).
#include "sim/kube/backoff_manager.h"

#include <cstdint>
#include <limits>

#include "sim/core/assert.h"

namespace wsim::kube {

BackoffManager::BackoffManager(BackoffManagerOptions options, TimeMs created_ms)
    : options_(options), backoff_(fresh()), last_start_ms_(created_ms) {
  WSIM_ASSERT_GT(options_.initial_ms, 0);
  WSIM_ASSERT_GE(options_.cap_ms, options_.initial_ms);
  WSIM_ASSERT_GE(options_.factor, 1.0);
  WSIM_ASSERT_GE(options_.jitter, 0.0);
}

// Upstream's Backoff: Steps math.MaxInt32 ("assume we will never use up the steps").
Backoff BackoffManager::fresh() const {
  Backoff backoff(std::numeric_limits<std::int32_t>::max(), options_.initial_ms, options_.factor,
                  options_.jitter);
  backoff.cap_ms = options_.cap_ms;
  WSIM_ASSERT_EQ(backoff.duration_ms, options_.initial_ms);  // A fresh backoff starts over.
  return backoff;
}

DurationMs BackoffManager::next(TimeMs now_ms, ChoiceStream& stream) {
  WSIM_ASSERT_GE(now_ms, last_start_ms_);
  // getNextBackoff: a quiet spell longer than the reset duration starts from the beginning.
  if (now_ms - last_start_ms_ > options_.reset_ms) backoff_ = fresh();
  last_start_ms_ = now_ms;
  const DurationMs wait_ms = backoff_step(backoff_, stream);
  WSIM_ASSERT_GT(wait_ms, 0);
  return wait_ms;
}

}  // namespace wsim::kube
