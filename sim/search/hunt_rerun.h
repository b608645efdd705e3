// The re-runs of a hunt's findings (hunt.h): each kind of failure is run again in the parent
// with recording on. It must give the same verdict (otherwise the finding becomes a
// nondeterminism); its label, signature, object and message fill the Finding, and a failure
// bundle is written (bundle.h) with the repro commands on HuntOptions::log. Worker crashes are
// not re-run: their repro command is printed. Single-threaded.
#pragma once

#include "sim/search/hunt.h"

namespace wsim::run {

// At most this many findings of one hunt are re-run and bundled.
inline constexpr std::size_t kRerunFindingsMax = 20;

// Re-runs the first kRerunFindingsMax findings of `result` and completes them in place.
void rerun_findings(const HuntOptions& options, HuntResult& result);

}  // namespace wsim::run
