// The signature bench (signature_bench.h): each corpus bug's hunted instances labelled by the
// match rules, scored against the grouping and against counterfactual replays with fix switches.
#include "sim/triage/signature_bench.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/assert.h"
#include "sim/run/driver.h"
#include "sim/run/verdict.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

namespace {

struct BugRow {
  CorpusBug bug;
  std::string name;                   // KnownBug::name: "PATH#N".
  std::string hunt;                   // hunting key + invariant.
  std::string seeded_hunt;            // ... + the file's seed (the grouping until 2026-11-26).
  std::vector<Signature> signatures;  // One per instance.
  std::uint64_t runs = 0;
  std::vector<KnownBug> applicable = {};  // The known bugs not fixed on its hunt's versions.
  std::vector<KnownBug> applicable_by_blocks = {};  // ... by PASS blocks only (not by fixed_by).
  std::vector<std::uint64_t> seeds = {};            // The seed of each instance.
  std::vector<FixSwitch> switches = {};             // Its bug's fix switches (corpus_bugs.h).
  std::vector<FixSwitch> placebos = {};             // Candidates that do not fix its script.
  // The faults on its own script's path (its KnownBug signature's path without the external
  // actions): a precondition switch's "persists" is evidence only for an instance with none.
  std::vector<std::string> script_faults = {};
};

// Whether `signature`'s path has none of `faults` (both sorted).
bool has_none_of(const Signature& signature, const std::vector<std::string>& faults) {
  WSIM_ASSERT(std::is_sorted(signature.path.begin(), signature.path.end()));  // binary_search.
  for (const std::string& fault : faults) {
    if (std::binary_search(signature.path.begin(), signature.path.end(), fault)) return false;
  }
  return true;
}

// The faults of `known`'s path (the features that are not its external actions), sorted.
std::vector<std::string> faults_of(const Signature& known) {
  WSIM_ASSERT(std::is_sorted(known.actions.begin(), known.actions.end()));  // binary_search.
  std::vector<std::string> out;
  for (const std::string& feature : known.path) {
    if (!std::binary_search(known.actions.begin(), known.actions.end(), feature)) {
      out.push_back(feature);
    }
  }
  WSIM_ASSERT_LE(out.size(), known.path.size());
  return out;
}

// The first `instances` violations of the bug's invariant from its hunting scenario.
bool hunt_instances(const BenchSignaturesCommand& command, const std::vector<KnownBug>& known,
                    BugRow& row, std::ostream& err, std::string& error) {
  LoadedScenario loaded;
  if (!corpus_bug_scenario(row.bug, loaded, error)) return false;
  WSIM_ASSERT(loaded.system != nullptr);
  row.applicable = applicable_known_bugs(known, loaded.scenario, *loaded.system);
  row.applicable_by_blocks = applicable_known_bugs(known, loaded.scenario, *loaded.system, false);
  row.hunt = hunting_key(loaded.scenario) + " " + row.bug.invariant;
  row.seeded_hunt = row.hunt + " seed " + std::to_string(loaded.scenario.seed());
  for (std::uint64_t seed = 0; seed < command.runs_max; ++seed) {
    if (static_cast<int>(row.signatures.size()) >= command.instances) break;
    loaded.scenario.set_seed(seed);
    ++row.runs;
    const RunResult fast = execute_run(*loaded.system, loaded.scenario, RunOptions{});
    if (!fast.violation || fast.violation->invariant_id != row.bug.invariant) continue;
    RunOptions options;
    options.keep_trace = true;
    const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
    WSIM_ASSERT(result.signature.has_value());
    if (command.dump) {
      const KnownBug* label = match_known(*result.signature, row.applicable);
      err << "  " << row.bug.name << " seed " << seed << ": " << result.signature->text() << " || "
          << result.signature->contexts_text() << " => " << known_label(label)
          << (label == nullptr ? "" : " (" + label->bug + ")") << "\n";
    }
    row.signatures.push_back(*result.signature);
    row.seeds.push_back(seed);
  }
  WSIM_ASSERT_EQ(row.seeds.size(), row.signatures.size());  // One seed per instance.
  return fix_switches(row.bug, row.switches, error, &row.placebos);
}

std::string percent(std::size_t num, std::size_t den) {
  if (den == 0) return "-";
  return std::to_string((num * 100 + den / 2) / den) + " %";
}

// Union-find over the rows: the group a row's instances may rightly be labelled with.
class Groups {
 public:
  explicit Groups(std::size_t n) : parent_(n) {
    for (std::size_t i = 0; i < n; ++i) parent_[i] = i;
  }
  std::size_t find(std::size_t i) {
    WSIM_ASSERT_LT(i, parent_.size());
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<std::size_t> parent_;
};

// Each row's group: rows with the same hunt (by_hunt), and with the same file or bug id
// (by_file). With `seeded`, hunts differ by the file's seed too, as they did until 2026-11-26
// (hunted exemplars of one hunt counted as several hunts, each instance judged against each
// file's bug). Without by_hunt the groups are the bugs themselves (the counterfactual evidence
// is about one bug, not about everything its hunt finds).
std::vector<std::size_t> group_rows(const std::vector<BugRow>& rows, bool by_file,
                                    bool seeded = false, bool by_hunt = true) {
  Groups groups(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const bool same_bug =
          rows[i].bug.path == rows[j].bug.path || rows[i].bug.bug == rows[j].bug.bug;
      const bool same_hunt =
          seeded ? rows[i].seeded_hunt == rows[j].seeded_hunt : rows[i].hunt == rows[j].hunt;
      if ((by_hunt && same_hunt) || (by_file && same_bug)) {
        groups.join(i, j);
      }
    }
  }
  std::vector<std::size_t> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out[i] = groups.find(i);
    WSIM_ASSERT_EQ(groups.find(out[i]), out[i]);  // A group is named by its root.
  }
  return out;
}

