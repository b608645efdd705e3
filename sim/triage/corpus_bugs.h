// The known bugs of the regression corpus as hunting targets (issue #5: "time-to-find for every
// known bug in the corpus, by strategy").
//
// A regression file pins a bug with a readable script and an expectation such as
//   expect { when { key: "agent" value: "A0a" } verdict: LIVENESS_VIOLATION invariant: "gitlab.L1"
//   }
// The bug as a TARGET drops the script: the file's system config and fault overrides, the `when`
// versions of that expectation, the fuzz targets' short phases (System::fast_phase_fields()) and a
// random workload with swarm faults. Only the script's "admin" events stay (an operator's one-off
// operation such as an upgrade, which no random workload or fault point produces); user, kubectl
// and scripted fault events (api, kubelet, link, manager, ws-daemon) are dropped. A strategy
// "finds" the bug when a run violates exactly that invariant; so the time-to-find says how fast a
// hunt that does not know the script gets there.
//
// Names: "limbo-411205#0" = file stem and the index of the expectation among the file's
// `expect` blocks (every block counts, PASS ones too, so the index matches the file).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/run/signature.h"

namespace wsim::run {

struct CorpusBug {
  std::string path;       // The regression file.
  int expect_index = 0;   // Index among the file's `expect` blocks.
  std::string name;       // "<file stem>#<expect_index>".
  std::string invariant;  // The invariant the expectation names.
  std::string when;       // "agent=A0a rails=R1": the expectation's `when`, in key order.
  std::string bug;        // The file's `bug` field, else its stem: files with one id are one bug.
  std::vector<KnownBugExpectation> expectations;  // The file's expect blocks, in order.
};

// Every violating expectation of every *.textproto under `corpus_dir` (recursively, in path
// order). False with an error naming the file when one does not load.
bool corpus_bugs(const std::string& corpus_dir, std::vector<CorpusBug>& out, std::string& error);

// Parses "FILE#N" (or "FILE": the first violating expectation) into a CorpusBug. False with an
// error when the file does not load or expectation N is missing or is a PASS.
bool parse_corpus_bug(const std::string& spec, CorpusBug& out, std::string& error);

// The validated hunting scenario of `bug` (see the file comment), with the system registered;
// loaded.hunted_invariant is the bug's invariant.
bool corpus_bug_scenario(const CorpusBug& bug, LoadedScenario& loaded, std::string& error);

// The bug's own script (its file as written) with its expectation's `when` applied, validated,
// with the system registered: the run the corpus tests check.
bool load_bug_script(const CorpusBug& bug, LoadedScenario& loaded, std::string& error);

// A hash of a hunting scenario (corpus_bug_scenario) without its name, description and seed (a
// hunt draws its own seeds): bugs with the same key are hunted by the same scenario
// (scripts/bench-find measures them once).
std::string hunting_key(proto::Scenario scenario);

// The signature (signature.h) of `bug`: its file's own script run with the expectation's `when`
// versions, the trace kept. False with an error naming the file when the script does not violate
// the expected invariant (the corpus replay test would fail too).
bool corpus_bug_signature(const CorpusBug& bug, Signature& out, std::string& error);

// Every bug of `corpus_dir` (corpus_bugs) of system `system_name` (every system when empty) with
// its signature, named "PATH#N". False with an error naming the file on the first one that fails
// to load. With `not_reproduced` set, a bug whose script no longer violates its invariant (the code
// changed: the corpus replay test fails) is left out and described there instead of failing, so a
// hunt of changed code still runs and still tells the known bugs it can recognise.
bool known_bugs(const std::string& corpus_dir, const std::string& system_name,
                std::vector<KnownBug>& out, std::string& error,
                std::vector<std::string>* not_reproduced = nullptr);

// The bugs of `known` that may be present on the versions of `run`: a bug is left out when the
// first of its file's expect blocks whose `when` matches `run`'s config expects PASS (the corpus
// says its script passes there: limbo-411205 on A1, a fixed version), and (by_fixes) when `run`
// is on the versions of the bug's own expectation but has a value that fixes it
// (KnownBug::fixed_by: status-conflict-pre16622, B1, pinned on mk2 without 16622, is not a
// candidate on the latest mk2, which has 16622). A bug whose file says nothing about those
// versions stays. Used by `wsim hunt`, `wsim run`/`explain` labels and
// scripts/bench-signatures; the fuzz guards keep every bug of their system.
std::vector<KnownBug> applicable_known_bugs(const std::vector<KnownBug>& known,
                                            const proto::Scenario& run, const System& system,
                                            bool by_fixes = true);

// Labels `result` (run with keep_trace, the run of `run`) against the known bugs of `system` in
// `corpus_dir` that may be present on its versions (applicable_known_bugs):
// sets result.labelled and result.known when it has a violation and a signature. Loading the
// corpus runs its scripts, so it is done only for a failed run. Returns false (result unchanged)
// with an error when the corpus does not load; a missing directory is not an error (no labels).
// With `applicable`, the known bugs it labelled against are left there (empty when none were
// loaded), for re-runs that must be labelled the same way (labelled_realism.h).
bool label_with_corpus(const System& system, const proto::Scenario& run,
                       const std::string& corpus_dir, RunResult& result, std::string& error,
                       std::vector<KnownBug>* applicable = nullptr);

// label_with_corpus with the applicable known bugs already loaded (labelled_realism.h
// applicable_corpus_bugs): labels `result` when it has a violation and a signature.
void label_with_known(const std::vector<KnownBug>& known, RunResult& result);

// A fix switch of a known bug (counterfactual replays: scripts/bench-signatures, docs/signatures.md
// "Counterfactual ground truth"): a change of a run's versions under which the bug's own corpus
// script no longer violates its invariant, so a hunted violation that the same change makes
// vanish (same seed, same swarm) is independent evidence that it is this bug. Candidates:
//   - each PASS expect block of the bug's file: its `when` fields whose value differs from the
//     bug's own (limbo-411205 on agent A0a: "agent=A1");
//   - for each repeated version axis (System::axes; a repeated config field such as a list of
//     fixes) that the bug's versions set to a part of the axis's values: each missing value
//     added alone ("fixes+16622"), in the axis's order.
// A candidate is a switch when it changes the bug's versions and the script, with it, does not
// violate the bug's invariant (checked: the corpus's own evidence, not a name).
struct FixChange {
  std::string field;
  std::string value;
  bool add = false;  // Add `value` to the repeated field rather than set the field to it.
  std::string from;  // A set: the field's value on the bug's versions (where the switch applies).
  // A config field that is not a version axis (a setting such as a backoff or a window): the
  // switch sets it from any other value, not only from `from` — a precondition is removed the
  // same way whatever the run's setting was (a version switch means "from this version").
  bool setting = false;
};
struct FixSwitch {
  std::vector<FixChange> changes;
  // A change of a config field that is not a version axis (a setting such as a backoff): it
  // removes a precondition of the bug rather than fixing it, and faults can re-create the
  // precondition (a failed write widens a window), so a violation that persists under it is no
  // evidence that it is another bug; one that vanishes still is evidence that it is this one.
  // Not for a system's counterfactual fix fields (System::counterfactual_fix_fields): a setting
  // that switches a code fix on is evidence both ways, like a version fix.
  bool precondition = false;
  std::string text() const;  // "agent=A1 rails=R3", "fixes+16622".
};

// The fix switches of `bug` (above), in candidate order (a counterfactual code fix first, then the
// file's order). False with an error when the file or a candidate does not load. With `placebos`,
// the candidates that are not switches (the script still violates with them: a change of versions
// that is not the bug's fix) go there: a control for how often a change of versions alone makes a
// hunted violation vanish.
bool fix_switches(const CorpusBug& bug, std::vector<FixSwitch>& out, std::string& error,
                  std::vector<FixSwitch>* placebos = nullptr);

// Applies `fix` to a validated scenario of a run and validates it again. `applied` is false (the
// scenario unchanged) when the switch does not apply to the run's versions: a set field whose
// value on the run is not the bug's (`from`), or already the switch's; an added value the run's
// list already has (an empty list or the axis's `latest` counts as every value).
bool apply_fix_switch(LoadedScenario& loaded, const FixSwitch& fix, bool& applied,
                      std::string& error);

// Whether `fix` leaves `other`'s own script violating its invariant (`spares`): only then does a
// replay that `fix` makes vanish tell the bug `fix` belongs to from `other`. Each change is made
// where the script's versions are the switch's starting point (a set field at `from`, a list
// without the value); a change the script's versions already have (the set value, the value in
// the list, or every value) needs nothing; a set field at a third value is unknown: not spared.
// With nothing changed the script violates as it is: spared.
bool fix_spares(const CorpusBug& other, const FixSwitch& fix, bool& spares, std::string& error);

// Whether `fix` changes `other`'s own script's versions (apply_fix_switch on its script): a
// switch that does not apply there (a fix added to a list of every value, a set field at
// another value) says nothing about that script.
bool fix_applies_to_script(const CorpusBug& other, const FixSwitch& fix, bool& applies,
                           std::string& error);

// Whether `fix` leaves `other`'s own script's run exactly as it is (`inert`: the same fingerprint
// with and without it), e.g. a setting of a version the script does not run: such a script says
// nothing about the switch either. False with an error when the script does not load.
bool fix_is_inert(const CorpusBug& other, const FixSwitch& fix, bool& inert, std::string& error);

// A counterfactual replay's outcome for a violation of `invariant`: kGone (no violation of it:
// the run passed, or ended with other liveness violations only), kPersists (it is still
// violated), kMasked (the run stopped at another safety violation first: no evidence).
// With `mechanism` (the instance's Signature::mechanism, non-empty), a violation of `invariant`
// persists only when one of its messages has that very template; otherwise the switch turned the
// run into another violation of the same invariant (the fix changed the timing and another bug
// of that invariant showed), kChanged: no evidence either way.
enum class Counterfactual { kNotApplicable, kGone, kPersists, kMasked, kChanged };
Counterfactual counterfactual_outcome(const RunResult& result, const std::string& invariant,
                                      const std::string& mechanism = {});
std::string_view counterfactual_name(Counterfactual outcome);

// `wsim corpus bugs [DIR]`: one line per bug, "NAME INVARIANT PATH#N KEY WHEN" (KEY: a hash of
// the hunting scenario; bugs with the same KEY are the same hunt — scripts/bench-find), then,
// indented, "bug: " and the file's bug id (the `bug` field; only when the file sets it), then,
// indented on the next line, "signature: " and the bug's signature, then, when it has contexts,
// " || " and its contexts (Signature::contexts_text).
int cmd_corpus_bugs(const std::string& corpus_dir, std::ostream& out, std::ostream& err);

// The names (KnownBug::name) of the bugs of `known` that are `hunted` for a hunt that wants that
// bug's label, not only its invariant (`wsim hunt --bug FILE#N --until-label`): those with the
// same bug id (CorpusBug::bug: the file's `bug` field, else its stem), so one bug pinned by
// several files or expect blocks is found under any of its names. Empty when none is.
std::vector<std::string> labels_naming_bug(const CorpusBug& hunted,
                                           const std::vector<KnownBug>& known);

}  // namespace wsim::run
