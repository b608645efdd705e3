// `wsim report BUNDLE` (issue #30 item 6; docs/report.md): an issue-ready Markdown report of a
// finding for the upstream project — short enough to paste into an issue.
//
//   # title: system, invariant id and its one-line meaning, the object
//   a table: versions and fixes, the finding's corpus label, the realism label, the evidence
//     kind, the invariant broken (meaning and reference) and what was seen
//   ## What happens: the minimal scenario as a numbered story (the key events of explain.h,
//     folded; at most kIssueStoryLinesMax lines: when there are more, the turning points —
//     external actions, faulted steps, the violation — then the latest others)
//   ## Upstream code: each step of the known bug's `upstream` block (docs/evidence.md) with a
//     link to its lines at the commit they were read at; "not in the corpus" for a NEW finding
//   ## Needs: the amplifiers it needs and why (from the realism check and the corpus `needs`)
//   ## Reproduce: the commands
//
// A pure function of its input: the same bundle gives the same bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/proto/scenario.pb.h"
#include "sim/run/driver.h"
#include "sim/run/realism.h"
#include "sim/run/system.h"
#include "sim/triage/corpus_evidence.h"

namespace wsim::run {

inline constexpr std::size_t kIssueStoryLinesMax = 15;

struct IssueReportInput {
  const System* system = nullptr;             // REQUIRES: set.
  const proto::Scenario* scenario = nullptr;  // REQUIRES: set; the run's (validated) scenario.
  const RunResult* result = nullptr;          // REQUIRES: set; run with keep_trace.
  Realism realism;                            // The finding's realism verdict.
  std::optional<BugEvidence> evidence;        // The known bug's evidence, if labelled known.
  std::vector<std::string> repro;             // Commands that reproduce it, in order.
  std::string source;                         // The bundle (or shrunk bundle) it came from.
};

std::string render_issue_report(const IssueReportInput& input);

}  // namespace wsim::run