struct Score {
  std::size_t instances = 0, strict = 0, grouped = 0, labelled = 0, right = 0;
};

// labels[r][i]: the index of the row instance i of row r is labelled with, or -1 (NEW, or a bug
// with no row).
using Labels = std::vector<std::vector<int>>;

// Which known bugs a row's instances are labelled against: those not fixed on its versions
// (BugRow::applicable, the default), those not fixed by a PASS block (applicable_by_blocks), all.
enum class Filter { kVersions, kBlocks, kAll };

const std::vector<KnownBug>& candidates(const BugRow& row, const std::vector<KnownBug>& all,
                                        Filter filter) {
  if (filter == Filter::kAll) return all;
  return filter == Filter::kBlocks ? row.applicable_by_blocks : row.applicable;
}

// Each row's instances labelled against candidates(filter).
Labels label_all(const std::vector<BugRow>& rows, const std::vector<KnownBug>& all,
                 const MatchOptions& options, Filter filter = Filter::kVersions) {
  std::map<std::string, int> row_of;
  for (std::size_t r = 0; r < rows.size(); ++r) row_of[rows[r].name] = static_cast<int>(r);
  WSIM_ASSERT_EQ(row_of.size(), rows.size());  // Row names ("PATH#N") are unique.
  Labels labels(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::vector<KnownBug>& known = candidates(rows[r], all, filter);
    for (const Signature& signature : rows[r].signatures) {
      const KnownBug* match = match_known(signature, known, options);
      const auto it = match == nullptr ? row_of.end() : row_of.find(match->name);
      labels[r].push_back(it == row_of.end() ? (match == nullptr ? -1 : -2) : it->second);
    }
    WSIM_ASSERT_EQ(labels[r].size(), rows[r].signatures.size());  // One label per instance.
  }
  return labels;
}

// Leave one bug out: each row's instances labelled against the known bugs minus every bug of
// its group, as if its bug were not in the corpus. out[r] = how many came out NEW (the rest were
// masked by another known bug).
// out[r][i]: whether instance i of row r is NEW against the corpus without r's group.
std::vector<std::vector<bool>> new_when_left_out_each(const std::vector<BugRow>& rows,
                                                      const std::vector<KnownBug>& all,
                                                      const std::vector<std::size_t>& group,
                                                      const MatchOptions& options,
                                                      Filter filter = Filter::kVersions) {
  WSIM_ASSERT_EQ(group.size(), rows.size());
  std::map<std::string, std::size_t> group_of_name;
  for (std::size_t r = 0; r < rows.size(); ++r) group_of_name[rows[r].name] = group[r];
  std::vector<std::vector<bool>> out(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<KnownBug> others;
    for (const KnownBug& bug : candidates(rows[r], all, filter)) {
      const auto it = group_of_name.find(bug.name);
      if (it == group_of_name.end() || it->second != group[r]) others.push_back(bug);
    }
    for (const Signature& signature : rows[r].signatures) {
      out[r].push_back(match_known(signature, others, options) == nullptr);
    }
    WSIM_ASSERT_EQ(out[r].size(), rows[r].signatures.size());
  }
  WSIM_ASSERT_EQ(out.size(), rows.size());  // One list per row (print_counterfactual's `fresh`).
  return out;
}

std::vector<std::size_t> new_when_left_out(const std::vector<BugRow>& rows,
                                           const std::vector<KnownBug>& all,
                                           const std::vector<std::size_t>& group,
                                           const MatchOptions& options,
                                           Filter filter = Filter::kVersions) {
  std::vector<std::size_t> out;
  for (const std::vector<bool>& each : new_when_left_out_each(rows, all, group, options, filter)) {
    out.push_back(static_cast<std::size_t>(std::count(each.begin(), each.end(), true)));
  }
  WSIM_ASSERT_EQ(out.size(), rows.size());
  return out;
}

Score score(const std::vector<BugRow>& rows, const Labels& labels,
            const std::vector<std::size_t>& group) {
  WSIM_ASSERT_EQ(labels.size(), rows.size());
  WSIM_ASSERT_EQ(group.size(), rows.size());
  Score s;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (const int label : labels[r]) {
      ++s.instances;
      if (label == static_cast<int>(r)) ++s.strict;
      if (label >= 0 && group[static_cast<std::size_t>(label)] == group[r]) ++s.grouped;
      if (label >= 0 || label == -2) ++s.labelled;
      if (label >= 0 && group[static_cast<std::size_t>(label)] == group[r]) ++s.right;
    }
  }
  // Strict hits are group hits; right labels are labels; labels are instances.
  WSIM_ASSERT_LE(s.strict, s.grouped);
  WSIM_ASSERT_LE(s.right, s.labelled);
  WSIM_ASSERT_LE(s.labelled, s.instances);
  return s;
}

