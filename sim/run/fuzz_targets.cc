#include "sim/run/fuzz_targets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "sim/core/choice.h"
#include "sim/run/bundle.h"
#include "sim/run/corpus_bugs.h"
#include "sim/run/duration.h"

namespace wsim::run {

namespace {

// Shorter phases than the systems' defaults: one execution must cost milliseconds. The gitlab
// targets also shrink the full-sync interval (1 h → 10 min; the settle is 3 full + 10 partial
// intervals, so it still spans the FULL cycles L2 needs, and costs a sixth). The guards ran with
// the real 1 h interval until 2026-11-22: with 10 min they had tripped gitlab.L5 in 4 of 400
// seeds, a checker flaw since fixed (eae60cd, corpus/README.md); re-checked with 10 min: A3+R3
// unique 3,000 runs clean, shared 2,000 runs with only the known S11. 2.2× the executions/s.
const std::vector<std::pair<std::string, std::string>> kGitlabFast = {{"fault_phase_ms", "20m"},
                                                                      {"full_interval_ms", "10m"}};
const std::vector<std::pair<std::string, std::string>> kGitpodFast = {{"fault_phase_ms", "30m"},
                                                                      {"settle_ms", "40m"}};

// The toy's actors think 30 ms at least: a 2 min fault phase is ~360 000 events.
const std::vector<std::pair<std::string, std::string>> kToyFast = {{"fault_phase_ms", "10s"}};

std::vector<std::pair<std::string, std::string>> with(
    std::vector<std::pair<std::string, std::string>> base,
    std::vector<std::pair<std::string, std::string>> more) {
  for (auto& field : more) base.push_back(std::move(field));
  return base;
}

std::vector<FuzzTarget> make_targets() {
  std::vector<FuzzTarget> targets = {
      {"gitlab_limbo_canary",
       true,
       "gitlab",
       with({{"agent", "A0a"}, {"rails", "R1"}}, kGitlabFast),
       {"gitlab.L1", "gitlab.L2"},
       "gitlab#411205 (seed 000): corpus/regressions/gitlab/limbo-411205.textproto",
       {}},
      // The guards keep the known Rails race out of reach (a 1 ms finder-to-touch gap and Rails
      // clock): a user action between a finder and its touch, or in the same clock tick, is
      // swallowed by the partial protocol in every version (gitlab.S14; corpus
      // swallowed-user-action, timestamp-tie, tie-after-full-sync), as in the scenario
      // properties (tests/run/scenario_prop_test.cc). Everything else stays in reach.
      {"gitlab_guard",
       false,
       "gitlab",
       with({{"agent", "A3"},
             {"rails", "R3"},
             {"namespace_mode", "unique"},
             {"rails_touch_gap_max_ms", "1"},
             {"rails_clock_granularity_ms", "1"}},
            kGitlabFast),
       {},
       "latest agent and Rails, unique namespaces",
       {}},
      // Known bugs of shared mode (kubectl deleting inventory ConfigMaps: gitlab.S11, corpus
      // shared-missing-inventory / shared-partial-inventory-loss) are corpus signatures now.
      {"gitlab_shared_guard",
       false,
       "gitlab",
       with({{"agent", "A3"},
             {"rails", "R3"},
             {"namespace_mode", "shared"},
             {"rails_touch_gap_max_ms", "1"},
             {"rails_clock_granularity_ms", "1"}},
            kGitlabFast),
       {},
       "latest agent and Rails, one shared namespace",
       {}},
      {"gitpod_canary",
       true,
       "gitpod",
       with({{"manager", "mk2"}, {"fixes", "16622,16997,17599,19411,20243,20382"}}, kGitpodFast),
       {"gitpod.S3"},
       "B9 #20243 without #20372 "
       "(corpus/regressions/gitpod/reject-after-ready-20243-without-20372.textproto)",
       // Forced on (the swarm enables it in 1 run of N): the fuzzer still has to make it fire
       // on a running pod, and the manager take the wrong branch.
       {"gitpod.kubelet.reject_after_ready"}},
      // Latest mk2: its open bugs (B2, B3/B6, B4/B5/B12, B15; corpus/gitpod-findings.md) are
      // corpus signatures, so a NEW bug with the same invariant id still fails the target.
      // Untriaged and so NOT known: L3 after two lost Delete(CR) requests (hunt seed 608).
      {"gitpod_guard",
       false,
       "gitpod",
       with({{"manager", "mk2"}}, kGitpodFast),
       {},
       "latest mk2 with every fix; the corpus's known bugs go past",
       {}},
      {"toy_canary",
       true,
       "toy",
       with({{"version", "buggy"}}, kToyFast),
       {"toy.S1"},
       "planted lost update (model/toy/toy.h)",
       {}},
      {"toy_guard", false, "toy", with({{"version", "T1"}}, kToyFast), {}, "toy T1 (correct)", {}},
  };
  std::sort(targets.begin(), targets.end(),
            [](const FuzzTarget& a, const FuzzTarget& b) { return a.name < b.name; });
  return targets;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& fast_phase_fields(
    const std::string& system) {
  static const std::vector<std::pair<std::string, std::string>> kNone;
  if (system == "gitlab") return kGitlabFast;
  if (system == "gitpod") return kGitpodFast;
  if (system == "toy") return kToyFast;
  return kNone;
}

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> targets = make_targets();
  return targets;
}

const FuzzTarget* find_fuzz_target(const std::string& name) {
  for (const FuzzTarget& target : fuzz_targets()) {
    if (target.name == name) return &target;
  }
  return nullptr;
}

bool fuzz_target_scenario(const FuzzTarget& target, LoadedScenario& loaded, std::string& error) {
  if (!scenario_for_system(target.system, loaded, error)) return false;
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
  return validate_scenario(loaded, error);
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
  // A canary reports only its own bug (other violations of an old version are the guards' and
  // the corpus's business); a guard reports everything but the corpus's known bugs.
  if (target.canary)
    return std::find(target.bugs.begin(), target.bugs.end(), id) != target.bugs.end();
  return !(result.labelled && !result.known.empty());
}

RunResult fuzz_execute(const FuzzTarget& target, const LoadedScenario& loaded,
                       std::span<const std::uint8_t> bytes, const std::vector<KnownBug>& known) {
  if (target.canary) return execute_run(*loaded.system, loaded.scenario, fuzz_run_options(bytes));
  return execute_run_with_known(*loaded.system, loaded.scenario, fuzz_run_options(bytes), known);
}

int cmd_replay_fuzz_input(const std::string& target_name, const ReplayCommand& command,
                          std::ostream& out, std::ostream& err, const std::string& known_dir) {
  const FuzzTarget* target = find_fuzz_target(target_name);
  if (target == nullptr) {
    std::string names;
    for (const FuzzTarget& t : fuzz_targets()) names += (names.empty() ? "" : ", ") + t.name;
    err << "wsim replay: unknown fuzz target '" << target_name << "' (targets: " << names << ")\n";
    return kExitUsage;
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(command.path, ec);
  if (ec || std::filesystem::is_directory(command.path, ec)) {
    err << "wsim replay: " << command.path << ": not a readable file\n";
    return kExitUsage;
  }
  if (size > kFuzzInputBytesMax) {
    err << "wsim replay: " << command.path << ": " << size << " bytes, more than the "
        << kFuzzInputBytesMax << " a fuzzer input may have\n";
    return kExitUsage;
  }
  std::ifstream in(command.path, std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                        std::istreambuf_iterator<char>()};
  if (!in.good() && !in.eof()) {
    err << "wsim replay: " << command.path << ": read error\n";
    return kExitUsage;
  }
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

std::vector<std::uint8_t> bytes_of_record(const std::vector<Choice>& record,
                                          std::size_t max_bytes) {
  std::vector<std::uint8_t> out;
  for (const Choice& choice : record) {
    int width = 0;
    for (std::uint64_t rest = choice.bound - 1; rest != 0; rest >>= 8) ++width;
    for (int i = 0; i < width; ++i) {
      if (out.size() >= max_bytes) return out;
      out.push_back(static_cast<std::uint8_t>((choice.value >> (8 * i)) & 0xff));
    }
  }
  return out;
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
