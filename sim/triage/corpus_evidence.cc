// A corpus bug's evidence (corpus_evidence.h): the upstream steps, needs and invented notes of its
// files, pooled per bug id, and the links the reports print.
#include "sim/triage/corpus_evidence.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "sim/core/assert.h"
#include "sim/run/scenario.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

namespace {

// Adds `loaded`'s evidence (a validated file of bug `bug`) to `evidence`.
void add_file_evidence(const std::string& path, const LoadedScenario& loaded,
                       BugEvidence& evidence) {
  WSIM_ASSERT(!path.empty());
  const proto::Scenario& scenario = loaded.scenario;
  evidence.files.push_back(path);
  if (!evidence.has_upstream() && scenario.upstream().steps_size() > 0) {
    evidence.upstream = scenario.upstream();
    evidence.upstream_file = path;
  }
  if (evidence.invented.empty()) evidence.invented = scenario.invented();
  for (const proto::Need& need : scenario.needs()) {
    const bool known =
        std::any_of(evidence.needs.begin(), evidence.needs.end(),
                    [&](const proto::Need& kept) { return kept.amplifier() == need.amplifier(); });
    if (!known) evidence.needs.push_back(need);
  }
}

}  // namespace

std::string BugEvidence::summary() const {
  std::string text;
  if (has_upstream()) {
    text = std::string("upstream ") + proto::Upstream::Claim_Name(upstream.claim()) + " (" +
           std::to_string(upstream.steps_size()) + " steps)";
  }
  for (std::size_t i = 0; i < needs.size(); ++i) {
    text +=
        std::string(i == 0 ? (text.empty() ? "needs " : " + needs ") : ", ") + needs[i].amplifier();
  }
  if (!invented.empty()) text += text.empty() ? "invented" : " + invented";
  return text.empty() ? "none" : text;
}

bool corpus_evidence(const std::string& corpus_dir, std::map<std::string, BugEvidence>& out,
                     std::string& error) {
  std::vector<CorpusBug> bugs;
  if (!corpus_bugs(corpus_dir, bugs, error)) return false;
  std::set<std::string> seen_files;
  for (const CorpusBug& bug : bugs) {
    if (!seen_files.insert(bug.path).second) continue;  // One entry per file, not per expectation.
    LoadedScenario loaded;
    if (!load_scenario_file(bug.path, loaded, error) || !validate_scenario(loaded, error)) {
      return false;
    }
    WSIM_ASSERT(loaded.system != nullptr);
    BugEvidence& evidence = out[bug.bug];
    evidence.bug = bug.bug;
    evidence.system = loaded.system->name();
    add_file_evidence(bug.path, loaded, evidence);
  }
  return true;
}

std::optional<BugEvidence> evidence_of_known(const std::string& corpus_dir,
                                             const std::string& known, std::string& error) {
  if (known.empty() || known == "NEW") return std::nullopt;
  const std::string path = known.substr(0, known.rfind('#'));
  std::map<std::string, BugEvidence> all;
  if (!corpus_evidence(corpus_dir, all, error)) return std::nullopt;
  std::error_code ec;
  for (const auto& [id, evidence] : all) {
    for (const std::string& file : evidence.files) {
      if (file == path || std::filesystem::equivalent(file, path, ec)) return evidence;
    }
  }
  return std::nullopt;
}

std::string step_url(const proto::UpstreamStep& step) {
  if (!step.url().empty()) return step.url();
  std::string lines = step.lines();
  const std::size_t dash = lines.find('-');
  std::string anchor = dash == std::string::npos
                           ? "L" + lines
                           : "L" + lines.substr(0, dash) + "-L" + lines.substr(dash + 1);
  WSIM_ASSERT(!step.repo().empty());  // validate_step: a code step names its repository.
  return "https://github.com/" + step.repo() + "/blob/" + step.commit() + "/" + step.file() + "#" +
         anchor;
}

}  // namespace wsim::run
