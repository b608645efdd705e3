// Realism with the corpus's labels: see labelled_realism.h.
#include "sim/triage/labelled_realism.h"

#include <filesystem>
#include <system_error>

#include "sim/core/assert.h"
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

Realism labelled_realism(const System& system, const proto::Scenario& scenario,
                         const RunResult& failing, const std::vector<KnownBug>& known,
                         std::uint64_t events_max) {
  WSIM_ASSERT(failing.violation.has_value());
  WSIM_ASSERT(failing.verdict == Verdict::kSafety || failing.verdict == Verdict::kLiveness);
  const bool labelled = failing.labelled && !known.empty();
  const std::string invariant = failing.violation->invariant_id;
  const Reproduces same = [&](const proto::Scenario& candidate) {
    RunOptions options;
    options.events_max = events_max;
    options.keep_trace = labelled;  // A label needs the signature, which needs the trace.
    if (labelled) options.known = &known;
    const RunResult again = execute_run(system, candidate, options);
    if (again.verdict != failing.verdict || !again.violation ||
        again.violation->invariant_id != invariant) {
      return false;
    }
    return !labelled || (again.labelled && again.known == failing.known);
  };
  const bool names_a_bug = labelled && !failing.known.empty();
  const std::string bug = names_a_bug ? bug_id_of(known, failing.known) : "";
  const Reproduces same_bug = [&](const proto::Scenario& candidate) {
    RunOptions options;
    options.events_max = events_max;
    options.keep_trace = true;
    options.known = &known;
    const RunResult again = execute_run(system, candidate, options);
    return again.verdict == failing.verdict && again.violation &&
           again.violation->invariant_id == invariant && again.labelled && !again.known.empty() &&
           bug_id_of(known, again.known) == bug;
  };
  return check_realism(scenario, system, same, names_a_bug ? same_bug : Reproduces{});
}

}  // namespace wsim::run
