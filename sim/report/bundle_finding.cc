// The finding of a bundle (bundle_finding.h): its shrunk run or itself replayed from choices.bin
// (or, for an external system, told as recorded), labelled with the corpus, and its realism.
#include "sim/report/bundle_finding.h"

#include <filesystem>
#include <optional>

#include "sim/core/assert.h"
#include "sim/report/recorded_run.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/verdict_json.h"
#include "sim/triage/corpus_bugs.h"
#include "sim/triage/labelled_realism.h"

namespace wsim::run {

namespace {

// The realism verdict.json of the bundle `dir` recorded, if any, when it is about the failure
// `now` shows: the same invariant and, when both were labelled, the same label. A hunt bundle
// serves every finding of its run and records the realism of the first; a shrunk run may end
// in another bug (a swallowed action gone past, then a timestamp tie): that bug's realism is
// checked afresh, not borrowed.
std::optional<Realism> recorded_realism(const std::string& dir, const RunResult* now) {
  WSIM_ASSERT(!dir.empty());
  std::string json;
  std::string error;
  proto::VerdictRecord record;
  if (!read_file_capped(dir + "/verdict.json", kVerdictBytesMax, json, error) ||
      !parse_verdict_json(json, dir + "/verdict.json", record, error) || !record.has_realism()) {
    return std::nullopt;
  }
  if (now != nullptr) {
    const bool same_invariant =
        now->violation && now->violation->invariant_id == record.invariant();
    const bool both_labelled = now->labelled && !record.known().empty();
    const std::string label_now = now->known.empty() ? "NEW" : now->known;
    if (!same_invariant || (both_labelled && label_now != record.known())) return std::nullopt;
  }
  Realism realism;
  realism.realistic = record.realism().label() == "realistic";
  realism.amplifiers.assign(record.realism().amplifiers().begin(),
                            record.realism().amplifiers().end());
  realism.why = record.realism().why();
  return realism;
}

}  // namespace

bool replay_finding(const std::string& dir_given, bool original, const std::string& known_dir,
                    BundleFinding& out, std::string& error) {
  std::string dir = dir_given;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  out.dir = dir;
  std::error_code ec;
  bool loaded = false;
  if (!original && std::filesystem::is_directory(dir + "-shrunk", ec)) {
    if (read_bundle(dir + "-shrunk", out.bundle, error) &&
        validate_scenario(out.bundle.scenario, error)) {
      loaded = true;
      out.shrunk = true;
      out.source = dir + "-shrunk (the shrunk run; --original for the bundle itself)";
    } else {
      out.source = dir + " (its shrunk run " + dir + "-shrunk could not be read: " + error + ")";
    }
  }
  if (!loaded) {
    out.bundle = Bundle{};
    if (!read_bundle(dir, out.bundle, error) || !validate_scenario(out.bundle.scenario, error)) {
      return false;
    }
    if (out.source.empty()) out.source = dir;
  }
  WSIM_ASSERT(out.bundle.scenario.system != nullptr);  // validate_scenario selected it.
  const System& system = *out.bundle.scenario.system;
  if (!system.executable()) {
    // A run of a process outside wsim (the external system): told as recorded, not re-executed.
    if (!read_recorded_run(out.bundle, system, out.result, error)) return false;
    out.source += "\n       (as recorded: " + system.executable_error() + ")";
    out.result.realism = recorded_realism(out.dir, nullptr);
    if (!label_with_corpus(system, out.bundle.scenario.scenario, known_dir, out.result,
                           out.label_error, &out.known)) {
      WSIM_ASSERT(!out.label_error.empty());
    }
    return true;
  }
  out.tape = tape_of(out.bundle.record);
  RunOptions options;
  options.tape = out.tape;
  options.keep_trace = true;
  out.result = execute_run(system, out.bundle.scenario.scenario, options);
  WSIM_ASSERT_EQ(out.result.seed, out.bundle.scenario.scenario.seed());
  if (!label_with_corpus(system, out.bundle.scenario.scenario, known_dir, out.result,
                         out.label_error, &out.known)) {
    WSIM_ASSERT(!out.label_error.empty());
  }
  if (out.bundle.has_hashes && out.result.trace_hash != out.bundle.trace_hash) {
    out.source += "\n       note: the replay differs from the recorded run (trace hash " +
                  format_hash(out.result.trace_hash) + ", recorded " +
                  format_hash(out.bundle.trace_hash) + "): the code changed since the bundle " +
                  "was written";
  }
  return true;
}

Realism finding_realism(const BundleFinding& finding) {
  const RunResult& result = finding.result;
  WSIM_ASSERT(result.verdict == Verdict::kSafety || result.verdict == Verdict::kLiveness);
  std::optional<Realism> recorded = recorded_realism(finding.dir, &result);
  if (recorded && !is_unchecked(*recorded)) return *recorded;
  const System& system = *finding.bundle.scenario.system;
  if (!system.executable()) {
    return recorded ? *recorded : unchecked_realism(finding.bundle.scenario.scenario, system);
  }
  // Unlabelled (no corpus loaded): re-runs compared by verdict and invariant only.
  return labelled_realism(system, finding.bundle.scenario.scenario, result, finding.known,
                          RunOptions{}.events_max);
}

}  // namespace wsim::run
