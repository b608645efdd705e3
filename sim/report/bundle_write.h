// Writing a failure bundle (the layout is in sim/run/bundle.h): the run's reports rendered into
// one directory, atomically. It lives in the report layer because every file but the scenario
// and the choice record is a rendering of the run (trace text, JSON lines, verdict, timeline).
#pragma once

#include <string>

#include "sim/proto/scenario.pb.h"
#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/system.h"

namespace wsim::run {

// Writes the bundle of `result` (which must have been run with record_choices and keep_trace)
// under `out_dir` (created if missing). Sets `path` to the bundle directory.
bool write_bundle(const std::string& out_dir, const System& system, const proto::Scenario& scenario,
                  const RunResult& result, std::string& path, std::string& error);

}  // namespace wsim::run
