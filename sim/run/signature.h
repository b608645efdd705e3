// Finding signatures (issue #12 item 1; docs/signatures.md): a name for the bug behind a
// violation, not for the seed that hit it, so a hunt can tell a known bug of the corpus from a
// NEW one.
//
// A signature is computed from a run's trace (RunOptions::keep_trace) and one violation:
//   invariant  the violated invariant id ("gitpod.S5");
//   culprit    for a safety violation, the event after which it was seen (the harness's own
//              events skipped), normalised (below): "ws-manager create Pod ok"; empty for
//              liveness (judged at the end, no culprit);
//   path       the mechanism on the failing object's causal path: every fault event
//              (trace_view.h is_fault_symptom) but an API request's Conflict (routine optimistic
//              concurrency, there or not by seed; a reconciler step that ends in Conflict, its
//              retries spent, counts as "fail"), and every external action (user, kubectl,
//              admin: the user lane; as "actor verb", without its result), that touches the
//              object (explain.h names_object) or names no object (a lost response concerns
//              every workspace), normalised, sorted and deduplicated.
// Normalising an event keeps what names the mechanism and drops what names the seed: the actor
// up to its first '/' ("ws-daemon/node-2" → "ws-daemon"), the verb, the object's kind when it is
// a Kubernetes object ("Pod/gitpod/ws-ws0-1" → "Pod"; a bare workspace name → nothing) and the
// result's class (ok; NotFound, Gone, AlreadyExists, Forbidden, Conflict; any other failure —
// lost, timeout, throttled, 5xx — is "fail").
//
//   mechanism  the violation message's template (normalize_text): oracles describe what they
//              saw ("changed while request # was between its finder and its answer"), and two
//              seeds of one bug tend to give similar words;
//   state      for liveness only, the failing object's final state (normalize_state of
//              SystemRun::describe_state: "desired Terminated, actual Terminating, ..., no
//              Deployment, not tracked"), which tells a limbo from a stuck tracker;
//   actions    the external actions of the path (a subset of it).
// Matching (match_known, default MatchOptions) is nearest-known with floors: a finding carries
// known bug K's signature when
//   - the invariants are equal and the culprits are equal (when both have one);
//   - the mechanisms' and the states' word_similarity is at least kSimilarityMin (when both
//     have one: the words of an oracle's message vary a little by seed, "desired Stopped" or
//     "desired RestartRequested", the words of another oracle branch overlap less); with both a
//     mechanism and a state on both sides the two texts are judged as one (MatchOptions::combined);
//   - the finding's path covers at least kPathCoverageNum/kPathCoverageDen of K's path, where an
//     external action of K's path is covered by any external action of the same actor on the same
//     kind of object (the script's user stopped, the hunt's user restarted: which user action is
//     the workload's choice; "kubectl delete Namespace" is not "kubectl delete ConfigMap"; a fault
//     must be the same fault), and every operator action of K's path (kOperatorActor's: a
//     one-off operation such as an upgrade, which no random workload produces, so a hunting
//     scenario keeps it from the script, corpus_bugs.h) is covered
//     (MatchOptions::operator_actions_required: an upgrade K needed is not made up for by the
//     user's actions every run has).
// The floors were chosen by scripts/bench-signatures, which also measures how often a bug left
// out of the corpus is still called NEW (docs/signatures.md "Leave one bug out").
// Among several, the highest mechanism + state similarity wins, then the highest context
// similarity × coverage (MatchOptions::context_times_coverage), then the highest coverage, then
// the larger shared path, then the earlier bug (corpus order). MatchOptions also has the
// alternatives scripts/bench-signatures measures (docs/signatures.md "Variants of the rule",
// docs/signatures-bench.md: equal or relaxed templates, equal states, rarity weights, ...).
// A finding that matches no known bug is NEW. Nothing here knows a system or a bug: the known
// signatures come from running the corpus's own scripts (corpus_bugs.h known_bugs).
//
// Pure functions over the trace; single-threaded; deterministic (sorted vectors only).
// Not modelled: causality proper (events are related to the object by name, as `wsim explain`
// does), and probes (they count per run, not per object, so they would name the seed's swarm).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/trace.h"
#include "sim/run/system.h"