// The figures of `rules` under the grouping until 2026-11-26 (group_rows `seeded`): what the
// change of grouping did, apart from what a rule did.
void print_seeded_grouping(const std::vector<BugRow>& rows, const std::vector<KnownBug>& known,
                           const std::vector<std::pair<std::string, MatchOptions>>& rules,
                           std::ostream& out) {
  const std::vector<std::size_t> group = group_rows(rows, true, true);
  WSIM_ASSERT_EQ(group.size(), rows.size());
  out << "\nWith the file's seed in the hunt key (the grouping until 2026-11-26):\n\n"
         "| match rule | recall, file groups | precision, file groups | NEW when left out |\n"
         "|---|---|---|---|\n";
  for (const auto& [name, options] : rules) {
    const Score f = score(rows, label_all(rows, known, options), group);
    std::size_t fresh = 0;
    for (const std::size_t count : new_when_left_out(rows, known, group, options)) fresh += count;
    out << "| " << name << " | " << percent(f.grouped, f.instances) << " | "
        << percent(f.right, f.labelled) << " | " << percent(fresh, f.instances) << " |\n";
  }
}

// Counterfactual evidence of one instance (signature_bench.h): its replay (same seed, same swarm)
// with a fix switch of its hunt's bug, and with one of its label's bug when that is another group.
struct Evidence {
  Counterfactual own = Counterfactual::kNotApplicable;
  bool own_precondition = false;  // The hunt's bug's switch was a precondition (FixSwitch).
  // The instance's path has none of the faults of its hunt's bug's own script (BugRow::
  // script_faults; false when the script has none).
  bool without_script_faults = false;
  Counterfactual label = Counterfactual::kNotApplicable;
  Counterfactual placebo = Counterfactual::kNotApplicable;  // With a candidate that is no fix.
  Counterfactual control = Counterfactual::kNotApplicable;  // With another bug's switch.
};

// Replays instances of a row's hunt with fix switches; the switched scenarios are built once.
class Replayer {
 public:
  // The instance replayed next: its violation persists only with this template (empty: any
  // violation of the invariant; counterfactual_outcome).
  void set_mechanism(std::string mechanism) { mechanism_ = std::move(mechanism); }

  // The outcome of the first of `switches` that applies to `row`'s hunt, replayed at `seed`, and
  // spares the scripts of `others` (fix_spares: tells the bugs apart).
  bool replay(const BugRow& row, const std::vector<FixSwitch>& switches,
              const std::vector<const CorpusBug*>& others, std::uint64_t seed,
              Counterfactual& outcome, std::string& error, bool* precondition = nullptr) {
    outcome = Counterfactual::kNotApplicable;
    for (const FixSwitch& fix : switches) {
      bool spares = true;
      for (const CorpusBug* other : others) {
        if (spares && !spared(*other, fix, spares, error)) return false;
      }
      if (!spares) continue;
      const std::string key = row.name + " " + fix.text();
      auto it = switched_.find(key);
      if (it == switched_.end()) {
        std::optional<LoadedScenario> loaded(std::in_place);
        bool applied = false;
        if (!corpus_bug_scenario(row.bug, *loaded, error) ||
            !apply_fix_switch(*loaded, fix, applied, error)) {
          return false;
        }
        if (!applied) loaded.reset();
        it = switched_.emplace(key, std::move(loaded)).first;
      }
      if (!it->second) continue;
      WSIM_ASSERT(it->second->system != nullptr);  // corpus_bug_scenario validated it.
      it->second->scenario.set_seed(seed);
      const RunResult result = execute_run(*it->second->system, it->second->scenario, RunOptions{});
      outcome = counterfactual_outcome(result, row.bug.invariant, mechanism_);
      if (precondition != nullptr) *precondition = fix.precondition;
      return true;
    }
    return true;
  }

 private:
  bool spared(const CorpusBug& other, const FixSwitch& fix, bool& spares, std::string& error) {
    const std::string key = other.name + " " + other.path + " " + fix.text();
    const auto it = spares_.find(key);
    if (it != spares_.end()) {
      spares = it->second;
      return true;
    }
    if (!fix_spares(other, fix, spares, error)) return false;
    spares_.emplace(key, spares);
    return true;
  }

  std::map<std::string, std::optional<LoadedScenario>> switched_;
  std::map<std::string, bool> spares_;
  std::string mechanism_;
};

// What `fix` says about `row`'s own script: nothing (it does not apply there, or leaves the run
// exactly as it is), that it fixes it (the script no longer violates its invariant), or that it
// spares it (fix_applies_to_script, fix_is_inert, fix_spares).
enum class OnScript { kNothing, kFixes, kSpares };

bool switch_on_script(const BugRow& row, const FixSwitch& fix, OnScript& out, std::string& error) {
  out = OnScript::kNothing;
  bool applies = false;
  bool inert = false;
  bool spares = false;
  if (!fix_applies_to_script(row.bug, fix, applies, error)) return false;
  if (!applies) return true;
  if (!fix_is_inert(row.bug, fix, inert, error)) return false;
  if (inert) return true;
  if (!fix_spares(row.bug, fix, spares, error)) return false;
  out = spares ? OnScript::kSpares : OnScript::kFixes;
  return true;
}

// A whole fix of a bug (keep_whole_fixes) is that bug's switch on each of its files whose script
// it fixes, not only on the files that list it: N4's `daemon_keep_content_until_recorded` is
// verified by PASS blocks of the files whose seed-pinned runs then pass, and it also ends the
// loss of the files whose switched runs go on into another bug (gitpod.S9), which cannot list it.
bool share_whole_fixes(std::vector<BugRow>& rows, const std::vector<std::size_t>& bug,
                       std::string& error) {
  WSIM_ASSERT_EQ(bug.size(), rows.size());
  std::vector<std::vector<FixSwitch>> added(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t x = 0; x < rows.size(); ++x) {
      if (x == r || bug[x] != bug[r]) continue;
      for (const FixSwitch& fix : rows[x].switches) {
        const std::string text = fix.text();
        const auto same = [&](const FixSwitch& f) { return f.text() == text; };
        if (std::any_of(rows[r].switches.begin(), rows[r].switches.end(), same) ||
            std::any_of(added[r].begin(), added[r].end(), same)) {
          continue;
        }
        OnScript on = OnScript::kNothing;
        if (!switch_on_script(rows[r], fix, on, error)) return false;
        if (on == OnScript::kFixes) added[r].push_back(fix);
      }
    }
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    rows[r].switches.insert(rows[r].switches.end(), added[r].begin(), added[r].end());
  }
  return true;
}

