// `wsim corpus add BUNDLE [-- COMMAND...]` for the bundle of an external run (issue #33 item 1,
// docs/external.md "A corpus of external findings"): the bundle's scenario becomes a corpus file
// with an expectation (the recorded verdict and invariant) and the external process it needs
// (external.command, workdir relative to the current directory when beneath it, digest), said
// again in a header comment as the command line that replays it:
//   (cd WORKDIR && wsim serve --scenario FILE -- COMMAND...)
// External files live apart from corpus/regressions (corpus/external by default): the corpus
// replay test runs the built-in systems alone, an external file needs its process.
//
// With COMMAND the seed is run again with it (one process) and the file is written only when
// that run violates the bundle's invariant; the file then records COMMAND as run from here.
// Without COMMAND the bundle's recorded verdict is taken as it is (the header says so).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace wsim::serve {

struct ExternalCorpusAdd {
  std::string bundle;
  std::string name;                            // Slug; default "regression".
  std::string corpus_dir = "corpus/external";  // --corpus DIR
  std::vector<std::string> command;            // After --; empty: not re-run.
  std::int64_t quiet_ms = 30;
};

// True when `bundle_dir` is a readable bundle of an external run (then cmd_external_corpus_add
// is the one to call).
bool is_external_bundle(const std::string& bundle_dir);

int cmd_external_corpus_add(const ExternalCorpusAdd& command, std::ostream& out, std::ostream& err);

}  // namespace wsim::serve
