// The tape shrinker (shrink.h: shrink_run) and the external events of a trace.
#include "sim/search/shrink.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <optional>
#include <set>
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
  if (!tape.empty()) WSIM_ASSERT_NE(tape.back(), 0u);  // Trailing zeros replay as the tape's end.
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
  WSIM_ASSERT_GT(events_max, 0u);
  RunOptions options;
  options.tape = tape;
  options.record_choices = true;
  options.keep_trace = true;
  options.events_max = events_max;
  options.known = known;
  return options;
}

// A kept run's size. The search keeps a candidate when it is smaller in the order (scripted
// events, normalized tape shortlex, fault phase); the result is the kept run with the fewest
// (scripted events, external events), the latest on ties (shrink.h).
struct RunSize {
  int scripted = 0;
  int muted = 0;  // Muted actors (more is smaller: the world has fewer actors).
  std::size_t external = 0;
  std::vector<std::uint64_t> tape;
  std::int64_t phase_ms = 0;
};

bool smaller(const RunSize& a, const RunSize& b) {
  if (a.scripted != b.scripted) return a.scripted < b.scripted;
  if (a.muted != b.muted) return a.muted > b.muted;
  if (a.tape != b.tape) return simpler(a.tape, b.tape);
  return a.phase_ms < b.phase_ms;
}

bool no_more_events(const RunSize& a, const RunSize& b) {
  return std::make_pair(a.scripted, a.external) <= std::make_pair(b.scripted, b.external);
}

class Shrinker {
 public:
  Shrinker(const System& system, const ShrinkOptions& options)
      : system_(system), options_(options), externals_(external_actors_of(system)) {}

  // The fault phase a scenario runs (0 = the system's default).
  std::int64_t phase_of(const proto::Scenario& scenario) const {
    const std::int64_t phase_ms = scenario.fault_phase_ms() > 0 ? scenario.fault_phase_ms()
                                                                : system_.default_fault_phase_ms();
    WSIM_ASSERT_GT(phase_ms, 0);
    return phase_ms;
  }

  RunSize size_of(const proto::Scenario& scenario, const RunResult& result) const {
    RunSize size;
    size.scripted = scenario.events_size();
    size.muted = scenario.muted_actors_size();
    size.external = external_events(system_, result.trace).size();
    size.tape = normalized(tape_of(result.record));
    size.phase_ms = phase_of(scenario);
    WSIM_ASSERT_LE(size.tape.size(), result.record.size());  // normalized() only drops zeros.
    return size;
  }

  // Runs the candidate; keeps it when it fails the same way and is smaller (RunSize).
  bool try_candidate(const proto::Scenario& scenario, const std::vector<std::uint64_t>& tape) {
    return try_run(scenario, replay_options(tape, options_.events_max, options_.known));
  }

  // Runs `scenario` with `options` (a replay that records its choices and keeps its trace); keeps
  // it as try_candidate does. The kept tape is the run's own record, so a keyed replay is kept as
  // the plain tape that replays it. `kept` receives the run when it is kept.
  bool try_run(const proto::Scenario& scenario, const RunOptions& options,
               RunResult* kept = nullptr) {
    WSIM_ASSERT(options.record_choices && options.keep_trace);
    if (runs_ >= options_.max_runs) {
      exhausted_ = true;
      return false;
    }
    ++runs_;
    // The trace is kept to count external events (and to label, with known bugs).
    RunResult result = execute_run(system_, scenario, options);
    if (!same_failure(result)) return false;
    RunSize next = size_of(scenario, result);
    if (!smaller(next, size_)) return false;
    scenario_ = scenario;
    size_ = std::move(next);
    if (no_more_events(size_, best_size_)) {
      best_scenario_ = scenario_;
      best_size_ = size_;
    }
    // The result has no more (scripted, external) events than any kept run.
    WSIM_ASSERT(no_more_events(best_size_, size_));
    WSIM_ASSERT_LE(runs_, options_.max_runs);
    if (kept != nullptr) *kept = std::move(result);
    return true;
  }