// Keeps, of each row's switches, those that fix every other file of the same bug (`bug`: each
// row's bug, by file or id) whose versions the switch applies to (`fixes+16997` does not apply to
// partial-backup-mk1's mk1 eras): a switch under which another manifestation of the bug still fails
// (fix_spares) fixes one file's mechanism, not the bug, so a violation persisting under it is no
// evidence that the instance is another bug (shared-inventory-first's `a3_termination` switches
// leave shared-missing-inventory, one bug id, failing). A switch that leaves another file's run
// exactly as it is (fix_is_inert: the R3-only tie switch on timestamp-tie's R1 block) says
// nothing about it.
bool keep_whole_fixes(std::vector<BugRow>& rows, const std::vector<std::size_t>& bug,
                      std::string& error) {
  WSIM_ASSERT_EQ(bug.size(), rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<FixSwitch> kept;
    for (const FixSwitch& fix : rows[r].switches) {
      bool whole = true;
      for (std::size_t x = 0; x < rows.size() && whole; ++x) {
        if (bug[x] != bug[r] || rows[x].bug.path == rows[r].bug.path) continue;
        OnScript on = OnScript::kNothing;
        if (!switch_on_script(rows[x], fix, on, error)) return false;
        whole = on != OnScript::kSpares;
      }
      if (whole) kept.push_back(fix);
    }
    WSIM_ASSERT_LE(kept.size(), rows[r].switches.size());
    rows[r].switches = std::move(kept);
  }
  return share_whole_fixes(rows, bug, error);
}

// The evidence of every instance labelled `labels` (label_all).
// `bug`: each row's bug (group_rows without the hunt).
bool gather_evidence(const std::vector<BugRow>& rows, const Labels& labels,
                     const std::vector<std::size_t>& bug, std::vector<std::vector<Evidence>>& out,
                     std::ostream* dump, std::string& error) {
  WSIM_ASSERT_EQ(labels.size(), rows.size());
  Replayer replayer;
  out.assign(rows.size(), {});
  for (std::size_t r = 0; r < rows.size(); ++r) {
    WSIM_ASSERT_EQ(rows[r].seeds.size(), rows[r].signatures.size());
    for (std::size_t i = 0; i < rows[r].signatures.size(); ++i) {
      Evidence evidence;
      evidence.without_script_faults = !rows[r].script_faults.empty() &&
                                       has_none_of(rows[r].signatures[i], rows[r].script_faults);
      const int label = labels[r][i];
      const bool other = label >= 0 && bug[static_cast<std::size_t>(label)] != bug[r];
      const BugRow* labelled = other ? &rows[static_cast<std::size_t>(label)] : nullptr;
      const std::uint64_t seed = rows[r].seeds[i];
      std::vector<const CorpusBug*> spare;
      if (other) spare.push_back(&labelled->bug);
      replayer.set_mechanism(rows[r].signatures[i].mechanism);
      if (!replayer.replay(rows[r], rows[r].switches, spare, seed, evidence.own, error,
                           &evidence.own_precondition) ||
          !replayer.replay(rows[r], rows[r].placebos, {}, seed, evidence.placebo, error)) {
        return false;
      }
      if (other && !replayer.replay(rows[r], labelled->switches, {&rows[r].bug}, seed,
                                    evidence.label, error)) {
        return false;
      }
      if (label >= 0) {
        // The control: a switch of a bug of the same invariant in neither group, sparing the
        // label's script and the hunt's bug's, should leave the violation in place.
        const std::size_t l = static_cast<std::size_t>(label);
        for (std::size_t x = 0; x < rows.size(); ++x) {
          if (rows[x].bug.invariant != rows[r].bug.invariant || bug[x] == bug[r] ||
              bug[x] == bug[l] || rows[x].switches.empty()) {
            continue;
          }
          if (!replayer.replay(rows[r], rows[x].switches, {&rows[l].bug, &rows[r].bug}, seed,
                               evidence.control, error)) {
            return false;
          }
          if (evidence.control != Counterfactual::kNotApplicable) break;
        }
      }
      if (dump != nullptr && (evidence.own != Counterfactual::kNotApplicable ||
                              evidence.label != Counterfactual::kNotApplicable ||
                              evidence.control != Counterfactual::kNotApplicable)) {
        *dump << "  " << rows[r].bug.name << " seed " << rows[r].seeds[i] << ": with its fix "
              << counterfactual_name(evidence.own) << ", with its label's ("
              << (label >= 0 ? rows[static_cast<std::size_t>(label)].bug.name : "-") << ") "
              << counterfactual_name(evidence.label) << ", with a placebo "
              << counterfactual_name(evidence.placebo) << ", with another bug's "
              << counterfactual_name(evidence.control)
              << (evidence.without_script_faults ? ", none of its script's faults on the path" : "")
              << "\n";
      }
      out[r].push_back(evidence);
    }
  }
  return true;
}

