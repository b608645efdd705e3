// The findings tally of a hunt (hunt.h): what the workers' run lines add up to.
//
// One Finding per (verdict, invariant, label) with its smallest failing seed and its count of
// failing runs (sorted by finding_order at the end); the runs and failing runs of the hunt; probe
// hits summed over every run, every declared probe listed. It also decides when the hunt should
// stop: at the first failure (or first NEW one when going past known bugs; or only at
// `until_invariant`), never with keep_going. Single-threaded: the hunt's parent process feeds it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/core/probe.h"
#include "sim/search/hunt.h"
#include "sim/search/hunt_worker.h"

namespace wsim::run {

class HuntTally {
 public:
  // REQUIRES: options.system set; `result` outlives the tally. Lists every probe the system
  // declares (with zero hits) from a throwaway instance of the scenario.
  HuntTally(const HuntOptions& options, HuntResult& result);

  // One finished run (shard-local index `local`) with its findings (a passing finding is
  // ignored); `swarm_seed` when the run's swarm came from another seed (guided hunts). Returns
  // true when the hunt should stop.
  bool record_run(std::uint64_t local, std::uint64_t seed, std::optional<std::uint64_t> swarm_seed,
                  const std::vector<RunFinding>& findings);
  // A worker died running `seed` (a harness bug). Returns true when the hunt should stop.
  bool record_crash(std::uint64_t local, std::uint64_t seed, const std::string& message);
  // Hits of one probe from one worker.
  void add_probe_hits(const std::string& name, std::uint64_t hits);
  // Sorts the findings by seed, sets complete_below and moves the probe table into the result
  // (name order). Call once, at the end.
  void finish();

 private:
  void mark_done(std::uint64_t local);
  void note_amplifiers(Finding& found, std::uint64_t seed,
                       std::optional<std::uint64_t> swarm_seed) const;
  bool record_failure(std::uint64_t seed, std::optional<std::uint64_t> swarm_seed, Verdict verdict,
                      const std::string& kind, const std::string& label,
                      const std::string& message);

  const HuntOptions& options_;
  HuntResult& result_;
  std::map<std::string, Probe> probes_;
  std::map<std::tuple<int, std::string, std::string>, std::size_t> finding_by_kind_;
  // Local indices run so far: all below done_below_, and those in done_ahead_.
  std::uint64_t done_below_ = 0;
  std::set<std::uint64_t> done_ahead_;
};

}  // namespace wsim::run
