// The reflector's backoff: apimachinery's exponential BackoffManager on virtual time.
//
// Upstream: kubernetes/apimachinery pkg/util/wait/backoff.go (NewExponentialBackoffManager,
// exponentialBackoffManagerImpl.getNextBackoff, Backoff.Step with Cap, Jitter) as client-go
// tools/cache/reflector.go (NewReflectorWithOptions) configures it for every reflector at
// v0.32.0: initial 800 ms, factor 2, cap 30 s, jitter 1.0, reset after 2 min without a backoff.
// Semantics: each next() is one Backoff.Step (retry.h backoff_step: the current duration plus a
// jitter in [0, jitter × duration], whole ms drawn from the choice stream, choice 0 = none; then
// the duration doubles up to the cap); a call more than `reset_ms` after the previous one (or
// after construction) starts again from the initial duration. So a reflector's first waits are
// 0.8–1.6 s, 1.6–3.2 s, ..., and 30–60 s once capped. docs/fidelity.md K9.
#pragma once

#include "sim/core/choice.h"
#include "sim/core/time.h"
#include "sim/kube/retry.h"

namespace wsim::kube {

struct BackoffManagerOptions {
  DurationMs initial_ms = 800;
  DurationMs cap_ms = 30 * kSecondMs;
  DurationMs reset_ms = 2 * kMinuteMs;
  double factor = 2.0;
  double jitter = 1.0;
};

class BackoffManager {
 public:
  // `created_ms`: the virtual time of construction (upstream's lastBackoffStart starts there).
  BackoffManager(BackoffManagerOptions options, TimeMs created_ms);

  // The wait before the next attempt, at virtual time `now_ms`. REQUIRES: now_ms never decreases.
  DurationMs next(TimeMs now_ms, ChoiceStream& stream);

 private:
  Backoff fresh() const;

  BackoffManagerOptions options_;
  Backoff backoff_;
  TimeMs last_start_ms_;
};

}  // namespace wsim::kube
