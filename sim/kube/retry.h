// client-go's retry.RetryOnConflict over wait.Backoff, on virtual time.
//
// Upstream: kubernetes/client-go util/retry/util.go (DefaultRetry, DefaultBackoff,
// OnError/RetryOnConflict) and apimachinery pkg/util/wait/backoff.go (ExponentialBackoff,
// Backoff.Step, Jitter) at v0.31.9 (the version of ws-manager-mk2 and ws-daemon).
// Semantics: `fn` runs up to `steps` times; after a Conflict that is not the last attempt the
// caller sleeps the current duration plus a jitter in [0, jitter × duration] (drawn from the
// choice stream: choice 0 = no jitter), then the duration is multiplied by `factor`. The result
// is the last attempt's status: Conflict when every attempt conflicted (wait.ErrWaitTimeout is
// mapped back to the last error upstream). docs/fidelity.md K8.
#pragma once

#include <functional>

#include "sim/core/sim.h"
#include "sim/core/task.h"
#include "sim/kube/status.h"

namespace wsim::kube {

struct Backoff {
  Backoff() = default;  // Not an aggregate: it is passed as a temporary across co_await.
  Backoff(int steps_, DurationMs duration_ms_, double factor_, double jitter_)
      : steps(steps_), duration_ms(duration_ms_), factor(factor_), jitter(jitter_) {
    WSIM_ASSERT_GE(steps, 0);
    WSIM_ASSERT_GE(duration_ms, 0);
    WSIM_ASSERT_GE(jitter, 0.0);
  }
  int steps = 1;
  DurationMs duration_ms = 0;
  double factor = 1.0;
  double jitter = 0.0;
  DurationMs cap_ms = 0;  // Backoff.Cap: 0 = none.
};

// retry.DefaultRetry: 5 steps, 10 ms, factor 1, jitter 0.1.
Backoff default_retry();
// retry.DefaultBackoff: 4 steps, 10 ms, factor 5, jitter 0.1.
Backoff default_backoff();

// The sleep before the next attempt and the duration after it (Backoff.Step). A duration that
// grows past cap_ms becomes cap_ms and ends the steps; with no steps left the current duration is
// returned again (jittered) and nothing changes, as upstream.
DurationMs backoff_step(Backoff& backoff, ChoiceStream& stream);

// retry.RetryOnConflict: runs `attempt` until it returns a status other than Conflict or the
// steps run out. `attempt` is called anew for every step (it must re-read the object).
Task<Status> retry_on_conflict(Sim& sim, ChoiceStream& stream, Backoff backoff,
                               std::function<Task<Status>()> attempt);

// retry.OnError: the same loop, retrying every status `retriable` accepts (RetryOnConflict is
// OnError with "is Conflict"). REQUIRES: `retriable` rejects Ok.
Task<Status> retry_on_error(Sim& sim, ChoiceStream& stream, Backoff backoff,
                            std::function<bool(const Status&)> retriable,
                            std::function<Task<Status>()> attempt);

}  // namespace wsim::kube
