// Failure bundles (docs/architecture.md §6): one directory per failing run, read back here and
// written by sim/report/bundle_write.h (the files are reports of the run),
//
//   <out>/<system>-<versions>-s<seed>-<invariant>/
//     scenario.textproto  the scenario with its seed and normalized config (runnable as is)
//     choices.bin         the choice record (encode_choice_record): `wsim replay` re-executes it
//     trace.jsonl         one JSON object per trace event
//     trace.txt           the same as aligned columns, culprit and violation marked
//     verdict.json        verdict, invariant, message, seed, fingerprint, trace hash, events,
//                         virtual time, swarm, liveness violations, final state
//     timeline.html       a self-contained sequence diagram of the run (timeline_html.h)
//
// written atomically: everything goes into <out>/.tmp-<name>, which is then rename()d to <name>
// (an existing bundle of the same name is replaced). A bundle is never half-written, even when
// the process dies midway: at worst a .tmp-* directory is left, and the next write removes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/choice.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"

namespace wsim::run {

inline constexpr std::size_t kChoicesBytesMax = 256u << 20;  // 16 M choices
inline constexpr std::size_t kVerdictBytesMax = 1u << 20;

// "<system>-<versions>-s<seed>-<invariant or verdict>", only [A-Za-z0-9._-].
std::string bundle_name(const System& system, const proto::Scenario& scenario,
                        const RunResult& result);

struct Bundle {
  std::string dir;
  LoadedScenario scenario;  // Parsed, not yet validated.
  std::vector<Choice> record;
  bool has_hashes = false;
  std::uint64_t fingerprint = 0;
  std::uint64_t trace_hash = 0;
  std::string verdict;    // As recorded ("SAFETY_VIOLATION"), may be empty.
  std::string invariant;  // As recorded, may be empty.
};

// Reads a bundle directory back. Every file is size-capped; malformed files are errors naming
// the file (and line, for the scenario).
bool read_bundle(const std::string& dir, Bundle& bundle, std::string& error);

}  // namespace wsim::run
