// A bundle's run as it was recorded (trace.jsonl and verdict.json), for the systems whose runs
// cannot be re-executed inside wsim: the `external` system, whose reconciler is a process
// outside wsim (System::executable(), serve/README.md). `wsim explain` and `wsim report` of such
// a bundle tell the recorded run's story instead of a replay's; nothing is re-executed.
#pragma once

#include <string>

#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/system.h"

namespace wsim::run {

inline constexpr std::size_t kRecordedTraceBytesMax = 512u << 20;

// Reads `bundle`'s trace.jsonl and verdict.json into `result`: verdict, violation (with its
// culprit and violation events from the trace's marks), liveness violations, seed, hashes,
// counts, virtual end time, swarm, final state, the label verdict.json recorded (labelled and
// known), and the violation's signature recomputed from the recorded trace (as the run computed
// it). Masked (gone-past) violations are not read back. False with an error naming the file (and
// line).
bool read_recorded_run(const Bundle& bundle, const System& system, RunResult& result,
                       std::string& error);

}  // namespace wsim::run
