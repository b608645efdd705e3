// The findings tally (hunt_tally.h): the workers' run lines added up into findings with their
// smallest seed, the complete-below mark, probe hits and the decision to stop.
#include "sim/search/hunt_tally.h"

#include <algorithm>
#include <memory>

#include "sim/core/assert.h"
#include "sim/core/sim.h"
#include "sim/run/amplifiers.h"

namespace wsim::run {

HuntTally::HuntTally(const HuntOptions& options, HuntResult& result)
    : options_(options), result_(result) {
  WSIM_ASSERT(options.system != nullptr);
  WSIM_ASSERT(!options.unmasked || options.known != nullptr);
  // Every declared probe, so the report also lists the ones no run reached.
  Sim dummy(ChoiceSource::from_seed(0));
  std::unique_ptr<SystemRun> run = options.system->create(dummy, options.scenario);
  for (const Probe& probe : dummy.probes().sorted()) probes_[probe.name] = probe;
}

void HuntTally::mark_done(std::uint64_t local) {
  WSIM_ASSERT(local >= done_below_);
  WSIM_ASSERT(done_ahead_.count(local) == 0);
  done_ahead_.insert(local);
  while (!done_ahead_.empty() && *done_ahead_.begin() == done_below_) {
    done_ahead_.erase(done_ahead_.begin());
    ++done_below_;
  }
}

bool HuntTally::record_run(std::uint64_t local, std::uint64_t seed,
                           std::optional<std::uint64_t> swarm_seed,
                           const std::vector<RunFinding>& findings) {
  mark_done(local);
  ++result_.runs;
  bool failed = false;
  bool stop = false;
  for (const RunFinding& finding : findings) {
    if (finding.verdict == Verdict::kPass) continue;
    failed = true;
    stop =
        record_failure(seed, swarm_seed, finding.verdict, finding.invariant, finding.known, "") ||
        stop;
  }
  if (failed) ++result_.failures;
  return stop;
}

bool HuntTally::record_crash(std::uint64_t local, std::uint64_t seed, const std::string& message) {
  mark_done(local);
  ++result_.failures;
  return record_failure(seed, std::nullopt, Verdict::kHarnessError, "crash", "-", message);
}

void HuntTally::add_probe_hits(const std::string& name, std::uint64_t hits) {
  Probe& probe = probes_[name];
  probe.name = name;
  probe.hits += hits;
}

void HuntTally::finish() {
  WSIM_ASSERT(result_.probes.empty());
  std::stable_sort(result_.findings.begin(), result_.findings.end(), finding_order);
  finding_by_kind_.clear();
  result_.complete_below = shard_run_index(options_.shard, done_below_);
  if (options_.runs) result_.complete_below = std::min(result_.complete_below, *options_.runs);
  for (auto& [name, probe] : probes_) result_.probes.push_back(std::move(probe));
  probes_.clear();
}

// What the failing run of `seed` amplified: a run that amplified nothing makes the row
// realistic; each amplifier it kept at production is one the row's bug may not need.
void HuntTally::note_amplifiers(Finding& found, std::uint64_t seed,
                                std::optional<std::uint64_t> swarm_seed) const {
  const proto::Scenario scenario = hunt_run_scenario(options_, seed, swarm_seed);
  const std::vector<Amplifier> amplified = amplified_in(scenario, *options_.system);
  if (amplified.empty()) {
    ++found.production_runs;
    if (!found.production_seed || seed < *found.production_seed) found.production_seed = seed;
  }
  const std::vector<Amplifier> all = options_.system->amplifiers();
  std::map<std::string, std::uint64_t> at_production;
  for (const Amplifier& amplifier : all) {
    const bool was_amplified =
        std::any_of(amplified.begin(), amplified.end(),
                    [&](const Amplifier& a) { return a.name == amplifier.name; });
    if (!was_amplified) at_production.emplace(amplifier.name, seed);
  }
  merge_failed_without(found.failed_without, at_production);
  WSIM_ASSERT(!amplified.empty() || (found.production_seed && *found.production_seed <= seed));
  WSIM_ASSERT_LE(found.failed_without.size(), all.size());
}

// A known finding of an unmasked hunt does not stop it.
bool HuntTally::record_failure(std::uint64_t seed, std::optional<std::uint64_t> swarm_seed,
                               Verdict verdict, const std::string& kind, const std::string& label,
                               const std::string& message) {
  WSIM_ASSERT(verdict != Verdict::kPass);
  const auto key = std::make_tuple(static_cast<int>(verdict), kind, label);
  auto it = finding_by_kind_.find(key);
  if (it == finding_by_kind_.end()) {
    it = finding_by_kind_.emplace(key, result_.findings.size()).first;
    Finding finding;
    finding.seed = seed;
    finding.swarm_seed = swarm_seed;
    finding.verdict = verdict;
    finding.invariant = kind;
    finding.message = message;
    finding.labelled = options_.unmasked && label != "-";
    if (finding.labelled && label != "NEW") finding.known = label;
    result_.findings.push_back(std::move(finding));
  }
  Finding& found = result_.findings[it->second];
  ++found.count;
  if (kind != "crash") note_amplifiers(found, seed, swarm_seed);
  if (seed < found.seed) {
    found.seed = seed;
    found.swarm_seed = swarm_seed;
    if (!message.empty()) found.message = message;
  }
  const bool wanted = (options_.until_invariant.empty() || kind == options_.until_invariant) &&
                      (options_.until_labels.empty() ||
                       std::find(options_.until_labels.begin(), options_.until_labels.end(),
                                 label) != options_.until_labels.end());
  const bool is_new = !options_.unmasked || label == "NEW" || label == "-";
  return !options_.keep_going && wanted && (is_new || !options_.until_invariant.empty());
}

}  // namespace wsim::run
