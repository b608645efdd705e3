// retry.RetryOnConflict (retry.h).
#include "sim/kube/retry.h"

#include <cmath>

#include "sim/core/assert.h"

namespace wsim::kube {

// client-go retry.DefaultRetry and retry.DefaultBackoff (util/retry/util.go).
Backoff default_retry() {
  const Backoff backoff(5, 10, 1.0, 0.1);
  WSIM_ASSERT_GT(backoff.steps, 0);
  return backoff;
}

Backoff default_backoff() {
  const Backoff backoff(4, 10, 5.0, 0.1);
  WSIM_ASSERT_GT(backoff.steps, 0);
  return backoff;
}

DurationMs backoff_step(Backoff& backoff, ChoiceStream& stream) {
  WSIM_ASSERT_GE(backoff.duration_ms, 0);
  WSIM_ASSERT_GE(backoff.jitter, 0.0);
  WSIM_ASSERT_GE(backoff.cap_ms, 0);
  const DurationMs base = backoff.duration_ms;
  if (backoff.steps > 0) {
    --backoff.steps;
    backoff.duration_ms = static_cast<DurationMs>(std::llround(base * backoff.factor));
    if (backoff.cap_ms > 0 && backoff.duration_ms > backoff.cap_ms) {
      backoff.duration_ms = backoff.cap_ms;
      backoff.steps = 0;
    }
  }
  const auto max_jitter = static_cast<DurationMs>(std::floor(backoff.jitter * base));
  const DurationMs jitter = max_jitter > 0 ? stream.range(0, max_jitter) : 0;
  WSIM_ASSERT_LE(jitter, max_jitter);
  return base + jitter;
}

Task<Status> retry_on_conflict(Sim& sim, ChoiceStream& stream, Backoff backoff,
                               std::function<Task<Status>()> attempt) {
  WSIM_ASSERT(attempt != nullptr);
  // Named, not a temporary inside the co_await expression (g++ 12, sim/kube/README.md).
  const std::function<bool(const Status&)> conflict = [](const Status& s) {
    return s.is(Code::kConflict);
  };
  co_return co_await retry_on_error(sim, stream, backoff, conflict, std::move(attempt));
}

Task<Status> retry_on_error(Sim& sim, ChoiceStream& stream, Backoff backoff,
                            std::function<bool(const Status&)> retriable,
                            std::function<Task<Status>()> attempt) {
  WSIM_ASSERT_GT(backoff.steps, 0);
  WSIM_ASSERT(retriable != nullptr && attempt != nullptr);
  WSIM_ASSERT(!retriable(Status::Ok()));
  Status last;
  while (true) {
    last = co_await attempt();
    if (!retriable(last) || backoff.steps <= 1) break;
    const DurationMs sleep_ms = backoff_step(backoff, stream);
    co_await sim.loop().sleep(sleep_ms);
  }
  co_return last;
}

}  // namespace wsim::kube
