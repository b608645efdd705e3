// The realism verdict (sim/run/realism.h) of a failing run checked with the corpus's labels
// (issue #30 item 3): a re-run "fails the same way" when it violates the same invariant with the
// same verdict and, when the failing run was labelled against the corpus, carries the same label
// (the same known bug, or NEW with no known bug matching). A run labelled with a known bug also
// lets the check search other seeds at production values (check_realism's `same_bug`), so a bug
// that needs no amplifier is called realistic even when its own seed passes at production; and a
// bug whose corpus file reproduces it at production values (production_exemplar) is realistic
// without re-runs.
// Used by `wsim run` and `wsim explain`/`report` of an unrecorded bundle; the hunt has its own
// predicate over its workers' labels (sim/search/hunt_rerun.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/run/driver.h"
#include "sim/run/realism.h"
#include "sim/run/system.h"

namespace wsim::run {

// The known bugs of `system` in `corpus_dir` that may be present on the versions of `run`
// (applicable_known_bugs). A missing or empty `corpus_dir` gives none (true); false with an error
// naming the file when the corpus does not load.
bool applicable_corpus_bugs(const System& system, const proto::Scenario& run,
                            const std::string& corpus_dir, std::vector<KnownBug>& out,
                            std::string& error);

// The bug id (KnownBug::bug) of the known label `name` among `known`; `name` itself when no file
// gives one. Runs of other seeds count as "the same bug" by this id: the corpus pins one bug
// with several files (the R3 tie family, B15), and another seed may carry a sibling's label.
std::string bug_id_of(const std::vector<KnownBug>& known, const std::string& name);

// A known bug of `known` with bug id `bug_id` (bug_id_of) whose corpus file's own script
// (load_bug_script) fails with it with every amplifier at its production value: "FILE#N", or
// empty when none does. That script's run is what the corpus tests check, so the bug can happen
// at production values whatever the seed of a finding needed (B15: a breaker hunt's seed 5 is
// not seen again at production in 64 seeds; the file S9-failed-start-then-restart-scripted
// reproduces it with four production events).
std::string production_exemplar(const System& system, const std::vector<KnownBug>& known,
                                const std::string& bug_id);

// Realistic, why "the corpus file FILE#N fails with this bug at production values".
Realism realistic_by_exemplar(const std::string& exemplar);

// The realism of `failing`, a failing run of `scenario` labelled (or not) against `known` (the
// applicable known bugs, label_with_corpus's `applicable`; empty: no labels). Re-runs are quiet;
// with labels, one that violates the same invariant runs again with the trace to be labelled.
// REQUIRES: failing has a violation.
Realism labelled_realism(const System& system, const proto::Scenario& scenario,
                         const RunResult& failing, const std::vector<KnownBug>& known,
                         std::uint64_t events_max);

}  // namespace wsim::run
