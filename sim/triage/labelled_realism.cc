// Realism with the corpus's labels: see labelled_realism.h.
#include "sim/triage/labelled_realism.h"

#include <filesystem>
#include <optional>
#include <system_error>

#include "sim/core/assert.h"
#include "sim/run/amplifiers.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

bool applicable_corpus_bugs(const System& system, const proto::Scenario& run,
                            const std::string& corpus_dir, std::vector<KnownBug>& out,
                            std::string& error) {
  out.clear();
  std::error_code ec;
  if (corpus_dir.empty() || !std::filesystem::is_directory(corpus_dir, ec)) return true;
  std::vector<KnownBug> all;
  if (!known_bugs(corpus_dir, system.name(), all, error)) return false;
  out = applicable_known_bugs(all, run, system);
  return true;
}

std::string bug_id_of(const std::vector<KnownBug>& known, const std::string& name) {
  for (const KnownBug& bug : known) {
    if (bug.name == name) return bug.bug.empty() ? name : bug.bug;
  }
  return name;
}

std::string production_exemplar(const System& system, const std::vector<KnownBug>& known,
                                const std::string& bug_id) {
  for (const KnownBug& candidate : known) {
    if (bug_id_of(known, candidate.name) != bug_id) continue;
    CorpusBug bug;
    LoadedScenario loaded;
    std::string error;  // A file that does not load is no exemplar (the corpus tests say why).
    if (!parse_corpus_bug(candidate.name, bug, error) || !load_bug_script(bug, loaded, error)) {
      continue;
    }
    if (loaded.system == nullptr || loaded.system->name() != system.name()) continue;
    if (amplified_in(loaded.scenario, system).empty()) return candidate.name;
  }
  return "";
}

Realism realistic_by_exemplar(const std::string& exemplar) {
  WSIM_ASSERT(!exemplar.empty());
  return Realism{true,
                 {},
                 "the corpus file " + exemplar +
                     " fails with this bug with every amplifier at its production value"};
}

Realism labelled_realism(const System& system, const proto::Scenario& scenario,
                         const RunResult& failing, const std::vector<KnownBug>& known,
                         std::uint64_t events_max) {
  WSIM_ASSERT(failing.violation.has_value());
  WSIM_ASSERT(failing.verdict == Verdict::kSafety || failing.verdict == Verdict::kLiveness);
  const bool labelled = failing.labelled && !known.empty();
  const std::string invariant = failing.violation->invariant_id;
  // The label of a re-run that violates the same invariant ("" when NEW), or nullopt when it
  // does not. Quiet first: only such a run is run again with the trace a label needs.
  const auto label_of = [&](const proto::Scenario& candidate) -> std::optional<std::string> {
    RunOptions options;
    options.events_max = events_max;
    const RunResult quiet = execute_run(system, candidate, options);
    if (quiet.verdict != failing.verdict || !quiet.violation ||
        quiet.violation->invariant_id != invariant) {
      return std::nullopt;
    }
    if (!labelled) return std::string();
    options.keep_trace = true;
    options.known = &known;
    const RunResult traced = execute_run(system, candidate, options);
    WSIM_ASSERT(traced.verdict == quiet.verdict);  // Same scenario, same choices.
    return traced.labelled ? traced.known : std::string();
  };
  const Reproduces same = [&](const proto::Scenario& candidate) {
    const std::optional<std::string> label = label_of(candidate);
    return label && (!labelled || *label == failing.known);
  };
  if (!labelled || failing.known.empty()) return check_realism(scenario, system, same);
  const std::string bug = bug_id_of(known, failing.known);
  if (!amplified_in(scenario, system).empty()) {
    const std::string exemplar = production_exemplar(system, known, bug);
    if (!exemplar.empty()) return realistic_by_exemplar(exemplar);
  }
  const Reproduces same_bug = [&](const proto::Scenario& candidate) {
    const std::optional<std::string> label = label_of(candidate);
    return label && !label->empty() && bug_id_of(known, *label) == bug;
  };
  return check_realism(scenario, system, same, same_bug);
}

}  // namespace wsim::run
