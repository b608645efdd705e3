// The evidence of the corpus bugs (issue #30 item 4; docs/evidence.md): for each bug id, the
// `upstream` block and the `needs` labels its files carry (scenario.proto Upstream, Need).
//
// A bug id is a file's `bug` field, else its stem (corpus_bugs.h); evidence is per id, so a
// scripted and a hunted file of one bug share the block one of them carries. Single-threaded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/proto/scenario.pb.h"

namespace wsim::run {

struct BugEvidence {
  std::string bug;                 // The id.
  std::string system;              // The system its files select ("gitpod").
  std::vector<std::string> files;  // Its files with a violating expectation, in path order.
  std::string upstream_file;       // The file whose `upstream` block is kept ("" when none).
  proto::Upstream upstream;        // The first block in path order; empty when none.
  std::vector<proto::Need> needs;  // Every file's needs, one per amplifier (first `why` kept).
  std::string invented;            // The first file's `invented` (a version no release has).

  bool has_upstream() const { return upstream.steps_size() > 0; }
  bool has_evidence() const { return has_upstream() || !needs.empty() || !invented.empty(); }
  // "upstream REAL (4 steps)", "upstream DESIGN (3 steps) + needs gitlab.x", "needs gitlab.x",
  // "invented", "none": for `wsim corpus bugs`.
  std::string summary() const;
};

// The evidence of every bug id of `corpus_dir` (recursively; files as corpus_bugs() reads them,
// validated), keyed by id. False with an error naming the file when one does not load.
bool corpus_evidence(const std::string& corpus_dir, std::map<std::string, BugEvidence>& out,
                     std::string& error);

// The evidence of the bug a hunt or an explain labelled `known` ("PATH#N", the label of
// RunResult::known): the bug id of PATH and its evidence across the corpus under `corpus_dir`.
// nullopt when `known` is empty or "NEW", or names no file of that corpus.
std::optional<BugEvidence> evidence_of_known(const std::string& corpus_dir,
                                             const std::string& known, std::string& error);

// "https://github.com/OWNER/NAME/blob/COMMIT/FILE#L524-L531": where a reader sees the step's lines.
std::string step_url(const proto::UpstreamStep& step);

}  // namespace wsim::run