// The figures against the counterfactual ground truth (signature_bench.h).
struct StrictScore {
  std::size_t truth = 0, recalled = 0;  // Instances whose bug is known; labelled right.
  std::size_t labelled = 0, right = 0;  // Labels whose truth is known; right ones.
  std::size_t fresh = 0;                // Of `truth` instances of their hunt's bug: NEW left out.
  std::size_t of_hunt_bug = 0;          // Instances whose truth is their hunt's bug's group.
  std::size_t confirmed = 0, refuted = 0;  // Own fix made it vanish / it persisted.
  std::size_t label_confirmed = 0;         // Another group's label confirmed by its fix.
};

// Whether the replay with the hunt's bug's switch says the instance is not that bug: it
// persisted under a version switch (a fix), or under a precondition switch while its path has
// none of the faults of the bug's own script (the faults that could re-create the precondition,
// a failed write holding a window open, are not there either).
bool refuted(const Evidence& evidence) {
  return evidence.own == Counterfactual::kPersists &&
         (!evidence.own_precondition || evidence.without_script_faults);
}

// An instance's label against the counterfactual ground truth.
enum class Verdict {
  kRight,    // The label's fix made it vanish, or it is its hunt's bug's (by evidence or group).
  kWrong,    // Labelled (or NEW) while its truth is known and another.
  kUnknown,  // Not its hunt's bug, and the label's truth unknown: left out.
};

// The verdict of label `label` of row r (see score_strict). `bug`: each row's bug (same file or
// id); `group`: the current ground truth, the hunt's group.
Verdict judge(const std::vector<std::size_t>& group, const std::vector<std::size_t>& bug,
              std::size_t r, int label, const Evidence& evidence) {
  WSIM_ASSERT_LT(r, group.size());
  if (label >= 0) WSIM_ASSERT_LT(static_cast<std::size_t>(label), group.size());
  const bool in_group = label >= 0 && group[static_cast<std::size_t>(label)] == group[r];
  const bool same_bug = label >= 0 && bug[static_cast<std::size_t>(label)] == bug[r];
  if (evidence.label == Counterfactual::kGone) return Verdict::kRight;
  if (refuted(evidence)) return same_bug ? Verdict::kWrong : Verdict::kUnknown;
  // The hunt's bug (its own fix made the violation vanish), or, without evidence, its group.
  const bool right = evidence.own == Counterfactual::kGone ? same_bug : in_group;
  return right ? Verdict::kRight : Verdict::kWrong;
}

// One instance into `s`: label `label` of row r, its evidence, NEW when left out or not. The
// evidence is about bugs (`bug`: same file or id); without it the truth is the current one, the
// hunt's group (`group`).
void score_strict(StrictScore& s, const std::vector<std::size_t>& group,
                  const std::vector<std::size_t>& bug, std::size_t r, int label,
                  const Evidence& evidence, bool fresh) {
  const bool labelled = label >= 0 || label == -2;
  if (evidence.own == Counterfactual::kGone) ++s.confirmed;
  if (refuted(evidence)) ++s.refuted;
  const Verdict verdict = judge(group, bug, r, label, evidence);
  if (evidence.label == Counterfactual::kGone) {
    // The label's own fix makes the violation vanish: the label is right.
    ++s.label_confirmed;
    ++s.truth;
    ++s.recalled;
    ++s.labelled;
    ++s.right;
    return;
  }
  if (refuted(evidence)) {
    // Not (only) the hunt's bug: a label of that bug is wrong; another label is unknown.
    if (verdict == Verdict::kWrong) ++s.labelled;
    return;
  }
  const bool right = verdict == Verdict::kRight;
  ++s.truth;
  ++s.of_hunt_bug;
  if (right) ++s.recalled;
  if (labelled) ++s.labelled;
  if (right) ++s.right;
  if (fresh) ++s.fresh;
  // A right label is a label (judge: right needs label >= 0); recalled ones are of the truth.
  WSIM_ASSERT_LE(s.right, s.labelled);
  WSIM_ASSERT_LE(s.recalled, s.truth);
}

// The labels the counterfactual ground truth calls wrong, by hunt and label ("HUNT → LABEL ×N"),
// and the instances it leaves out (not their hunt's bug, the label's truth unknown).
void print_wrong_labels(const std::vector<BugRow>& rows, const Labels& labels,
                        const std::vector<std::size_t>& group, const std::vector<std::size_t>& bug,
                        const std::vector<std::vector<Evidence>>& evidence, std::ostream& out) {
  WSIM_ASSERT_EQ(labels.size(), rows.size());
  WSIM_ASSERT_EQ(evidence.size(), rows.size());
  std::map<std::string, int> wrong;
  std::map<std::string, int> unknown;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t i = 0; i < labels[r].size(); ++i) {
      const int label = labels[r][i];
      if (label < 0 && label != -2) continue;  // NEW: a miss, not a label.
      const std::string name =
          label >= 0 ? rows[static_cast<std::size_t>(label)].bug.name : "(unbenched)";
      const Verdict verdict = judge(group, bug, r, label, evidence[r][i]);
      const std::string key = rows[r].bug.name + " → " + name;
      if (verdict == Verdict::kWrong) ++wrong[key];
      if (verdict == Verdict::kUnknown) ++unknown[key];
    }
  }
  auto print = [&out](const std::string& title, const std::map<std::string, int>& counts) {
    out << "\n" << title << ":";
    if (counts.empty()) out << " none";
    bool first = true;
    for (const auto& [key, count] : counts) {
      out << (first ? " " : "; ") << key << " ×" << count;
      first = false;
    }
    out << "\n";
  };
  print("Labels wrong against the counterfactual ground truth (hunt → label)", wrong);
  print("Labels left out (their hunt's bug refuted, the label's own truth unknown)", unknown);
}

