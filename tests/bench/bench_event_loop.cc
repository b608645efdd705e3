// Event-loop throughput: simulated events per second per core (docs/architecture.md §9 target: ≥
// 1,000,000). The standard load: actors that each sleep a delay drawn from a choice stream and then
// do a little work, plus plain callbacks — the mix a run of the fake API produces.
#include <benchmark/benchmark.h>

#include "sim/core/sim.h"
#include "sim/core/sync.h"

namespace wsim {
namespace {

Task<void> sleeper(EventLoop& loop, ChoiceStream stream, int steps, std::uint64_t& work) {
  for (int i = 0; i < steps; ++i) {
    co_await loop.sleep(stream.range(1, 100));
    work += static_cast<std::uint64_t>(i);
  }
}

Task<int> nested(EventLoop& loop, ChoiceStream stream) {
  co_await loop.sleep(stream.range(1, 50));
  co_return 1;
}

Task<void> caller(EventLoop& loop, ChoiceStream stream, int steps, std::uint64_t& work) {
  for (int i = 0; i < steps; ++i) work += static_cast<std::uint64_t>(co_await nested(loop, stream));
}

void BM_EventLoopActors(benchmark::State& state) {
  const int actors = static_cast<int>(state.range(0));
  constexpr int kSteps = 1000;
  std::uint64_t events = 0;
  std::uint64_t work = 0;
  for (auto _ : state) {
    Sim sim(ChoiceSource::from_seed(1));
    ChoiceStream stream = sim.stream("bench");
    for (int a = 0; a < actors; ++a) {
      if (a % 2 == 0) {
        sim.loop().spawn("sleeper", sleeper(sim.loop(), stream, kSteps, work));
      } else {
        sim.loop().spawn("caller", caller(sim.loop(), stream, kSteps, work));
      }
    }
    sim.loop().run_until_idle(INT64_MAX);
    events += sim.loop().events_processed();
  }
  benchmark::DoNotOptimize(work);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventLoopActors)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_EventLoopCallbacks(benchmark::State& state) {
  std::uint64_t events = 0;
  for (auto _ : state) {
    Sim sim(ChoiceSource::from_seed(2));
    ChoiceStream stream = sim.stream("bench");
    int remaining = 100000;
    std::function<void()> tick = [&] {
      if (--remaining > 0) sim.loop().schedule(stream.range(0, 10), tick);
    };
    for (int i = 0; i < 10; ++i) sim.loop().schedule(0, tick);
    sim.loop().run_until_idle(INT64_MAX);
    events += sim.loop().events_processed();
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventLoopCallbacks)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wsim