  // Mutes whole external actors (docs/shrinking.md "Muting actors"): each candidate is the kept
  // scenario with one more of them muted, replayed from the kept run's choices per actor minus
  // the muted actor's, so every other actor draws what it drew before. Candidates are the
  // external actors that drew choices in the kept run (so muting one changes the run), the most
  // choices first, ties by name.
  bool pass_mute() {
    std::optional<RunResult> first = kept_with_actors();
    if (!first) return false;
    RunResult kept = std::move(*first);
    bool any = false;
    for (const std::string& actor : mute_candidates(kept)) {
      WSIM_ASSERT(!actor.empty());
      if (!budget_left()) break;
      proto::Scenario candidate = scenario_;
      candidate.add_muted_actors(actor);
      ChoiceSource::KeyedTape tape = keyed_tape_of(kept);
      std::erase_if(tape, [&](const auto& entry) { return name_of_key(entry.first) == actor; });
      if (try_run(candidate, keyed_replay(std::move(tape)), &kept)) any = true;
    }
    return any;
  }

  // The kept run again, recording which actor drew each choice (one run).
  std::optional<RunResult> kept_with_actors() {
    if (!budget_left()) return std::nullopt;
    ++runs_;
    RunOptions options = replay_options(tape(), options_.events_max, options_.known);
    options.record_choice_actors = true;
    RunResult kept = execute_run(system_, scenario_, options);
    if (!same_failure(kept)) return std::nullopt;  // Cannot happen for a kept run (determinism).
    WSIM_ASSERT_EQ(kept.record_actors.size(), kept.record.size());  // One key per choice.
    return kept;
  }

  // Deletes spans of ONE external actor's own choices (halves, quarters, ... single choices),
  // each actor in mute_candidates order: the candidate replays every other actor's choices as
  // they were (a keyed tape), so a workspace's user loses a few of its actions while the faults,
  // the controllers' timings and the other users stay put. (A plain tape's delete pass shifts
  // everything after the span; zeroing a user's choices makes it busier, not quieter.)
  // Coarse first, as the plain span passes: spans no shorter than 1/granularity of the actor's
  // choices.
  bool pass_actor_spans(std::size_t granularity) {
    std::optional<RunResult> kept = kept_with_actors();
    if (!kept) return false;
    bool any = false;
    ChoiceSource::KeyedTape base = keyed_tape_of(*kept);  // Follows `kept`.
    for (const std::string& actor : external_keys(*kept)) {
      const std::size_t smallest = std::max<std::size_t>(1, base[actor].size() / granularity);
      for (std::size_t block = std::max<std::size_t>(1, base[actor].size() / 2);
           block >= smallest && budget_left(); block /= 2) {
        for (std::size_t start = 0; start < base[actor].size() && budget_left();) {
          ChoiceSource::KeyedTape tape = base;
          std::vector<std::uint64_t>& own = tape[actor];
          const std::size_t end = std::min(own.size(), start + block);
          WSIM_ASSERT_LT(start, end);  // A span is never empty (block >= 1).
          own.erase(own.begin() + static_cast<std::ptrdiff_t>(start),
                    own.begin() + static_cast<std::ptrdiff_t>(end));
          if (try_run(scenario_, keyed_replay(std::move(tape)), &*kept)) {
            any = true;  // The same start now holds what followed the span.
            base = keyed_tape_of(*kept);
          } else {
            start = end;
          }
        }
        if (block == 1) break;
      }
    }
    return any;
  }

  // A kept run's choices per key (it was run with record_choice_actors).
  static ChoiceSource::KeyedTape keyed_tape_of(const RunResult& run) {
    return wsim::keyed_tape_of(run.record, run.record_actors, run.record_actor_names);
  }

  // A replay of `tape` per key that records its choices with their keys and keeps its trace.
  RunOptions keyed_replay(ChoiceSource::KeyedTape tape) const {
    RunOptions options = replay_options({}, options_.events_max, options_.known);
    options.tape.reset();
    options.keyed_tape = std::move(tape);
    options.record_choice_actors = true;
    return options;
  }

