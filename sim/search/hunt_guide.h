// Probe-guided swarm (issue #12 item 3) [invented]: a hunt worker weights its runs' swarm draws
// toward the configurations that reached probes its other runs rarely reach.
//
// A run's swarm configuration — which fault points are enabled (the "swarm" stream), incidents,
// the scheduler, the systems' own dimensions ("gitlab.swarm") — is drawn from its swarm seed
// (ChoiceSource::is_swarm_stream; proto::Scenario.swarm_seed), which is the run's seed unless
// the scenario pins another. The guide keeps a pool of swarm seeds whose runs reached a rare
// probe (one that fewer than 1 in kRareShare of this worker's runs reached before, or never);
// for every second run it picks one of them, so the run has a fresh seed (new timings, new
// workload) in a configuration that has shown it can reach rare situations. The other runs
// explore from their own seeds, as an unguided hunt does.
//
// Every decision is a pure function of the run index and what the worker saw before, so a worker
// is deterministic; a finding's bundle and its repro command carry the swarm seed
// (`--set swarm_seed=M`), so every run of a guided hunt replays exactly.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/probe.h"

namespace wsim::run {

class SwarmGuide {
 public:
  // A probe is rare when fewer than 1 in kRareShare runs reached it so far.
  static constexpr std::uint64_t kRareShare = 50;
  // Pool bound (STYLE.md §7): the oldest entry gives way.
  static constexpr std::size_t kPoolMax = 64;

  // The swarm seed for the run with this index: nullopt = its own seed (exploration).
  std::optional<std::uint64_t> pick(std::uint64_t run_index) const;
  // Learns from one finished run: its swarm seed and its probe hits.
  void observe(std::uint64_t swarm_seed, const std::vector<Probe>& run_probes);

  std::size_t pool_size() const { return pool_.size(); }
  std::uint64_t runs_observed() const { return runs_; }

 private:
  std::map<std::string, std::uint64_t> runs_reaching_;  // Probe name → runs that reached it.
  std::vector<std::uint64_t> pool_;                     // Swarm seeds, oldest first.
  std::uint64_t runs_ = 0;
};

}  // namespace wsim::run
