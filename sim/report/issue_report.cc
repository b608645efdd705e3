// `wsim report` (issue_report.h): a failure written as a Markdown issue, its table, story,
// upstream chain, needs and repro commands.
#include "sim/report/issue_report.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "sim/core/assert.h"
#include "sim/report/explain.h"
#include "sim/report/report.h"
#include "sim/run/amplifiers.h"
#include "sim/run/scenario.h"
#include "sim/run/signature.h"
#include "sim/run/trace_view.h"
#include "sim/run/verdict.h"

namespace wsim::run {

namespace {

// Markdown table cells and inline text: no '|' and no line breaks.
std::string cell(const std::string& text) {
  std::string out = one_line(text);
  std::replace(out.begin(), out.end(), '|', '/');
  // One cell: no column separator, no line break.
  WSIM_ASSERT_EQ(out.find('|'), std::string::npos);
  WSIM_ASSERT_EQ(out.find('\n'), std::string::npos);
  return out;
}

// The system's declaration of invariant `id` (System::invariants returns a new vector: copied).
std::optional<InvariantInfo> invariant_info(const System& system, const std::string& id) {
  WSIM_ASSERT(!id.empty());
  for (const InvariantInfo& info : system.invariants()) {
    if (info.id == id) return info;
  }
  return std::nullopt;
}

std::string title(const IssueReportInput& input) {
  WSIM_ASSERT(input.result != nullptr);
  const RunResult& result = *input.result;
  if (!result.violation) return input.system->name() + ": " + verdict_name(result.verdict);
  const Violation& violation = *result.violation;
  const std::optional<InvariantInfo> info = invariant_info(*input.system, violation.invariant_id);
  std::string text = input.system->name() + ": " + violation.invariant_id;
  if (info) text += " — " + info->description;
  if (!violation.object.empty()) text += " (" + violation.object + ")";
  return cell(text);
}

void write_table(std::ostream& out, const IssueReportInput& input) {
  WSIM_ASSERT(input.scenario != nullptr);
  const RunResult& result = *input.result;
  out << "| | |\n|---|---|\n";
  out << "| versions | `" << cell(describe_versions(*input.scenario, *input.system)) << "` |\n";
  if (input.evidence) {
    out << "| known bug | `" << cell(input.evidence->bug)
        << "` (wsim corpus: " << cell(result.known) << "; " << input.evidence->files.size()
        << " file" << (input.evidence->files.size() == 1 ? "" : "s") << ") |\n";
    if (input.evidence->has_upstream() && !input.evidence->upstream.affects().empty()) {
      out << "| affects | " << cell(input.evidence->upstream.affects()) << " |\n";
    }
  } else if (result.labelled) {
    out << "| known bug | none: a NEW finding (not in the wsim corpus) |\n";
  }
  out << "| realism | **" << cell(realism_short(input.realism)) << "**";
  if (!input.realism.why.empty()) out << ": " << cell(input.realism.why);
  out << " |\n";
  if (result.violation) {
    const std::optional<InvariantInfo> info =
        invariant_info(*input.system, result.violation->invariant_id);
    out << "| broken | `" << result.violation->invariant_id << "` (" << verdict_name(result.verdict)
        << ")";
    if (info) {
      out << ": " << cell(info->description);
      if (!info->reference.empty()) out << " [" << cell(info->reference) << "]";
    }
    out << " |\n";
    out << "| seen | " << cell(result.violation->message) << " |\n";
  }
  out << "| run | seed " << result.seed << ", " << result.events << " events, ends at "
      << format_trace_time(result.end_ms) << " |\n";
}

std::string story_line(const RunResult& result, const EventGroup& group) {
  WSIM_ASSERT_LT(group.first, result.trace.size());
  const TraceEvent& e = result.trace[group.first];
  std::string line =
      "`" + format_trace_time(e.time_ms) + "` " + cell(e.actor) + " **" + cell(e.verb) + "**";
  if (group.members.size() > 1) line += " ×" + std::to_string(group.members.size());
  if (!e.object.empty()) line += " " + cell(clip(e.object, 64));
  if (!e.result.empty()) line += " → " + cell(clip(e.result, 40));
  if (!e.detail.empty() && !is_violation(e)) line += " (" + cell(clip(e.detail, 64)) + ")";
  if (is_violation(e)) line += " — **violation**";
  return line;
}

// A turning point of the story: an external action (a user's, kubectl's), a step a fault was
// injected into, or the violation. (Failed steps without a fault are mostly the reconcilers'
// Conflicts and retries: consequences, not causes.)
bool turning_point(const std::set<std::string, std::less<>>& externals, const TraceEvent& e) {
  if (is_violation(e) || !e.faults.empty()) return true;
  return externals.contains(e.actor.substr(0, e.actor.find('/')));
}

// The indices of the groups to show, in order: all when they fit; else the turning points
// (the last ones, when even they do not fit), then the latest other groups in the room left.
std::vector<std::size_t> story_groups(const System& system, const RunResult& result,
                                      const std::vector<EventGroup>& groups) {
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < groups.size(); ++i) shown.push_back(i);
  if (groups.size() <= kIssueStoryLinesMax) return shown;
  const std::size_t room = kIssueStoryLinesMax - 1;  // One line says what was left out.
  const std::set<std::string, std::less<>> externals = external_actors_of(system);
  std::vector<std::size_t> turning;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (turning_point(externals, result.trace[groups[i].first])) turning.push_back(i);
  }
  if (turning.size() > room) turning.erase(turning.begin(), turning.end() - room);
  for (std::size_t i = groups.size(); i-- > 0 && turning.size() < room;) {
    if (std::find(turning.begin(), turning.end(), i) == turning.end()) turning.push_back(i);
  }
  std::sort(turning.begin(), turning.end());
  WSIM_ASSERT_LE(turning.size(), room);
  return turning;
}

