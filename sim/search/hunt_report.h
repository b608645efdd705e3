// The text report of a hunt (`wsim hunt`, `wsim merge`): the findings table, the rate, and the
// one-row-per-version-tuple summary table. Writes to the stream it is given; no state.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/search/hunt.h"
#include "sim/search/hunt_summary.h"

namespace wsim::run {

// "known: FILE#N", "NEW", or "-" (not compared with a corpus).
std::string finding_label(const Finding& finding);

// "realistic", "needs NAME, ..." (realism.h realism_short), or "-" when not checked (issue #30).
std::string finding_realism(const Finding& finding);

// "findings: none", or a table (verdict, invariant, runs, first seed, known, realism, bundle),
// the why of each `needs` and NEW realism, and the signature of each labelled finding.
// verbose = false (the main job, issue #31): NEW and unlabelled findings in full; the known ones
// folded into one line per bug id (`known` maps a label to its bug id, labelled_realism.h
// bug_id_of; null: each label is its own bug), without their signatures, the why of a `needs`
// said once per bug.
void print_findings(std::ostream& out, const HuntResult& result, bool verbose = true,
                    const std::vector<KnownBug>* known = nullptr);

// Runs per second of the hunt, "-" without a clock.
std::string hunt_rate(const HuntResult& result);

// "summary:" and one row per target: system, versions, runs, runs/s and what was found.
void print_hunt_table(std::ostream& out, const std::vector<HuntTarget>& rows);

}  // namespace wsim::run