  // The actor name of a choice key ("user/ws1#3" → "user/ws1"; EventLoop::actor_key).
  static std::string name_of_key(const std::string& key) {
    WSIM_ASSERT(!key.empty());  // EventLoop::actor_key or "-".
    const std::size_t hash = key.rfind('#');
    return hash == std::string::npos ? key : key.substr(0, hash);
  }

  // The keys of the kept run's external, unmuted actors that drew choices, the most choices
  // first, ties by key.
  std::vector<std::string> external_keys(const RunResult& kept) const {
    WSIM_ASSERT_EQ(kept.record_actors.size(), kept.record.size());
    std::vector<std::size_t> draws(kept.record_actor_names.size(), 0);
    for (std::uint32_t key : kept.record_actors) {
      WSIM_ASSERT_LT(key, draws.size());  // Paired with ChoiceSource::current_key_index.
      ++draws[key];
    }
    std::vector<std::pair<std::size_t, std::string>> order;
    for (std::size_t key = 0; key < draws.size(); ++key) {
      const std::string name = name_of_key(kept.record_actor_names[key]);
      const bool muted = std::find(scenario_.muted_actors().begin(), scenario_.muted_actors().end(),
                                   name) != scenario_.muted_actors().end();
      if (!muted && externals_.contains(name.substr(0, name.find('/')))) {
        order.emplace_back(draws[key], kept.record_actor_names[key]);
      }
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<std::string> keys;
    for (auto& entry : order) keys.push_back(std::move(entry.second));
    return keys;
  }

  // The actor names of external_keys, each once, in that order.
  std::vector<std::string> mute_candidates(const RunResult& kept) const {
    std::vector<std::string> names;
    const std::vector<std::string> keys = external_keys(kept);
    for (const std::string& key : keys) {
      std::string name = name_of_key(key);
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(std::move(name));
      }
    }
    WSIM_ASSERT_LE(names.size(), keys.size());
    return names;
  }

  bool same_failure(const RunResult& result) const {
    return result.verdict == verdict_ && result.violation &&
           result.violation->invariant_id == invariant_ &&
           (options_.known == nullptr || (result.labelled && result.known == known_));
  }

  bool budget_left() const { return runs_ < options_.max_runs; }
  const std::vector<std::uint64_t>& tape() const { return size_.tape; }

  // Drops whole groups of scripted events (event_groups: a workspace's, an actor's): one round.
  bool pass_groups() {
    const int before = scenario_.events_size();
    drop_event_groups(scenario_,
                      [&](proto::Scenario& candidate) { return try_candidate(candidate, tape()); });
    WSIM_ASSERT_LE(scenario_.events_size(), before);  // A kept scenario never gains events.
    return scenario_.events_size() < before;
  }

  // Drops scripted events: chunks of n/2, n/4, ... 1.
  bool pass_events() {
    bool any = false;
    for (int chunk = std::max(1, scenario_.events_size() / 2); chunk >= 1; chunk /= 2) {
      for (int start = 0; start < scenario_.events_size() && budget_left();) {
        std::vector<int> drop;
        for (int i = start; i < std::min(scenario_.events_size(), start + chunk); ++i) {
          drop.push_back(i);
        }
        WSIM_ASSERT(!drop.empty());
        if (try_candidate(without_events(scenario_, drop), tape())) {
          any = true;  // Same start: the next chunk moved into place.
        } else {
          start += chunk;
        }
      }
      if (chunk == 1) break;
    }
    return any;
  }