void write_story(std::ostream& out, const IssueReportInput& input) {
  const RunResult& result = *input.result;
  const std::string object = result.violation ? result.violation->object : "";
  const std::vector<EventGroup> groups =
      fold_key_events(result, key_events(*input.system, result, object));
  out << "\n## What happens\n\n";
  if (groups.empty()) {
    out << "No event touches " << (object.empty() ? "the object" : object)
        << "; see the bundle's trace.txt.\n";
    return;
  }
  const std::vector<std::size_t> shown = story_groups(*input.system, result, groups);
  WSIM_ASSERT_LE(shown.size(), groups.size());
  WSIM_ASSERT_LE(shown.size(), kIssueStoryLinesMax);  // With the "other steps" line.
  int number = 1;
  if (shown.size() < groups.size()) {
    out << number++ << ". … " << groups.size() - shown.size()
        << " other steps (in the bundle's trace.txt)\n";
  }
  for (std::size_t i : shown) out << number++ << ". " << story_line(result, groups[i]) << "\n";
}

void write_upstream(std::ostream& out, const IssueReportInput& input) {
  out << "\n## Upstream code\n\n";
  if (!input.evidence) {
    out << "Not a known bug of the wsim corpus: no upstream chain has been read for it yet "
           "(docs/evidence.md).\n";
    return;
  }
  const BugEvidence& evidence = *input.evidence;
  if (!evidence.invented.empty()) {
    out << "**Not an upstream bug**: `" << evidence.bug << "` lives only in a version no release "
        << "has (" << cell(evidence.invented) << ").\n";
    if (!evidence.has_upstream()) return;
  }
  if (!evidence.has_upstream()) {
    out << "No upstream chain is recorded for `" << evidence.bug << "`"
        << (evidence.needs.empty() ? " yet (docs/evidence.md).\n"
                                   : ": the corpus says it needs an amplifier (below).\n");
    return;
  }
  const proto::Upstream& upstream = evidence.upstream;
  out << (upstream.claim() == proto::Upstream::DESIGN
              ? "Reconstructed from a design document (the steps cite it); real if built as "
                "designed. "
              : "")
      << "Read on " << cell(upstream.read_on()) << ".\n\n";
  WSIM_ASSERT_GT(upstream.steps_size(), 0);  // has_upstream(): validate_upstream needs one.
  for (int i = 0; i < upstream.steps_size(); ++i) {
    const proto::UpstreamStep& step = upstream.steps(i);
    if (!step.url().empty()) {  // A design document's section.
      out << i + 1 << ". " << cell(step.says()) << " — [" << cell(step.function()) << "]("
          << step_url(step) << ")\n";
      continue;
    }
    WSIM_ASSERT_GE(step.commit().size(), 7u);  // validate_step: 7..40 hex digits.
    out << i + 1 << ". " << cell(step.says()) << " — [`" << cell(step.file()) << ":" << step.lines()
        << "`](" << step_url(step) << ") `" << cell(step.function()) << "` @"
        << step.commit().substr(0, 12) << "\n";
  }
}

void write_needs(std::ostream& out, const IssueReportInput& input) {
  std::vector<std::pair<std::string, std::string>> needs;
  for (const std::string& name : input.realism.amplifiers) needs.emplace_back(name, "");
  if (input.evidence) {
    for (const proto::Need& need : input.evidence->needs) {
      auto it = std::find_if(needs.begin(), needs.end(),
                             [&](const auto& kept) { return kept.first == need.amplifier(); });
      if (it == needs.end()) {
        needs.emplace_back(need.amplifier(), need.why());
      } else {
        it->second = need.why();
      }
    }
  }
  if (needs.empty()) return;
  WSIM_ASSERT_GE(needs.size(), input.realism.amplifiers.size());
  out << "\n## Needs\n\n";
  for (const auto& [name, why] : needs) {
    std::string text = why;
    if (text.empty()) {
      if (const std::optional<Amplifier> amplifier = find_amplifier(*input.system, name)) {
        text = amplifier->why;
      }
    }
    out << "- `" << name << "`" << (text.empty() ? "" : ": " + cell(text)) << "\n";
  }
}

}  // namespace

std::string render_issue_report(const IssueReportInput& input) {
  WSIM_ASSERT(input.system != nullptr);
  WSIM_ASSERT(input.scenario != nullptr);
  WSIM_ASSERT(input.result != nullptr);
  std::ostringstream out;
  out << "# " << title(input) << "\n\n";
  write_table(out, input);
  write_story(out, input);
  write_upstream(out, input);
  write_needs(out, input);
  out << "\n## Reproduce\n\n```sh\n";
  for (const std::string& command : input.repro) out << command << "\n";
  out << "```\n\nFound and written by wsim (`wsim report " << input.source << "`).\n";
  return out.str();
}

}  // namespace wsim::run
