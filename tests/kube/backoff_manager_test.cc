// The reflector's backoff manager (sim/kube/backoff_manager.h): apimachinery's
// exponentialBackoffManagerImpl as client-go's reflector configures it.
#include "sim/kube/backoff_manager.h"

#include <gtest/gtest.h>

#include "sim/core/sim.h"

namespace wsim::kube {
namespace {

// Choice 0 everywhere = no jitter: the bare durations double from 800 ms up to the 30 s cap.
TEST(BackoffManager, DoublesFromEightHundredMillisecondsUpToTheCap) {
  Sim sim(ChoiceSource::from_tape({}));
  ChoiceStream stream = sim.stream("test");
  BackoffManager backoff(BackoffManagerOptions{}, 0);
  const DurationMs expected[] = {800, 1600, 3200, 6400, 12800, 25600, 30000, 30000};
  TimeMs now = 0;
  for (DurationMs want : expected) {
    EXPECT_EQ(backoff.next(now, stream), want);
    now += 1;  // Calls close together: no reset.
  }
}

TEST(BackoffManager, TwoQuietMinutesStartAgainFromTheInitialDuration) {
  Sim sim(ChoiceSource::from_tape({}));
  ChoiceStream stream = sim.stream("test");
  BackoffManager backoff(BackoffManagerOptions{}, 0);
  EXPECT_EQ(backoff.next(0, stream), 800);
  EXPECT_EQ(backoff.next(2 * kMinuteMs, stream), 1600) << "exactly 2 min later: not a reset";
  EXPECT_EQ(backoff.next(4 * kMinuteMs + 1, stream), 800) << "more than 2 min: reset";
  EXPECT_EQ(backoff.next(4 * kMinuteMs + 2, stream), 1600);
}

// Jitter 1.0: each wait lies in [duration, 2 × duration], and the draws do vary.
TEST(BackoffManager, JitterStaysWithinOneDuration) {
  Sim sim(ChoiceSource::from_seed(11));
  ChoiceStream stream = sim.stream("test");
  DurationMs lowest = 1 << 30;
  DurationMs highest = 0;
  for (int i = 0; i < 200; ++i) {
    BackoffManager backoff(BackoffManagerOptions{}, 0);
    const DurationMs first = backoff.next(0, stream);
    EXPECT_GE(first, 800);
    EXPECT_LE(first, 1600);
    const DurationMs second = backoff.next(1, stream);
    EXPECT_GE(second, 1600);
    EXPECT_LE(second, 3200);
    lowest = std::min(lowest, first);
    highest = std::max(highest, first);
  }
  EXPECT_LT(lowest, 1000);
  EXPECT_GT(highest, 1400);
}

}  // namespace
}  // namespace wsim::kube
