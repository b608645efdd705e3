// The machine-readable summary of a hunt (`wsim hunt --summary FILE.json`) and of a merge of
// shard summaries (`wsim merge`): what was hunted, how far, what was found and which probes
// were reached. JSON through nlohmann-json; the format (version 1):
//
//   { "format": "wsim-hunt-summary", "version": 1,
//     "shard": {"index": I, "count": N},         // {"index": 0, "count": 1}: unsharded; merged
//     "merged_shards": M,                        // shards a merge combined (1 for a hunt)
//     "seed_start": S, "runs_budget": R | null, "time_budget_ms": T | null,
//     "exit_code": C,                            // as `wsim hunt` exits for this summary
//     "targets": [ {                             // one per version tuple hunted
//       "system": "gitlab", "versions": "agent=A2 rails=R1", "repro": "scripts/wsim run ...",
//       "runs": 100, "failing_runs": 3, "complete_below": 100, "seconds": 1.5,
//       "deadline_reached": false, "interrupted": false, "unmasked": true,
//       "findings": [ {"verdict": "SAFETY_VIOLATION", "exit_code": 2, "invariant": "gitlab.S3",
//                      "label": "NEW" | "known" | "-", "known": "FILE#N", "first_seed": 12,
//                      "runs": 3, "signature": "...", "signatures": ["..."], "object": "...",
//                      "message": "...", "bundle": "wsim-out/..."} ],
//       "probes": [ {"name": "...", "hits": 5, "description": "..."} ] } ] }
//
// "label" is NEW for a finding whose signature matches no known bug of the corpus, "known" (with
// "known": FILE#N, as `wsim hunt --bug` takes it) when it matches one, "-" when the hunt had no
// corpus. "signatures" lists the distinct signatures a merge met for one finding (one per shard
// at most). Not thread-safe; no global state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/search/hunt.h"

namespace wsim::run {

// One version tuple of a hunt and what its hunt found.
struct HuntTarget {
  std::string system;
  std::string versions;  // describe_versions (scenario.h)
  std::string repro;     // repro_command (commands.h), without --seed
  HuntResult result;
  std::vector<std::vector<std::string>> signatures;  // Per finding: the distinct signatures.
};

struct HuntSummary {
  Shard shard;
  std::uint64_t merged_shards = 1;
  std::uint64_t seed_start = 0;
  std::optional<std::uint64_t> runs_budget;
  std::optional<DurationMs> time_budget_ms;
  std::vector<HuntTarget> targets;

  // The first target's non-zero HuntResult::exit_code(), else 0: what `wsim hunt` exits with.
  int exit_code() const;
};

// The summary as JSON text (two-space indented, ending in a newline).
std::string summary_to_json(const HuntSummary& summary);

// Parses `text` (read from `file`, named in errors). False with an error naming the file and
// the field on malformed input.
bool summary_from_json(const std::string& text, const std::string& file, HuntSummary& summary,
                       std::string& error);

// Writes summary_to_json to `path` (atomically: a temporary file renamed). False with an error.
bool write_summary_file(const std::string& path, const HuntSummary& summary, std::string& error);

// Reads and parses `path`. False with an error naming the file.
bool read_summary_file(const std::string& path, HuntSummary& summary, std::string& error);

}  // namespace wsim::run