namespace wsim::run {

struct Signature {
  std::string invariant;
  std::string culprit;                    // Normalised culprit event; empty for liveness.
  std::vector<std::string> path;          // Normalised path features, sorted, unique.
  std::string mechanism = {};             // The violation message's template (normalize_text).
  std::string state = {};                 // Liveness: the object's final state lines, normalised.
  std::vector<std::string> actions = {};  // The external actions of `path`, sorted.
  // For each external action on the failing object itself (one that names it), the object's
  // observed state at that moment (action_context): "user stop-reply: Pod=deleted Pod@reject
  // Workspace=written". In trace order, repeats dropped.
  std::vector<std::string> contexts = {};

  // One line: "gitpod.S5 @ ws-manager create Pod ok [pod # after stop] {...} | kubelet reject
  // Pod fail; user stop" (the mechanism in brackets, the state in braces, when set).
  std::string text() const;
  // The contexts joined with " || " ("-" when none): printed apart from text(), which they
  // would make long (every kubectl step of a GitLab hunt has one).
  std::string contexts_text() const;
  bool operator==(const Signature& other) const = default;
};

// A known bug: a corpus expectation (corpus_bugs.h) and the signature its script produces.
// One `expect` block of a known bug's file: its `when` and whether it expects PASS.
struct KnownBugExpectation {
  std::map<std::string, std::string> when;
  bool pass = false;
};

struct KnownBug {
  std::string name;  // "FILE#N" as `wsim hunt --bug` takes it (the file path and the index).
  Signature signature;
  std::string bug = {};  // The corpus file's bug id (corpus_bugs.h CorpusBug::bug).
  // Its file's expect blocks in order (corpus_bugs.h applicable_known_bugs): where the first
  // block that matches a run's versions expects PASS, the corpus says the bug is not there.
  std::vector<KnownBugExpectation> expectations = {};
  // The values its file's repeated version axes lack that its own script proves to be its fix
  // (corpus_bugs.h fix_switches, the added values: "fixes" → {"16622"} for a file that pins B1
  // on mk2 without 16622): a run whose versions have one of them is not a candidate
  // (applicable_known_bugs), as if the file had a PASS block for it.
  std::map<std::string, std::vector<std::string>> fixed_by = {};
};

// The normalised form of one trace event ("ws-daemon backup ok", "api-client patch Workspace
// error"): see the file comment.
std::string normalize_event(const TraceEvent& event);

// The template of a free text (a violation message, a state line): what an oracle saw, with
// what names the seed dropped. Quoted values are dropped ("" stays), a word that names `object`
// (explain.h names_object) is dropped, a Kubernetes object reference ("Pod/gitpod/ws-1") becomes
// its kind, every run of digits becomes '#', and whitespace is collapsed.
// "request 12 saw 'x' on Pod/ns/ws-3 (ws-3: 2 FULL)" with object "ws-3" →
// "request # saw '' on Pod (: # FULL)".
std::string normalize_text(std::string_view text, std::string_view object);

// The context of an external action (Signature::contexts): the state, just before trace[at], of
// the Kubernetes objects (a capitalised kind, "Pod/ns/name") whose names name `object`, read
// from the writes the trace records (the trace has no object contents): per object, "KIND=" its
// existence — created (a create ok, nothing more), written (then an update or patch ok), deleted
// (a delete ok) — and, when an actor did something else to it while it was not deleted (a
// kubelet's admit, start, ready, reject; a scheduler's bind), "KIND@" the last such verb (a
// successful one on an object not created in the trace, a controller's pod, shows it exists). A
// create ok of the same name starts a new object; an object is named by its kind and last name
// segment ("Pod/ns/ws-1" and "Pod/ws-1" are one). The words of all objects, sorted and
// deduplicated, after "ACTION:" (normalize_event of trace[at] without its result). Objects never
// created (or not yet) give no word: "Pod" absent is "no pod yet".
// "user stop-reply: Pod=deleted Pod@reject Secret=created Workspace=written".
// REQUIRES: at < trace.size().
std::string action_context(const std::vector<TraceEvent>& trace, std::size_t at,
                           std::string_view object);

// The normalised final state of `object` (liveness signatures): the lines of `state`
// (SystemRun::describe_state) that name it, each normalize_text'ed, sorted, deduplicated and
// joined with " / "; empty when no line names it.
std::string normalize_state(std::string_view state, std::string_view object);

// The actors whose events count as external actions of `system` (user, kubectl, admin and the
// actors of its scripted actions).
std::set<std::string, std::less<>> external_actors_of(const System& system);

// The signature of `violation`, seen in `trace` (the events recorded so far; the run may go on).
// `final_state` (SystemRun::describe_state at the end) is given for a liveness violation only.
// REQUIRES: culprit, when set, indexes `trace`.
Signature compute_signature(const std::set<std::string, std::less<>>& external_actors,
                            const std::vector<TraceEvent>& trace,
                            std::optional<std::size_t> culprit, const Violation& violation,
                            std::string_view final_state = {});

inline constexpr std::size_t kPathCoverageNum = 2;
inline constexpr std::size_t kPathCoverageDen = 3;  // Measured: docs/signatures.md.

inline constexpr double kSimilarityMin = 0.7;

// The external actor of one-off operator operations (an upgrade): corpus_bugs.cc keeps its
// events of a script in the bug's hunting scenario, and match_known requires them
// (MatchOptions::operator_actions_required).
inline constexpr std::string_view kOperatorActor = "admin";

// Which components match_known compares and how (scripts/bench-signatures measures each; the
// defaults are the rule of the file comment, the best measured).
struct MatchOptions {
  enum class Mechanism {
    kOff,
    kExact,    // Equal templates required (when both have one).
    kRelaxed,  // Equal after relax_template (when both have one).
    kRank,     // The most similar template first (word_similarity), at least kSimilarityMin.
  };
  enum class State {
    kOff,
    kFilter,  // Equal states required (when both have one).
    kRank,    // The most similar state first (word_similarity), at least kSimilarityMin.
  };
  Mechanism mechanism = Mechanism::kRank;
  State state = State::kRank;
  bool rarity = false;  // Path features weighted by rarity; false: each weighs 1.
  enum class Actions {
    kExact,           // A known path's external action ("user stop") is covered by the same action.
    kByActor,         // ... by any external action of the same actor ("user restart").
    kByActorAndKind,  // ... of the same actor on the same kind of object: "user stop" by "user
                      // restart" (a workspace: no kind), "kubectl delete ConfigMap" only by
                      // "kubectl <verb> ConfigMap", not by "kubectl delete Namespace".
    kIgnored,         // External actions do not count in the coverage: faults only.
  };
  Actions actions = Actions::kByActorAndKind;
  double similarity_min = kSimilarityMin;  // The floor of mechanism and state similarity.
  bool weighted_words = false;             // Similarities weigh words by rarity (WordWeights).
  // With both a mechanism and a state on both sides, one similarity of the two texts together
  // (their words pooled) instead of one each, each held to the floor.
  bool combined = true;
  // The contexts (Signature::contexts; context_similarity): kOff ignores them; kRank ranks the
  // candidates by it right after mechanism + state, before coverage; kFloor also holds it to
  // context_min (when the known bug has contexts).
  enum class Context { kOff, kRank, kFloor };
  Context context = Context::kRank;
  // Rank by context similarity × path coverage (one key) instead of the context first and the
  // coverage after: a known bug with fewer contexts (no stop) must not win over one whose path
  // the finding covers better.
  bool context_times_coverage = true;
  double context_min = 0.5;
  // Compare each action's first context only (on both sides): the state when the external
  // actor first did it ("the user's first stop"), not the later repeats.
  bool first_context_per_action = true;
  // The share of the known path the finding must cover.
  double coverage_min = static_cast<double>(kPathCoverageNum) / kPathCoverageDen;
  // Every operator action (kOperatorActor) of the known path must be covered, not only 2/3 of
  // the path: the known bug needed that one-off operation, which no random workload or fault
  // produces (a hunting scenario keeps it from the script: corpus_bugs.h); a finding without it
  // is not that bug, however many of the user's actions (which every run has) it shares.
  bool operator_actions_required = true;
  // Every external action of the known path must be covered, a kubectl deletion as much as an
  // upgrade. (Measured, not the default: a fault can do what the script's kubectl did — a
  // failed apply loses an inventory as a deletion does — and the hunt then reaches the bug
  // without it.)
  bool actions_required = false;
  // At least one fault of the known path must be covered when it has faults: the user's actions
  // alone (every run has them) do not make a match. (Measured, not the default.)
  bool fault_required = false;
};

// A template without its values: every word that starts with a capital letter (a state, a
// phase, a kind, a list of kinds: what the seed was doing when the oracle looked) and every '#'
// word dropped. "desired Stopped set at # ms (request #; not returned)" → "desired set at ms
// (request not returned)". Punctuation-only leftovers are dropped with the word.
std::string relax_template(std::string_view text);

// |A ∩ B| / |A ∪ B| over the sets of words of `a` and `b` (split at spaces and , ; : / ( ) { }
// [ ]); 1 when both are empty.
double word_similarity(std::string_view a, std::string_view b);

// Word weights for weighted_word_similarity: a word's inverse document frequency over the known
// bugs' mechanisms and states (each bug one document), smoothed as log((N + 1) / (df + 1)) + 1,
// so a word every known bug's oracle writes ("desired", "actual", "#") weighs 1 and a word that
// names one bug's situation ("not tracked", "PodRejected=True") up to log(N + 1) + 1; a word no
// known bug has weighs the most. With no documents every word weighs 1 (word_similarity).
struct WordWeights {
  std::map<std::string, int> document_frequency;
  int documents = 0;
  double weight(const std::string& word) const;
};

// The weights from the known bugs of `system` (invariant prefix "gitpod").
WordWeights word_weights(const std::vector<KnownBug>& known, std::string_view system);

// Σ weight(A ∩ B) / Σ weight(A ∪ B) over the words of `a` and `b` (word_similarity's words);
// 1 when both are empty.
double weighted_word_similarity(std::string_view a, std::string_view b, const WordWeights& weights);

// The known bug whose signature `finding` carries (see the file comment), or null: NEW.
// The returned pointer points into `known`.
const KnownBug* match_known(const Signature& finding, const std::vector<KnownBug>& known,
                            const MatchOptions& options = {});

// How well `finding`'s contexts cover `known`'s: for each context of `known`, the highest
// word_similarity of its state words with a context of `finding` of the same action, or when
// there is none, of an action with the same actor and kind (the user's stop and restart are
// alike, as in the coverage), 0 when there is none either; the mean of those. With
// first_per_action, only the first context of each action counts, on both sides. When the
// known bug's mechanism names some of its actions (a word starts with the action's verb up to
// its '-': "StopWorkspace" names "user stop-reply", "RestartRequested" "user restart"), only
// those of its contexts count: the oracle says which action it judged; the others' contexts
// vary with the seed's timing (when a start's reply came). 1 when `known` has no context.
double context_similarity(const Signature& known, const Signature& finding,
                          bool first_per_action = false);

// "known: FILE#N" or "NEW".
std::string known_label(const KnownBug* known);

}  // namespace wsim::run