// The per-bug counterfactual rows and the totals beside the current ground truth.
void print_counterfactual(const std::vector<BugRow>& rows, const Labels& labels,
                          const std::vector<std::size_t>& group,
                          const std::vector<std::size_t>& bug,
                          const std::vector<std::vector<Evidence>>& evidence,
                          const std::vector<std::vector<bool>>& fresh, std::ostream& out) {
  WSIM_ASSERT_EQ(evidence.size(), rows.size());
  out << "\nCounterfactual replays (each instance replayed with the first fix switch of its hunt's "
         "bug that applies and, when it is labelled with another bug, spares that bug's "
         "script; and with the first of its label's that spares its hunt's bug's script):\n\n"
         "| bug | fix switches | replayed | gone | persists | masked or changed | labels confirmed "
         "by their fix | placebo | gone with the placebo "
         "|\n|---|---|---|---|---|---|---|---|---|\n";
  StrictScore total;
  std::size_t total_placebo_replayed = 0, total_placebo_gone = 0;
  std::size_t total_control_replayed = 0, total_control_gone = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    StrictScore s;
    std::size_t replayed = 0, masked = 0, persisted = 0, placebo_replayed = 0, placebo_gone = 0;
    for (std::size_t i = 0; i < labels[r].size(); ++i) {
      score_strict(s, group, bug, r, labels[r][i], evidence[r][i], fresh[r][i]);
      score_strict(total, group, bug, r, labels[r][i], evidence[r][i], fresh[r][i]);
      if (evidence[r][i].own != Counterfactual::kNotApplicable) ++replayed;
      if (evidence[r][i].own == Counterfactual::kMasked ||
          evidence[r][i].own == Counterfactual::kChanged) {
        ++masked;
      }
      if (evidence[r][i].own == Counterfactual::kPersists) ++persisted;
      const Counterfactual placebo = evidence[r][i].placebo;
      if (placebo != Counterfactual::kNotApplicable && placebo != Counterfactual::kMasked) {
        ++placebo_replayed;
        if (placebo == Counterfactual::kGone) ++placebo_gone;
      }
    }
    for (const Evidence& e : evidence[r]) {
      if (e.control == Counterfactual::kGone || e.control == Counterfactual::kPersists ||
          e.control == Counterfactual::kChanged) {
        ++total_control_replayed;
        if (e.control == Counterfactual::kGone) ++total_control_gone;
      }
    }
    total_placebo_replayed += placebo_replayed;
    total_placebo_gone += placebo_gone;
    if (rows[r].switches.empty() && rows[r].placebos.empty() && s.label_confirmed == 0) continue;
    std::string switches;
    for (const FixSwitch& fix : rows[r].switches) {
      switches +=
          (switches.empty() ? "" : ", ") + fix.text() + (fix.precondition ? " (precondition)" : "");
    }
    out << "| " << rows[r].bug.name << " | " << (switches.empty() ? "-" : switches) << " | "
        << replayed << " | " << s.confirmed << " | " << persisted << " | " << masked << " | "
        << s.label_confirmed << " | "
        << (rows[r].placebos.empty() ? "-" : rows[r].placebos[0].text()) << " | " << placebo_gone
        << " of " << placebo_replayed << " |\n";
  }
  print_wrong_labels(rows, labels, group, bug, evidence, out);
  out << "\nagainst the counterfactual ground truth: " << total.truth
      << " instances with a known bug (" << total.confirmed << " confirmed by their hunt's bug's "
      << "fix, " << total.refuted << " that persist under it and are left out (a persisting "
      << "violation under a precondition switch counts only when the instance has none of the "
      << "bug's script faults on its path), " << total.label_confirmed
      << " confirmed as their label's bug); recall " << percent(total.recalled, total.truth)
      << " by group; precision " << percent(total.right, total.labelled) << " (" << total.right
      << " of " << total.labelled << " labels whose truth is known); NEW when left out "
      << percent(total.fresh, total.of_hunt_bug) << " (" << total.fresh << " of "
      << total.of_hunt_bug << "); the control: a change of "
      << "versions that does not fix the bug's script (placebo) made " << total_placebo_gone
      << " of " << total_placebo_replayed << " replayed instances vanish, and a switch of a "
      << "bug of the same invariant in neither the hunt's nor the label's group (sparing both "
      << "scripts) made " << total_control_gone << " of " << total_control_replayed << " vanish\n";
}

}  // namespace

