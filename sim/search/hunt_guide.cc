// The swarm guide (hunt_guide.h): swarm seeds whose runs reached rare probes, picked again for
// half of the later runs.
#include "sim/search/hunt_guide.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/core/prng.h"

namespace wsim::run {

std::optional<std::uint64_t> SwarmGuide::pick(std::uint64_t run_index) const {
  if (pool_.empty()) return std::nullopt;
  Xoshiro256 draw = Xoshiro256(run_index).fork("swarm-guide");
  if (draw.below(2) == 0) return std::nullopt;
  const std::uint64_t choice = draw.below(pool_.size());
  WSIM_ASSERT_LT(choice, pool_.size());
  return pool_[choice];
}

void SwarmGuide::observe(std::uint64_t swarm_seed, const std::vector<Probe>& run_probes) {
  bool rare = false;
  for (const Probe& probe : run_probes) {
    if (probe.hits == 0) continue;
    std::uint64_t& reached = runs_reaching_[probe.name];
    if (reached * kRareShare < runs_ + 1) rare = true;
    ++reached;
    WSIM_ASSERT_LE(reached, runs_ + 1);
  }
  ++runs_;
  if (!rare || std::find(pool_.begin(), pool_.end(), swarm_seed) != pool_.end()) return;
  if (pool_.size() == kPoolMax) pool_.erase(pool_.begin());
  pool_.push_back(swarm_seed);
  WSIM_ASSERT_LE(pool_.size(), kPoolMax);
}

}  // namespace wsim::run
