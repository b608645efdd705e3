// `wsim merge SUMMARY...`: the shard summaries of one sharded hunt (hunt.h, hunt_summary.h)
// combined into the summary the unsharded hunt would have given.
//
// The parts must be the N shards 0..N-1 of one hunt: the same shard count, each index once, the
// same seed start and budgets, the same version tuples in the same order; anything else is an
// error naming the file and the field. Per version tuple: runs and failing runs add up; the
// findings are deduplicated as one hunt deduplicates them, by (verdict, invariant, label) where
// the label — in a hunt that goes past known bugs — is the known bug whose signature the finding
// carries or NEW (a hunt that only labels keys by verdict and invariant), keeping the smallest
// seed's finding (its signature, object, message, bundle), adding the counts and listing every
// distinct signature met; probe hits add up by name; complete_below is the smallest of the
// shards' (every run index below it was run by some shard); seconds is the longest shard's.
// With --runs and without a stop, the merge of the N shards equals the unsharded hunt (test:
// tests/run/hunt_shard_test.cc) except for bundle paths and seconds.
#pragma once

#include <string>
#include <vector>

#include "sim/search/hunt_summary.h"

namespace wsim::run {

// Merges `parts` (read from `files`, named in errors; same size) into `merged`. False with an
// error when they are not the shards of one hunt.
bool merge_summaries(const std::vector<HuntSummary>& parts, const std::vector<std::string>& files,
                     HuntSummary& merged, std::string& error);

}  // namespace wsim::run
