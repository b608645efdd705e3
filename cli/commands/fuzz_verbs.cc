// The fuzz-target verbs of the CLI (commands.h): `wsim list --fuzz-targets`, `wsim replay
// --fuzz-target NAME FILE` and `wsim fuzz-seeds`, over the targets of sim/search/fuzz_targets.h.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli/commands/commands.h"
#include "sim/core/assert.h"
#include "sim/report/bundle_write.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/search/fuzz_targets.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

int cmd_list_fuzz_targets(std::ostream& out) {
  for (const FuzzTarget& target : fuzz_targets()) {
    WSIM_ASSERT(!target.system.empty());
    out << target.name << " " << (target.canary ? "canary" : "guard") << " "
        << (target.in_ci_gate ? "gate" : "batch") << " " << target.input_bytes_max << " "
        << target.system << " ";
    std::string bugs;
    for (const std::string& bug : target.bugs) bugs += (bugs.empty() ? "" : ",") + bug;
    out << (bugs.empty() ? "-" : bugs) << "\n";
  }
  return kExitPass;
}

namespace {

// The raw fuzzer input at `path` (at most kFuzzInputBytesMax bytes); false after telling `err`.
bool read_fuzz_input(const std::string& path, std::vector<std::uint8_t>& bytes, std::ostream& err) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || std::filesystem::is_directory(path, ec)) {
    err << "wsim replay: " << path << ": not a readable file\n";
    return false;
  }
  if (size > kFuzzInputBytesMax) {
    err << "wsim replay: " << path << ": " << size << " bytes, more than the " << kFuzzInputBytesMax
        << " a fuzzer input may have\n";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    err << "wsim replay: " << path << ": read error\n";
    return false;
  }
  WSIM_ASSERT_LE(bytes.size(), kFuzzInputBytesMax);
  return true;
}

}  // namespace

int cmd_replay_fuzz_input(const std::string& target_name, const ReplayCommand& command,
                          std::ostream& out, std::ostream& err, const std::string& known_dir) {
  const FuzzTarget* target = find_fuzz_target(target_name);
  if (target == nullptr) {
    std::string names;
    for (const FuzzTarget& t : fuzz_targets()) names += (names.empty() ? "" : ", ") + t.name;
    err << "wsim replay: unknown fuzz target '" << target_name << "' (targets: " << names << ")\n";
    return kExitUsage;
  }
  std::vector<std::uint8_t> bytes;
  if (!read_fuzz_input(command.path, bytes, err)) return kExitUsage;
  LoadedScenario loaded;
  std::string error;
  if (!fuzz_target_scenario(*target, loaded, error)) {
    err << "wsim replay: fuzz target " << target->name << ": " << error << "\n";
    return kExitUsage;
  }
  out << "fuzz target " << target->name << " (" << (target->canary ? "canary" : "guard")
      << "), input " << command.path << " (" << bytes.size() << " bytes)\n";
  RunOptions options = fuzz_run_options(bytes);
  options.record_choices = true;
  options.keep_trace = true;
  options.log = &out;
  options.events_max = std::min(options.events_max, command.events_max);
  std::vector<KnownBug> known;
  std::error_code ec_known;
  if (!target->canary && std::filesystem::is_directory(known_dir, ec_known)) {
    if (!known_bugs(known_dir, target->system, known, error)) {
      err << "wsim replay: " << error << "\n";
      return kExitUsage;
    }
    options.known = &known;
    options.go_past_known = true;
  }
  const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  // The bundle replays exactly only if it goes past the same known violations.
  for (const MaskedViolation& masked : result.masked) {
    proto::KnownViolation* entry = loaded.scenario.add_go_past();
    entry->set_invariant(masked.violation.invariant_id);
    entry->set_object(masked.violation.object);
    entry->set_known(masked.known);
  }
  if (result.verdict != Verdict::kPass) {
    if (result.violation && !fuzz_finding(*target, result)) {
      out << "known bug of this target (" << result.violation->invariant_id
          << ", known: " << result.known << "): the target does not report it\n";
    }
    std::string bundle;
    if (write_bundle(command.out_dir, *loaded.system, loaded.scenario, result, bundle, error)) {
      out << "bundle " << bundle << "\n"
          << "reproduce with:\n  scripts/wsim replay " << shell_quote(bundle) << "\n"
          << "  scripts/wsim replay --fuzz-target " << target->name << " "
          << shell_quote(command.path) << "\n";
    } else {
      err << "wsim replay: cannot write the failure bundle: " << error << "\n";
    }
  }
  return exit_code(result.verdict);
}

int cmd_fuzz_seeds(const FuzzSeedsCommand& command, std::ostream& out, std::ostream& err) {
  const FuzzTarget* target = find_fuzz_target(command.target);
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  LoadedScenario loaded;
  std::string error;
  if (target == nullptr) {
    err << "wsim fuzz-seeds: unknown fuzz target '" << command.target << "'\n";
    return kExitUsage;
  }
  if (!parse_seed_range(command.seeds, first, last, 1'000'000, error) ||
      !fuzz_target_scenario(*target, loaded, error)) {
    err << "wsim fuzz-seeds: " << error << "\n";
    return kExitUsage;
  }
  std::error_code ec;
  std::filesystem::create_directories(command.out_dir, ec);
  int written = 0;
  for (std::uint64_t seed = first;; ++seed) {
    loaded.scenario.set_seed(seed);
    RunOptions options;
    options.record_choices = true;
    options.events_max = kFuzzEventsMax;
    const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
    const std::vector<std::uint8_t> bytes = bytes_of_record(result.record, command.max_bytes);
    // A cut input continues with the random tail, not with the seed's run: keep it only if the
    // input itself passes (a canary must still find its bug by mutation).
    if (result.verdict == Verdict::kPass &&
        execute_run(*loaded.system, loaded.scenario, fuzz_run_options(bytes)).verdict ==
            Verdict::kPass) {
      std::ofstream file(std::filesystem::path(command.out_dir) / ("seed-" + std::to_string(seed)),
                         std::ios::binary);
      file.write(reinterpret_cast<const char*>(bytes.data()),
                 static_cast<std::streamsize>(bytes.size()));
      ++written;
    }
    if (seed == last) break;
  }
  out << written << " passing seed runs of " << target->name << " written to " << command.out_dir
      << "\n";
  return kExitPass;
}

}  // namespace wsim::run