int cmd_bench_signatures(const BenchSignaturesCommand& command, std::ostream& out,
                         std::ostream& err) {
  std::vector<CorpusBug> bugs;
  std::vector<KnownBug> known;
  std::string error;
  if (!corpus_bugs(command.corpus_dir, bugs, error) ||
      !known_bugs(command.corpus_dir, "", known, error)) {
    err << "wsim bench-signatures: " << error << "\n";
    return kExitUsage;
  }
  std::vector<BugRow> rows;
  for (const CorpusBug& bug : bugs) {
    BugRow row{bug, bug.path + "#" + std::to_string(bug.expect_index), "", "", {}, 0};
    for (const KnownBug& k : known) {
      if (k.name == row.name) row.script_faults = faults_of(k.signature);
    }
    if (!command.only.empty() && bug.name.find(command.only) == std::string::npos) continue;
    if (!hunt_instances(command, known, row, err, error)) {
      err << "wsim bench-signatures: " << bug.name << ": " << error << "\n";
      return kExitUsage;
    }
    err << "bench-signatures: " << bug.name << ": " << row.signatures.size() << " instances in "
        << row.runs << " runs\n";
    rows.push_back(std::move(row));
  }
  const std::vector<std::size_t> group = group_rows(rows, true);
  const Labels labels = label_all(rows, known, MatchOptions{});
  WSIM_ASSERT_EQ(labels.size(), rows.size());
  const std::vector<std::vector<bool>> fresh_each =
      new_when_left_out_each(rows, known, group, MatchOptions{});
  std::vector<std::size_t> left_out;
  for (const std::vector<bool>& each : fresh_each) {
    left_out.push_back(static_cast<std::size_t>(std::count(each.begin(), each.end(), true)));
  }
  out << "| bug | invariant | instances | recall (strict) | recall (group) | labelled it | "
         "precision | NEW when left out | other labels |\n|---|---|---|---|---|---|---|---|---|\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const BugRow& row = rows[r];
    std::size_t self = 0, in_group = 0;
    std::map<std::string, int> others;
    for (std::size_t i = 0; i < labels[r].size(); ++i) {
      const int label = labels[r][i];
      if (label == static_cast<int>(r)) ++self;
      if (label >= 0 && group[static_cast<std::size_t>(label)] == group[r]) {
        ++in_group;
      } else if (label < 0) {
        ++others[label == -1 ? "NEW" : "(unbenched)"];
      } else {
        ++others[rows[static_cast<std::size_t>(label)].bug.name];
      }
    }
    WSIM_ASSERT_LE(self, in_group);  // Its own label is in its group.
    std::size_t carrying = 0, right = 0;
    for (std::size_t o = 0; o < rows.size(); ++o) {
      for (const int label : labels[o]) {
        if (label != static_cast<int>(r)) continue;
        ++carrying;
        if (group[o] == group[r]) ++right;
      }
    }
    std::string other_text;
    for (const auto& [label, count] : others) {
      other_text += (other_text.empty() ? "" : ", ") + label + " ×" + std::to_string(count);
    }
    const std::size_t n = row.signatures.size();
    out << "| " << row.bug.name << " | " << row.bug.invariant << " | " << n << " | "
        << percent(self, n) << " | " << percent(in_group, n) << " | " << carrying << " | "
        << percent(right, carrying) << " | " << percent(left_out[r], n) << " | "
        << (other_text.empty() ? "-" : other_text) << " |\n";
  }
  const Score total = score(rows, labels, group);
  std::size_t total_new = 0;
  for (const std::size_t count : left_out) total_new += count;
  out << "\ntotal: " << total.instances << " instances of " << rows.size() << " bugs; recall "
      << percent(total.strict, total.instances) << " strict, "
      << percent(total.grouped, total.instances) << " by group; precision "
      << percent(total.right, total.labelled) << " (" << total.right << " of " << total.labelled
      << " labels); NEW when its bug is left out of the corpus "
      << percent(total_new, total.instances) << " (" << total_new << " of " << total.instances
      << ")\n";
  std::vector<std::vector<Evidence>> evidence;
  const std::vector<std::size_t> bug = group_rows(rows, true, false, false);
  if (!keep_whole_fixes(rows, bug, error) ||
      !gather_evidence(rows, labels, bug, evidence, command.dump ? &err : nullptr, error)) {
    err << "wsim bench-signatures: counterfactual replay: " << error << "\n";
    return kExitUsage;
  }
  print_counterfactual(rows, labels, group, bug, evidence, fresh_each, out);

  // Each component of the match rule on and off, and the two groupings (signature_bench.h).
  const std::vector<std::size_t> by_hunt = group_rows(rows, false);
  struct Variant {
    std::string name;
    MatchOptions options;
    Filter filter = Filter::kVersions;  // Known bugs fixed on a hunt's versions left out.
  };
  using M = MatchOptions::Mechanism;
  using S = MatchOptions::State;
  using A = MatchOptions::Actions;
  // Every field set, so a row means the same whatever the defaults are.
  auto rule = [](M mechanism, S state, A actions, double similarity_min = 0.5,
                 double coverage_min = 2.0 / 3, bool combined = false, bool weighted = false,
                 bool rarity = false) {
    MatchOptions options;
    options.mechanism = mechanism;
    options.state = state;
    options.actions = actions;
    options.rarity = rarity;
    options.similarity_min = similarity_min;
    options.coverage_min = coverage_min;
    options.combined = combined;
    options.weighted_words = weighted;
    options.context = MatchOptions::Context::kOff;
    options.first_context_per_action = false;
    options.context_times_coverage = false;
    options.operator_actions_required = false;
    options.actions_required = false;
    options.fault_required = false;
    return options;
  };
  const A kind = A::kByActorAndKind;
  const MatchOptions before_contexts = rule(M::kRank, S::kRank, kind, 0.7, 2.0 / 3, true);
  // The default rule with the contexts compared (MatchOptions::context).
  auto with_context = [&](MatchOptions::Context context, double context_min,
                          bool first_only = false, bool times_coverage = true) {
    MatchOptions options = rule(M::kRank, S::kRank, kind, 0.7, 2.0 / 3, true);
    options.context = context;
    options.context_min = context_min;
    options.first_context_per_action = first_only;
    options.context_times_coverage = times_coverage;
    return options;
  };
  const std::vector<Variant> variants = {
      {"path only (the first design)", rule(M::kOff, S::kOff, A::kExact)},
      {"+ rarity", rule(M::kOff, S::kOff, A::kExact, 0.5, 2.0 / 3, false, false, true)},
      {"+ mechanism, exact", rule(M::kExact, S::kOff, A::kExact)},
      {"+ mechanism, relaxed", rule(M::kRelaxed, S::kOff, A::kExact)},
      {"+ mechanism, most similar", rule(M::kRank, S::kOff, A::kExact)},
      {"+ state, equal", rule(M::kOff, S::kFilter, A::kExact)},
      {"+ state, most similar", rule(M::kOff, S::kRank, A::kExact)},
      {"+ mechanism exact + state equal", rule(M::kExact, S::kFilter, A::kExact)},
      {"+ mechanism relaxed + state most similar", rule(M::kRelaxed, S::kRank, A::kExact)},
      {"+ mechanism most similar + state most similar", rule(M::kRank, S::kRank, A::kExact)},
      {"  + rarity", rule(M::kRank, S::kRank, A::kExact, 0.5, 2.0 / 3, false, false, true)},
      {"  + faults only", rule(M::kRank, S::kRank, A::kIgnored)},
      {"  + actions by actor (the rule until 2026-11-25)", rule(M::kRank, S::kRank, A::kByActor)},
      {"  + actions by actor and kind", rule(M::kRank, S::kRank, kind)},
      {"    similarity >= 0.6", rule(M::kRank, S::kRank, kind, 0.6)},
      {"    similarity >= 0.7", rule(M::kRank, S::kRank, kind, 0.7)},
      {"    coverage >= 0.8", rule(M::kRank, S::kRank, kind, 0.5, 0.8)},
      {"    coverage = 1", rule(M::kRank, S::kRank, kind, 0.5, 1.0)},
      {"    similarity >= 0.7, coverage = 1", rule(M::kRank, S::kRank, kind, 0.7, 1.0)},
      {"    words weighted by rarity", rule(M::kRank, S::kRank, kind, 0.5, 2.0 / 3, false, true)},
      {"    weighted, similarity >= 0.7",
       rule(M::kRank, S::kRank, kind, 0.7, 2.0 / 3, false, true)},
      {"    combined, similarity >= 0.6", rule(M::kRank, S::kRank, kind, 0.6, 2.0 / 3, true)},
      {"    combined, similarity >= 0.7 (the rule before contexts)", before_contexts},
      {"    combined, similarity >= 0.7, coverage >= 0.8",
       rule(M::kRank, S::kRank, kind, 0.7, 0.8, true)},
      {"    combined, similarity >= 0.7, coverage = 1",
       rule(M::kRank, S::kRank, kind, 0.7, 1.0, true)},
      {"      + contexts ranked before coverage, every context of an action",
       with_context(MatchOptions::Context::kRank, 0, false, false)},
      {"      + contexts ranked before coverage, each action's first",
       with_context(MatchOptions::Context::kRank, 0, true, false)},
      {"      + contexts × coverage ranked, every context of an action",
       with_context(MatchOptions::Context::kRank, 0)},
      {"      + contexts × coverage ranked, each action's first (the rule until 2026-11-26)",
       with_context(MatchOptions::Context::kRank, 0, true)},
      {"        + every operator action of the known path required (default)", MatchOptions{}},
      {"          + every external action of the known path required",
       [] {
         MatchOptions options;
         options.actions_required = true;
         return options;
       }()},
      {"            + one fault of the known path required (when it has faults)",
       [] {
         MatchOptions options;
         options.actions_required = true;
         options.fault_required = true;
         return options;
       }()},
      {"          + one fault of the known path required (when it has faults)",
       [] {
         MatchOptions options;
         options.fault_required = true;
         return options;
       }()},
      {"      + contexts >= 0.3, every context", with_context(MatchOptions::Context::kFloor, 0.3)},
      {"      + contexts >= 0.5, every context", with_context(MatchOptions::Context::kFloor, 0.5)},
      {"      + contexts >= 0.3, each action's first",
       with_context(MatchOptions::Context::kFloor, 0.3, true)},
      {"      + contexts >= 0.5, each action's first",
       with_context(MatchOptions::Context::kFloor, 0.5, true)},
      {"actions by actor alone", rule(M::kOff, S::kOff, A::kByActor)},
      {"the default, without leaving out bugs fixed on the hunt's versions", MatchOptions{},
       Filter::kAll},
      {"the default, leaving out by PASS blocks only (not by the fixes a file's list lacks)",
       MatchOptions{}, Filter::kBlocks},
  };

  out << "\n| match rule | recall, hunt groups | precision, hunt groups | recall, file groups | "
         "precision, file groups | NEW when left out |\n|---|---|---|---|---|---|\n";
  for (const Variant& variant : variants) {
    const Labels l = label_all(rows, known, variant.options, variant.filter);
    const Score h = score(rows, l, by_hunt);
    const Score f = score(rows, l, group);
    std::size_t fresh = 0;
    for (const std::size_t count :
         new_when_left_out(rows, known, group, variant.options, variant.filter)) {
      fresh += count;
    }
    out << "| " << variant.name << " | " << percent(h.grouped, h.instances) << " | "
        << percent(h.right, h.labelled) << " | " << percent(f.grouped, f.instances) << " | "
        << percent(f.right, f.labelled) << " | " << percent(fresh, f.instances) << " |\n";
  }
  print_seeded_grouping(
      rows, known, {{"the rule before contexts", before_contexts}, {"the default", MatchOptions{}}},
      out);
  return kExitPass;
}

}  // namespace wsim::run
