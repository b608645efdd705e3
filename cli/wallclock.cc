// The hunt's wall clock (wallclock.h): a steady clock behind run::HuntClock's callbacks, the only
// one wsim has; it lives in cli/ so nothing under sim/ or model/ can read it.
#include "cli/wallclock.h"

#include <chrono>
#include <memory>

namespace wsim::cli {

run::HuntClock make_hunt_clock(std::optional<DurationMs> budget_ms) {
  using Clock = std::chrono::steady_clock;
  const auto start = std::make_shared<const Clock::time_point>(Clock::now());
  run::HuntClock clock;
  clock.elapsed_seconds = [start] {
    return std::chrono::duration<double>(Clock::now() - *start).count();
  };
  if (budget_ms) {
    const auto deadline = *start + std::chrono::milliseconds(*budget_ms);
    clock.deadline_reached = [deadline] { return Clock::now() >= deadline; };
  }
  return clock;
}

}  // namespace wsim::cli