  // The shortest fault phase, in whole seconds, that still fails (binary search: a heuristic, as
  // for the tape prefix). The random workload and faults stop at the end of the fault phase, so a
  // violation that needs only the first minutes loses the actions after them.
  bool pass_phase() {
    bool any = false;
    // Not before the last scripted event (a scenario's events lie in its fault phase).
    std::int64_t last_ms = 0;
    for (const proto::ScriptedEvent& event : scenario_.events()) {
      last_ms = std::max<std::int64_t>(last_ms, event.at_ms());
    }
    std::int64_t lo = std::max<std::int64_t>(1, (last_ms + kSecondMs - 1) / kSecondMs);
    std::int64_t hi = size_.phase_ms / kSecondMs;
    WSIM_ASSERT_GE(lo, 1);
    while (lo < hi && budget_left()) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      WSIM_ASSERT_LT(mid, hi);  // Each candidate is shorter than the kept phase.
      proto::Scenario candidate = scenario_;
      candidate.set_fault_phase_ms(mid * kSecondMs);
      if (try_candidate(candidate, tape())) {
        any = true;
        hi = std::min(mid, size_.phase_ms / kSecondMs);
      } else {
        lo = mid + 1;
      }
    }
    return any;
  }

  // The shortest prefix that still fails (binary search; not monotonic in general, so it is a
  // heuristic, and the kept result is always a verified failure).
  bool pass_truncate() {
    bool any = false;
    std::size_t lo = 0;
    std::size_t hi = tape().size();
    while (lo < hi && budget_left()) {
      const std::size_t mid = lo + (hi - lo) / 2;
      WSIM_ASSERT_LT(mid, tape().size());  // A strict prefix.
      std::vector<std::uint64_t> candidate(tape().begin(), tape().begin() + mid);
      if (try_candidate(scenario_, candidate)) {
        any = true;
        hi = std::min(mid, tape().size());
      } else {
        lo = mid + 1;
      }
    }
    return any;
  }

  // Zeroes (or deletes) spans, coarse to fine. Spans that are already all zero are skipped.
  bool pass_spans(bool remove, std::size_t smallest) {
    WSIM_ASSERT_GE(smallest, 1u);
    bool any = false;
    std::size_t block = 1;
    while (block * 2 <= tape().size() / 2) block *= 2;
    for (; block >= smallest && budget_left(); block /= 2) {
      for (std::size_t start = 0; start < tape().size() && budget_left();) {
        const std::size_t end = std::min(tape().size(), start + block);
        WSIM_ASSERT_LT(start, end);
        const bool all_zero = std::all_of(tape().begin() + start, tape().begin() + end,
                                          [](auto v) { return v == 0; });
        if (all_zero && !remove) {
          start = end;
          continue;
        }
        std::vector<std::uint64_t> candidate = tape();
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
    for (std::size_t i = 0; i < tape().size() && budget_left(); ++i) {
      if (tape()[i] <= 1) continue;  // 1 → 0 is the zero pass's job.
      std::vector<std::uint64_t> candidate = tape();
      candidate[i] = tape()[i] / 2;
      WSIM_ASSERT_LT(candidate[i], tape()[i]);
      if (try_candidate(scenario_, candidate)) {
        any = true;
        continue;
      }
      candidate[i] = tape()[i] - 1;
      if (try_candidate(scenario_, candidate)) any = true;
    }
    return any;
  }

  void report(const char* pass) {
    if (options_.progress == nullptr) return;
    *options_.progress << "shrink: " << std::left << pass << " → " << size_.external
                       << " external events, " << tape().size() << " choices (" << nonzero(tape())
                       << " non-zero), " << scenario_.events_size() << " scripted events, " << runs_
                       << " runs\n";
    options_.progress->flush();
  }

  const System& system_;
  const ShrinkOptions& options_;
  const std::set<std::string, std::less<>> externals_;  // External actor prefixes (mutable ones).
  proto::Scenario scenario_;
  RunSize size_;
  // The kept run with the fewest (scripted, external) events: the result.
  proto::Scenario best_scenario_;
  RunSize best_size_;
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
    const RunSize size_before = shrinker.size_;
    const std::size_t smallest = std::max<std::size_t>(1, shrinker.tape().size() / granularity);
    if (shrinker.scenario_.events_size() > 1 && shrinker.pass_groups()) {
      progress = true;
      shrinker.report("groups");
    }
    if (shrinker.scenario_.events_size() > 0 && shrinker.pass_events()) {
      progress = true;
      shrinker.report("events");
    }
    if (shrinker.pass_phase()) {
      progress = true;
      shrinker.report("phase");
    }
    if (shrinker.pass_mute()) {
      progress = true;
      shrinker.report("mute");
    }
    if (shrinker.pass_actor_spans(granularity)) {
      progress = true;
      shrinker.report("actor");
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
    // The kept run only ever gets smaller (try_run keeps a candidate only then).
    WSIM_ASSERT(!smaller(size_before, shrinker.size_));
    if (!progress && smallest > 1) {
      granularity *= 8;
      progress = true;
      continue;
    }
    if (!progress) {
      // Finest granularity and nothing helped: lower single values once; go on only if that
      // made the run smaller in events, length or non-zero choices (not just lower values).
      if (shrinker.pass_lower()) shrinker.report("lower");
      const RunSize& now = shrinker.size_;
      progress = std::make_tuple(now.scripted, now.external, now.tape.size(), nonzero(now.tape)) <
                 std::make_tuple(size_before.scripted, size_before.external,
                                 size_before.tape.size(), nonzero(size_before.tape));
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
  WSIM_ASSERT_LE(out.size(), trace.size());
  return out;
}

std::string render_events(const std::vector<TraceEvent>& events) {
  std::ostringstream out;
  for (const TraceEvent& event : events) {
    WSIM_ASSERT_GE(event.time_ms, 0);
    out << "  " << std::right << std::setw(14) << format_duration_ms(event.time_ms) << "  "
        << std::left << std::setw(10) << event.actor << " " << std::setw(18) << event.verb << " "
        << event.object << (event.result.empty() ? "" : "  (" + event.result + ")") << "\n";
  }
  return out.str();
}

ShrinkResult shrink_run(const System& system, const proto::Scenario& scenario,
                        const std::vector<std::uint64_t>& tape, const ShrinkOptions& options) {
  WSIM_ASSERT_GT(options.events_max, 0u);
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
  shrinker.size_ = shrinker.size_of(scenario, first);
  shrinker.best_scenario_ = scenario;
  shrinker.best_size_ = shrinker.size_;
  out.choices_before = shrinker.tape().size();
  out.nonzero_before = nonzero(shrinker.tape());
  out.scripted_before = scenario.events_size();
  out.external_before = external_events(system, first.trace).size();

  run_passes(shrinker);

  // The result: the kept run with the fewest events (its own tape, replayed once more).
  const proto::Scenario& best = shrinker.best_scenario_;
  const std::vector<std::uint64_t>& best_tape = shrinker.best_size_.tape;
  out.run = execute_run(system, best, replay_options(best_tape, options.events_max, options.known));
  out.runs = shrinker.runs_ + 2;
  out.ok = shrinker.same_failure(out.run);
  if (!out.ok) out.error = "the shrunk run no longer fails the same way (nondeterminism?)";
  out.budget_exhausted = shrinker.exhausted_ || !shrinker.budget_left();
  out.scenario = best;
  out.tape = best_tape;
  out.choices_after = best_tape.size();
  out.nonzero_after = nonzero(best_tape);
  out.scripted_after = best.events_size();
  out.muted.assign(best.muted_actors().begin(), best.muted_actors().end());
  out.external_after = external_events(system, out.run.trace).size();
  // A shrunk scenario is no larger than its input: no more scripted events, no fewer muted actors,
  // and (when it reproduces) no more (scripted, external) events.
  WSIM_ASSERT_LE(out.scripted_after, out.scripted_before);
  WSIM_ASSERT_GE(best.muted_actors_size(), scenario.muted_actors_size());
  if (out.ok) {
    WSIM_ASSERT(std::make_pair(out.scripted_after, out.external_after) <=
                std::make_pair(out.scripted_before, out.external_before));
  }
  return out;
}

}  // namespace wsim::run
