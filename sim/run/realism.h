// The realism verdict of a finding (issue #30 item 3; docs/fidelity.md "Amplifiers"): can the
// failure happen with every amplifier (system.h Amplifier) at its production value?
//
//   no amplifier amplified in the failing run          → realistic (nothing to check);
//   the same seed, every amplifier at production, fails the same way → realistic;
//   when the caller can tell bugs apart (a `same_bug` predicate: the same known label), one of
//   the kRealismSearchSeeds seeds after it, every amplifier at production, fails with the same
//   bug → realistic (a bounded hunt of the bug at production values);
//   otherwise each amplified amplifier is put back to production alone (at most
//   kRealismSingleChecksMax of them; with `same_bug`, its own seed and the
//   kRealismAttributionSeeds after it): those without which the failure goes are the ones it
//   needs; when none does alone, it needs them all together → needs NAME... (why). A run that
//   amplified one amplifier needs it (putting it back alone is the all-production run).
//
// "The same way" is the caller's predicate (Reproduces): the same verdict and invariant (and, in
// a hunt going past known bugs, the same label). A changed amplifier changes what a seed's later
// choices mean, so `needs` says "this seed does not fail without it", and the amplifier's own
// `why` says how rare or impossible its schedule is in production. The search over other seeds
// exists because a changed amplifier changes what a seed's later choices mean: a bug that needs
// no amplifier can pass at its own seed and fail at the next (seed 47 of the GitLab corpus file
// overlapping-apply-stale-inventory-after-stop passes at production, seed 63 fails). Without a
// label a run of another seed may fail with a different bug of the same invariant, so there is no
// search. Cost: at most 1 + kRealismSearchSeeds + kRealismSingleChecksMax × (1 +
// kRealismAttributionSeeds) runs, and only for failing runs of amplified scenarios.
// Single-threaded; no global state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/proto/scenario.pb.h"
#include "sim/run/system.h"

namespace wsim::run {

inline constexpr std::size_t kRealismSingleChecksMax = 4;
// Enough to meet a bug that fails 1 run in 20 at production values with probability 0.96; the
// search runs only for failures of amplified runs whose own seed passes at production.
inline constexpr std::uint64_t kRealismSearchSeeds = 64;
// Per amplifier put back alone: the GitLab tie bugs need the 1 s clock and not the 2 s gap, but
// their own seed with only the gap put back often passes (the seed's later choices moved).
inline constexpr std::uint64_t kRealismAttributionSeeds = 16;

struct Realism {
  bool realistic = true;
  std::vector<std::string> amplifiers;  // Needed (Amplifier::name); empty when realistic.
  std::string why;                      // One sentence; the amplifiers' `why` when needed.
};

// "realistic" or "needs" (verdict.json's realism.label).
std::string realism_label(const Realism& realism);
// "realistic" or "needs gitlab.rails_clock_granularity_ms" (tables).
std::string realism_short(const Realism& realism);
// realism_short and, when needed, " (why)" (explain, logs).
std::string realism_text(const Realism& realism);

// Whether a run of this scenario (its seed, swarm_seed) fails the way the finding did.
using Reproduces = std::function<bool(const proto::Scenario&)>;

// The verdict of a failing run of `scenario` (validated, normalized) by the procedure above.
// `reproduces` judges runs of the finding's own seed; `same_bug`, when set, runs of other seeds
// (it must name the bug, e.g. compare known labels; empty: no search).
Realism check_realism(const proto::Scenario& scenario, const System& system,
                      const Reproduces& reproduces, const Reproduces& same_bug = {});

// A `needs` verdict narrowed by evidence from other runs: `failed_without` maps an amplifier to a
// seed whose run failed with the same bug while that amplifier was at its production value (a
// hunt's other failing runs of a row labelled with one known bug). Those amplifiers are not
// needed and are dropped, each with its seed in the why. The re-runs of check_realism look at
// kRealismAttributionSeeds seeds per amplifier, too few for a rare bug (GitLab's
// tie-after-full-sync fails 4 runs in 1,500 with the 1 s clock and the 20 ms gap, and was
// labelled "needs clock, gap"). When the evidence would drop every needed amplifier the verdict is
// kept (no one run failed without all of them: the bug needs one of them). Realistic verdicts
// are returned as they are.
Realism narrowed_realism(const Realism& checked, const System& system,
                         const std::map<std::string, std::uint64_t>& failed_without);

// Realistic, why "seen at production values (seed N)": a failure of a run that amplified nothing.
Realism realistic_at_production(std::uint64_t seed);

// The start of unchecked_realism's `why`: a reader of a recorded verdict (verdict.json) that finds
// it checks the realism itself.
inline constexpr char kUncheckedRealism[] = "not re-checked at production values; ";
bool is_unchecked(const Realism& realism);

// Without re-runs: realistic when `scenario` amplifies nothing, else needs every amplifier it
// amplifies ("not re-checked at production values"). For verdict.json of a run nobody checked.
Realism unchecked_realism(const proto::Scenario& scenario, const System& system);

}  // namespace wsim::run
