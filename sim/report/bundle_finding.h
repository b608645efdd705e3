// A failure bundle read back as a finding (`wsim explain`, `wsim report`): the bundle — or its
// shrunk run BUNDLE-shrunk/ (written by `wsim shrink`) when there is one — validated, re-executed
// from its choice record with the trace kept, labelled against the corpus, with its realism.
// A bundle of a system that cannot execute here (System::executable(): the external system
// without its COMMAND) is read as recorded instead (recorded_run.h): `tape` stays empty, so
// the story has no "state before", and its realism is verdict.json's or unchecked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/realism.h"

namespace wsim::run {

struct BundleFinding {
  Bundle bundle;                    // The bundle replayed (the shrunk one when `shrunk`).
  std::string dir;                  // The bundle directory given, without trailing '/'.
  bool shrunk = false;              // `bundle` is dir + "-shrunk".
  std::string source;               // Where it came from, for a reader (with any notes).
  std::vector<std::uint64_t> tape;  // The choice record's values.
  RunResult result;                 // The replay, trace kept, labelled when the corpus loads.
  std::string label_error;          // Why the corpus could not label it (empty when it did).
  // The known bugs of the corpus that may be present on its versions (applicable_corpus_bugs),
  // loaded to label a failing run; empty when none were (a pass, no corpus).
  std::vector<KnownBug> known;
};

// Reads and replays `dir` (see the file comment); `original` ignores BUNDLE-shrunk. False with an
// error naming the file when neither loads.
bool replay_finding(const std::string& dir, bool original, const std::string& known_dir,
                    BundleFinding& out, std::string& error);

// The realism of a failing finding: as verdict.json of `finding.dir` recorded it (issue #30 item
// 3) when it was checked there, else checked now (sim/triage/labelled_realism.h: the same
// verdict, invariant and corpus label with the amplifiers at production; at most a few dozen
// re-runs). REQUIRES: the finding's run failed.
Realism finding_realism(const BundleFinding& finding);

}  // namespace wsim::run
