// The tape shrinker (shrink.h: shrink_run) and the external events of a trace.
#include "sim/search/shrink.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <tuple>

#include <google/protobuf/text_format.h>

#include "sim/core/assert.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/trace_view.h"
#include "sim/search/scenario_flags.h"

namespace wsim::run {

namespace {

std::vector<std::uint64_t> normalized(std::vector<std::uint64_t> tape) {
  while (!tape.empty() && tape.back() == 0) tape.pop_back();
  return tape;
}

std::size_t nonzero(const std::vector<std::uint64_t>& tape) {
  return static_cast<std::size_t>(
      std::count_if(tape.begin(), tape.end(), [](std::uint64_t v) { return v != 0; }));
}

// Shortlex: shorter first, then lexicographically smaller.
bool simpler(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

// A replay of `tape` that records its choices, keeps its trace and is labelled against `known`
// (when not null).
RunOptions replay_options(const std::vector<std::uint64_t>& tape, std::uint64_t events_max,
                          const std::vector<KnownBug>* known) {
  RunOptions options;
  options.tape = tape;
  options.record_choices = true;
  options.keep_trace = true;
  options.events_max = events_max;
  options.known = known;
  return options;
}

class Shrinker {
 public:
  Shrinker(const System& system, const ShrinkOptions& options)
      : system_(system), options_(options) {}

  // Runs the candidate; keeps it when it fails with the same invariant and is simpler.
  bool try_candidate(const proto::Scenario& scenario, const std::vector<std::uint64_t>& tape) {
    if (runs_ >= options_.max_runs) {
      exhausted_ = true;
      return false;
    }
    ++runs_;
    RunOptions run_options = replay_options(tape, options_.events_max, options_.known);
    run_options.keep_trace = options_.known != nullptr;  // Only to label: candidates are many.
    const RunResult result = execute_run(system_, scenario, run_options);
    if (!same_failure(result)) return false;
    std::vector<std::uint64_t> next = normalized(tape_of(result.record));
    const bool fewer_events = scenario.events_size() < scenario_.events_size();
    if (!fewer_events && !simpler(next, tape_)) return false;
    scenario_ = scenario;
    tape_ = std::move(next);
    return true;
  }

  bool same_failure(const RunResult& result) const {
    return result.verdict == verdict_ && result.violation &&
           result.violation->invariant_id == invariant_ &&
           (options_.known == nullptr || (result.labelled && result.known == known_));
  }

  bool budget_left() const { return runs_ < options_.max_runs; }

  // Drops scripted events: chunks of n/2, n/4, ... 1.
  bool pass_events() {
    bool any = false;
    for (int chunk = std::max(1, scenario_.events_size() / 2); chunk >= 1; chunk /= 2) {
      for (int start = 0; start < scenario_.events_size() && budget_left();) {
        proto::Scenario candidate = scenario_;
        candidate.clear_events();
        for (int i = 0; i < scenario_.events_size(); ++i) {
          if (i < start || i >= start + chunk) *candidate.add_events() = scenario_.events(i);
        }
        if (try_candidate(candidate, tape_)) {
          any = true;  // Same start: the next chunk moved into place.
        } else {
          start += chunk;
        }
      }
      if (chunk == 1) break;
    }
    return any;
  }

  // The shortest prefix that still fails (binary search; not monotonic in general, so it is a
  // heuristic, and the kept result is always a verified failure).
  bool pass_truncate() {
    bool any = false;
    std::size_t lo = 0;
    std::size_t hi = tape_.size();
    while (lo < hi && budget_left()) {
      const std::size_t mid = lo + (hi - lo) / 2;
      std::vector<std::uint64_t> candidate(tape_.begin(), tape_.begin() + mid);
      if (try_candidate(scenario_, candidate)) {
        any = true;
        hi = std::min(mid, tape_.size());
      } else {
        lo = mid + 1;
      }
    }
    return any;
  }

  // Zeroes (or deletes) spans, coarse to fine. Spans that are already all zero are skipped.
  bool pass_spans(bool remove, std::size_t smallest) {
    bool any = false;
    std::size_t block = 1;
    while (block * 2 <= tape_.size() / 2) block *= 2;
    for (; block >= smallest && budget_left(); block /= 2) {
      for (std::size_t start = 0; start < tape_.size() && budget_left();) {
        const std::size_t end = std::min(tape_.size(), start + block);
        const bool all_zero =
            std::all_of(tape_.begin() + start, tape_.begin() + end, [](auto v) { return v == 0; });
        if (all_zero && !remove) {
          start = end;
          continue;
        }
        std::vector<std::uint64_t> candidate = tape_;
        if (remove) {
          candidate.erase(candidate.begin() + start, candidate.begin() + end);
        } else {
          std::fill(candidate.begin() + start, candidate.begin() + end, 0);
        }
        if (try_candidate(scenario_, candidate)) {
          any = true;
          if (!remove) start = end;  // Deleted: the same start now holds what followed.
        } else {
          start = end;
        }
      }
      if (block == 1) break;
    }
    return any;
  }

  // Lowers single non-zero values: to half, then by one.
  bool pass_lower() {
    bool any = false;
    for (std::size_t i = 0; i < tape_.size() && budget_left(); ++i) {
      if (tape_[i] <= 1) continue;  // 1 → 0 is the zero pass's job.
      std::vector<std::uint64_t> candidate = tape_;
      candidate[i] = tape_[i] / 2;
      if (try_candidate(scenario_, candidate)) {
        any = true;
        continue;
      }
      candidate[i] = tape_[i] - 1;
      if (try_candidate(scenario_, candidate)) any = true;
    }
    return any;
  }

  void report(const char* pass) {
    if (options_.progress == nullptr) return;
    *options_.progress << "shrink: " << std::left << pass << " → " << tape_.size() << " choices ("
                       << nonzero(tape_) << " non-zero), " << scenario_.events_size()
                       << " scripted events, " << runs_ << " runs\n";
    options_.progress->flush();
  }

  const System& system_;
  const ShrinkOptions& options_;
  proto::Scenario scenario_;
  std::vector<std::uint64_t> tape_;
  Verdict verdict_ = Verdict::kPass;
  std::string invariant_;
  std::string known_;  // The original run's label, with ShrinkOptions::known.
  std::uint64_t runs_ = 0;
  bool exhausted_ = false;
};

// The passes (shrink.h), repeated until none helps or the budget is spent.
void run_passes(Shrinker& shrinker) {
  // Coarse spans first (a 10 000-choice tape would otherwise spend the budget on single
  // choices); finer once the coarse passes stop helping.
  std::size_t granularity = 64;
  bool progress = true;
  while (progress && shrinker.budget_left()) {
    progress = false;
    const auto size_before = std::make_tuple(shrinker.scenario_.events_size(),
                                             shrinker.tape_.size(), nonzero(shrinker.tape_));
    const std::size_t smallest = std::max<std::size_t>(1, shrinker.tape_.size() / granularity);
    if (shrinker.scenario_.events_size() > 0 && shrinker.pass_events()) {
      progress = true;
      shrinker.report("events");
    }
    if (shrinker.pass_truncate()) {
      progress = true;
      shrinker.report("truncate");
    }
    if (shrinker.pass_spans(false, smallest)) {
      progress = true;
      shrinker.report("zero");
    }
    if (shrinker.pass_spans(true, smallest)) {
      progress = true;
      shrinker.report("delete");
    }
    if (!progress && smallest > 1) {
      granularity *= 8;
      progress = true;
      continue;
    }
    if (!progress) {
      // Finest granularity and nothing helped: lower single values once; go on only if that
      // made the run smaller in events, length or non-zero choices (not just lower values).
      if (shrinker.pass_lower()) shrinker.report("lower");
      progress = std::make_tuple(shrinker.scenario_.events_size(), shrinker.tape_.size(),
                                 nonzero(shrinker.tape_)) < size_before;
    }
  }
}

}  // namespace

std::vector<TraceEvent> external_events(const System& system,
                                        const std::vector<TraceEvent>& trace) {
  // (actor, action) of the catalog; a trace event matches when its actor (up to '/') is the
  // actor and its verb is the action, the action's first word ("delete" of delete_namespace), or
  // the action with a suffix ("start-reply" of start).
  const std::vector<ActionInfo> catalog = system.actions();
  auto matches = [&](const TraceEvent& event) {
    const std::string actor = event.actor.substr(0, event.actor.find('/'));
    for (const ActionInfo& info : catalog) {
      if (info.actor != actor) continue;
      const std::string& action = info.action;
      const std::string& verb = event.verb;
      if (verb == action) return true;
      if (action.size() > verb.size() && action.compare(0, verb.size(), verb) == 0 &&
          action[verb.size()] == '_') {
        return true;
      }
      if (verb.size() > action.size() && verb.compare(0, action.size(), action) == 0 &&
          verb[action.size()] == '-') {
        return true;
      }
    }
    return false;
  };
  std::vector<TraceEvent> out;
  for (const TraceEvent& event : trace) {
    if (is_scripted_marker(event)) continue;
    if (matches(event)) out.push_back(event);
  }
  return out;
}

std::string render_events(const std::vector<TraceEvent>& events) {
  std::ostringstream out;
  for (const TraceEvent& event : events) {
    out << "  " << std::right << std::setw(14) << format_duration_ms(event.time_ms) << "  "
        << std::left << std::setw(10) << event.actor << " " << std::setw(18) << event.verb << " "
        << event.object << (event.result.empty() ? "" : "  (" + event.result + ")") << "\n";
  }
  return out.str();
}

ShrinkResult shrink_run(const System& system, const proto::Scenario& scenario,
                        const std::vector<std::uint64_t>& tape, const ShrinkOptions& options) {
  ShrinkResult out;
  Shrinker shrinker(system, options);

  // The original run: it must fail with a violation.
  const RunResult first =
      execute_run(system, scenario, replay_options(tape, options.events_max, options.known));
  out.runs = 1;
  if ((first.verdict != Verdict::kSafety && first.verdict != Verdict::kLiveness) ||
      !first.violation) {
    out.error = std::string("the run does not fail with a violation (verdict ") +
                verdict_name(first.verdict) + "): nothing to shrink";
    return out;
  }
  out.verdict = first.verdict;
  out.invariant = first.violation->invariant_id;
  shrinker.verdict_ = first.verdict;
  shrinker.invariant_ = out.invariant;
  out.labelled = options.known != nullptr;
  out.known = first.known;
  shrinker.known_ = first.known;
  shrinker.scenario_ = scenario;
  shrinker.tape_ = normalized(tape_of(first.record));
  out.choices_before = shrinker.tape_.size();
  out.nonzero_before = nonzero(shrinker.tape_);
  out.scripted_before = scenario.events_size();
  out.external_before = external_events(system, first.trace).size();

  run_passes(shrinker);

  out.run = execute_run(system, shrinker.scenario_,
                        replay_options(shrinker.tape_, options.events_max, options.known));
  out.runs = shrinker.runs_ + 2;
  out.ok = shrinker.same_failure(out.run);
  if (!out.ok) out.error = "the shrunk run no longer fails the same way (nondeterminism?)";
  out.budget_exhausted = shrinker.exhausted_ || !shrinker.budget_left();
  out.scenario = shrinker.scenario_;
  out.tape = shrinker.tape_;
  out.choices_after = shrinker.tape_.size();
  out.nonzero_after = nonzero(shrinker.tape_);
  out.scripted_after = shrinker.scenario_.events_size();
  out.external_after = external_events(system, out.run.trace).size();
  return out;
}

}  // namespace wsim::run
