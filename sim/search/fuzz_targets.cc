// Fuzz-target plumbing (fuzz_targets.h): a target's scenario, its run from libFuzzer bytes, what
// counts as a finding, and the bytes that replay a recorded run.
#include "sim/search/fuzz_targets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "sim/core/assert.h"
#include "sim/core/choice.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

std::vector<std::pair<std::string, std::string>> fast_phase_fields(const std::string& system) {
  const System* found = find_system(system);
  if (found == nullptr) return {};
  std::vector<std::pair<std::string, std::string>> fields = found->fast_phase_fields();
  for (const auto& [field, value] : fields) WSIM_ASSERT(!field.empty());
  return fields;
}

const std::vector<FuzzTarget>& fuzz_targets() { return registered_fuzz_targets(); }

const FuzzTarget* find_fuzz_target(const std::string& name) {
  for (const FuzzTarget& target : fuzz_targets()) {
    WSIM_ASSERT(!target.name.empty());  // libFuzzer binaries are named after it.
    if (target.name == name) return &target;
  }
  return nullptr;
}

bool fuzz_target_scenario(const FuzzTarget& target, LoadedScenario& loaded, std::string& error) {
  WSIM_ASSERT(!target.system.empty());
  if (!scenario_for_system(target.system, loaded, error)) return false;
  for (const auto& [field, value] : fast_phase_fields(target.system)) {
    if (!set_field(loaded, field, value, "fuzz target " + target.name, error)) return false;
  }
  loaded.scenario.set_name("fuzz-" + target.name);
  loaded.scenario.set_description("libFuzzer target " + target.name + " (" +
                                  (target.canary ? "canary" : "guard") + "): " + target.reference);
  for (const auto& [field, value] : target.fields) {
    if (!set_field(loaded, field, value, "fuzz target " + target.name, error)) return false;
  }
  for (const std::string& fault : target.forced_faults) {
    proto::FaultOverride* override = loaded.scenario.add_faults();
    override->set_name(fault);
    override->set_enabled(true);
  }
  if (!validate_scenario(loaded, error)) return false;
  WSIM_ASSERT(loaded.system != nullptr);  // fuzz_execute runs it.
  return true;
}

RunOptions fuzz_run_options(std::span<const std::uint8_t> bytes) {
  RunOptions options;
  options.bytes = std::vector<std::uint8_t>(bytes.begin(), bytes.end());
  options.bytes_tail = ChoiceSource::BytesTail::kRandom;
  options.events_max = kFuzzEventsMax;
  return options;
}

bool fuzz_finding(const FuzzTarget& target, const RunResult& result) {
  if (result.verdict == Verdict::kHarnessError) return true;
  if (result.verdict != Verdict::kSafety && result.verdict != Verdict::kLiveness) return false;
  const std::string id = result.violation ? result.violation->invariant_id : "";
  if (target.canary) WSIM_ASSERT(!target.bugs.empty());  // A canary guards named bugs.
  // A canary reports only its own bug (other violations of an old version are the guards' and
  // the corpus's business); a guard reports everything but the corpus's known bugs.
  if (target.canary)
    return std::find(target.bugs.begin(), target.bugs.end(), id) != target.bugs.end();
  return !(result.labelled && !result.known.empty());
}

RunResult fuzz_execute(const FuzzTarget& target, const LoadedScenario& loaded,
                       std::span<const std::uint8_t> bytes, const std::vector<KnownBug>& known) {
  WSIM_ASSERT(loaded.system != nullptr);
  if (target.canary) return execute_run(*loaded.system, loaded.scenario, fuzz_run_options(bytes));
  if (!target.label_in_one_run)
    return execute_run_with_known(*loaded.system, loaded.scenario, fuzz_run_options(bytes), known);
  // The relabelling run of execute_run_with_known, run for every input (system.h).
  RunOptions options = fuzz_run_options(bytes);
  options.keep_trace = true;
  options.known = &known;
  options.go_past_known = true;
  RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  result.trace.clear();  // Like execute_run_with_known: the labels are kept, the trace is not.
  result.trace.shrink_to_fit();
  return result;
}

std::vector<std::uint8_t> bytes_of_record(const std::vector<Choice>& record,
                                          std::size_t max_bytes) {
  std::vector<std::uint8_t> out;
  for (const Choice& choice : record) {
    WSIM_ASSERT_GT(choice.bound, 0u);
    int width = 0;
    for (std::uint64_t rest = choice.bound - 1; rest != 0; rest >>= 8) ++width;
    WSIM_ASSERT_LE(width, 8);  // Paired with ChoiceSource::next_from_bytes.
    for (int i = 0; i < width; ++i) {
      if (out.size() >= max_bytes) return out;
      out.push_back(static_cast<std::uint8_t>((choice.value >> (8 * i)) & 0xff));
    }
  }
  WSIM_ASSERT_LE(out.size(), max_bytes);
  return out;
}

}  // namespace wsim::run
