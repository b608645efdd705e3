// Finding signatures (signature.h): normalising trace events and oracle texts, the path and
// contexts of a violation, word similarities, and matching a finding to the nearest known bug.
#include "sim/run/signature.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/core/assert.h"
#include "sim/run/lanes.h"
#include "sim/run/trace_view.h"

namespace wsim::run {

namespace {

// "Pod/gitpod/ws-1" → "Pod"; a bare name (a workspace, a user) names the seed, not the bug.
std::string_view object_kind(std::string_view object) {
  if (object.empty() || !(object[0] >= 'A' && object[0] <= 'Z')) return {};
  const std::string_view kind = object.substr(0, object.find('/'));
  WSIM_ASSERT(!kind.empty());
  WSIM_ASSERT_EQ(kind.find('/'), std::string_view::npos);
  return kind;
}

// The result's class: ok, or the few results that name a situation (NotFound, AlreadyExists,
// Forbidden, Gone, Conflict), or "fail": whether a request was lost, timed out, throttled or
// answered 5xx is the swarm's choice; what the reconciler saw is that it failed.
std::string_view result_class(std::string_view result) {
  static constexpr std::string_view kOk[] = {"ok", "OK", "200", "201"};
  static constexpr std::string_view kKept[] = {"NotFound", "Gone", "AlreadyExists", "Forbidden",
                                               "Conflict"};
  if (std::find(std::begin(kOk), std::end(kOk), result) != std::end(kOk)) return "ok";
  if (std::find(std::begin(kKept), std::end(kKept), result) != std::end(kKept)) return result;
  if (result.empty()) return {};
  return "fail";
}

bool is_harness(const TraceEvent& event) { return generic_lane(event.actor) == Lane::kHarness; }

// On the object's path: naming it, or naming no object at all (a channel fault such as a lost
// response concerns every object, as `wsim explain` also shows).
bool touches(const TraceEvent& event, const std::string& object) {
  if (object.empty() || event.object.empty()) return true;
  return names_object(event.object, object) || names_object(event.actor, object);
}

bool alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Quoted values ('x', "x") become an empty pair of quotes. A quote opens only at the start of a
// word and closes only at the end of one, so an apostrophe inside a word ("doesn't") is text.
std::string drop_quoted(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '"' || c == '\'') && (i == 0 || !alnum(text[i - 1]))) {
      std::size_t close = text.find(c, i + 1);
      while (close != std::string_view::npos && close + 1 < text.size() && alnum(text[close + 1])) {
        close = text.find(c, close + 1);
      }
      if (close != std::string_view::npos) {
        out += c;
        out += c;
        i = close;
        continue;
      }
    }
    out += c;
  }
  WSIM_ASSERT_LE(out.size(), text.size());  // A quoted value shrinks to its two quotes.
  return out;
}

// One word of a text, normalised (normalize_text): punctuation around it stays.
std::string normalize_word(std::string_view word, std::string_view object) {
  std::size_t begin = 0;
  std::size_t end = word.size();
  while (begin < end && std::string_view("([{").find(word[begin]) != std::string_view::npos) {
    ++begin;
  }
  while (end > begin && std::string_view(",;:.)]}").find(word[end - 1]) != std::string_view::npos) {
    --end;
  }
  WSIM_ASSERT_LE(begin, end);
  WSIM_ASSERT_LE(end, word.size());
  std::string_view core = word.substr(begin, end - begin);
  if (!core.empty() && core[0] >= 'A' && core[0] <= 'Z' &&
      core.find('/') != std::string_view::npos) {
    core = core.substr(0, core.find('/'));  // "Pod/gitpod/ws-1" → "Pod".
  } else if (!object.empty() && names_object(core, object)) {
    core = {};
  }
  const std::string kept =
      std::string(word.substr(0, begin)) + std::string(core) + std::string(word.substr(end));
  std::string out;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const bool digit = kept[i] >= '0' && kept[i] <= '9';
    if (!digit) {
      out += kept[i];
    } else if (i == 0 || !(kept[i - 1] >= '0' && kept[i - 1] <= '9')) {
      out += '#';
    }
  }
  WSIM_ASSERT_LE(out.size(), word.size());  // Only drops and collapses, never adds.
  return out;
}

// "kubectl delete ConfigMap" → {"kubectl", "ConfigMap"}; "user stop" → {"user", ""}: an
// external action's actor and the kind of object it acted on (normalize_event: the kind is the
// capitalised third word, when there is one).
std::pair<std::string_view, std::string_view> actor_and_kind(std::string_view action) {
  const std::size_t actor_end = action.find(' ');
  const std::string_view actor = action.substr(0, actor_end);
  WSIM_ASSERT_EQ(actor.find(' '), std::string_view::npos);
  if (actor_end == std::string_view::npos) return {actor, {}};
  const std::size_t verb_end = action.find(' ', actor_end + 1);
  if (verb_end == std::string_view::npos) return {actor, {}};
  const std::string_view rest = action.substr(verb_end + 1);
  const std::string_view kind = rest.substr(0, rest.find(' '));
  if (kind.empty() || !(kind[0] >= 'A' && kind[0] <= 'Z')) return {actor, {}};
  return {actor, kind};
}

bool same_actor_and_kind(std::string_view a, std::string_view b) {
  return actor_and_kind(a) == actor_and_kind(b);
}

// A feature's rarity weight among `known` bugs of the finding's system (the file comment).
std::map<std::string, double> rarity_weights(const Signature& finding,
                                             const std::vector<KnownBug>& known) {
  const std::string_view invariant = finding.invariant;
  const std::string_view system = invariant.substr(0, invariant.find('.'));
  std::map<std::string, int> with_feature;
  int bugs = 0;
  for (const KnownBug& bug : known) {
    const std::string_view other = bug.signature.invariant;
    if (other.substr(0, other.find('.')) != system) continue;
    ++bugs;
    for (const std::string& feature : bug.signature.path) ++with_feature[feature];
  }
  std::map<std::string, double> weights;
  for (const auto& [feature, count] : with_feature) {
    // A signature's path is unique (compute_signature), so a feature counts once per bug.
    WSIM_ASSERT_GT(count, 0);
    WSIM_ASSERT_LE(count, bugs);
    // As if one more bug (the finding's) had none of the features: a feature every known bug
    // has weighs little, not nothing, and with one known bug every feature weighs the same.
    weights[feature] = std::log(static_cast<double>(bugs + 1) / static_cast<double>(count));
  }
  return weights;
}

}  // namespace

std::string normalize_text(std::string_view text, std::string_view object) {
  const std::string unquoted = drop_quoted(text);
  std::string out;
  std::size_t at = 0;
  while (at < unquoted.size()) {
    while (at < unquoted.size() && space(unquoted[at])) ++at;
    std::size_t end = at;
    while (end < unquoted.size() && !space(unquoted[end])) ++end;
    if (end == at) break;
    const std::string word =
        normalize_word(std::string_view(unquoted).substr(at, end - at), object);
    if (!word.empty()) out += (out.empty() ? "" : " ") + word;
    at = end;
  }
  // Whitespace collapsed: single spaces between words, none at either end.
  if (!out.empty()) WSIM_ASSERT_NE(out.front(), ' ');
  if (!out.empty()) WSIM_ASSERT_NE(out.back(), ' ');
  return out;
}

std::string relax_template(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && space(text[at])) ++at;
    std::size_t end = at;
    while (end < text.size() && !space(text[end])) ++end;
    if (end == at) break;
    const std::string_view word = text.substr(at, end - at);
    at = end;
    std::size_t letter = 0;
    while (letter < word.size() && !alnum(word[letter]) && word[letter] != '#') ++letter;
    if (letter < word.size() &&
        ((word[letter] >= 'A' && word[letter] <= 'Z') || word[letter] == '#')) {
      continue;
    }
    out += (out.empty() ? "" : " ") + std::string(word);
  }
  WSIM_ASSERT_LE(out.size(), text.size());  // Words dropped, none added.
  return out;
}

namespace {

// The words of a text, split at spaces and , ; : / ( ) { } [ ].
std::set<std::string> words_of(std::string_view text) {
  std::set<std::string> out;
  std::string word;
  for (const char c : text) {
    if (space(c) || std::string_view(",;:/(){}[]").find(c) != std::string_view::npos) {
      if (!word.empty()) out.insert(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.insert(word);
  WSIM_ASSERT_EQ(out.count(""), 0u);
  return out;
}

// One Kubernetes object as the trace has shown it so far (action_context).
struct SeenObject {
  std::string existence;  // "created", "written", "deleted".
  std::string last;       // The last verb other than a read or a write while not deleted.
};

bool read_verb(std::string_view verb) { return verb == "get" || verb == "list" || verb == "watch"; }

// "Pod/gitpod/ws-1" and "Pod/ws-1" → "Pod/ws-1": one object whether or not the actor named its
// namespace (a fault injector arming a rejection for a pod not created yet does not).
std::string object_key(std::string_view object) {
  WSIM_ASSERT(!object_kind(object).empty());  // Only Kubernetes objects are keyed.
  return std::string(object_kind(object)) + "/" + std::string(object.substr(object.rfind('/') + 1));
}

// Updates `seen` with one event on a Kubernetes object (action_context's rules).
void observe(std::map<std::string, SeenObject>& seen, const TraceEvent& event) {
  WSIM_ASSERT(!object_kind(event.object).empty());  // Paired with observe_if_named.
  if (read_verb(event.verb)) return;
  const bool ok = result_class(event.result) == "ok";
  const std::string key = object_key(event.object);
  const auto it = seen.find(key);
  const bool live = it != seen.end() && it->second.existence != "deleted";
  if (event.verb == "create" || event.verb == "apply") {
    if (!ok) return;
    if (live && event.verb == "apply") {
      it->second.existence = "written";
    } else {
      seen[key] = SeenObject{"created", ""};
    }
    return;
  }
  if (event.verb == "update" || event.verb == "patch") {
    if (ok && live) it->second.existence = "written";
    return;
  }
  if (event.verb == "delete") {
    if (ok && live) it->second.existence = "deleted";
    return;
  }
  // Another actor's step on the object (a kubelet's admit or reject, a scheduler's bind). One
  // that succeeded shows the object exists although the trace did not show its creation (a
  // controller's pod); a fault injector arming itself for a pod not created yet does not.
  if (it == seen.end()) {
    if (!ok) return;
    seen[key] = SeenObject{"created", event.verb};
  } else if (live) {
    it->second.last = event.verb;
  }
}

// The state words of `seen` (action_context), sorted and deduplicated.
std::string seen_words(const std::map<std::string, SeenObject>& seen) {
  std::set<std::string> words;
  for (const auto& [name, object] : seen) {
    WSIM_ASSERT(!object.existence.empty());  // observe() creates an object with its existence.
    const std::string kind(object_kind(name));
    words.insert(kind + "=" + object.existence);
    if (!object.last.empty()) words.insert(kind + "@" + object.last);
  }
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

// Observes `event` when it is an actor's step on a Kubernetes object that names `object`.
void observe_if_named(std::map<std::string, SeenObject>& seen, const TraceEvent& event,
                      std::string_view object) {
  if (is_harness(event) || is_scripted_marker(event) || object_kind(event.object).empty()) return;
  if (names_object(event.object, object)) observe(seen, event);
}

// "ACTION: WORDS" (action_context) of trace[at] given the objects seen before it.
std::string context_text(const TraceEvent& event, const std::map<std::string, SeenObject>& seen) {
  TraceEvent action = event;
  action.result.clear();
  const std::string words = seen_words(seen);
  return normalize_event(action) + ":" + (words.empty() ? "" : " " + words);
}

// Appends the context of `event` to `contexts` (unless there already) when it is an external
// action on `object` itself (one that names it; a channel fault names none).
void add_context(std::vector<std::string>& contexts,
                 const std::set<std::string, std::less<>>& external_actors, const TraceEvent& event,
                 const std::map<std::string, SeenObject>& seen, std::string_view object) {
  if (object.empty() || event.object.empty() || is_harness(event) || is_scripted_marker(event)) {
    return;
  }
  if (external_actors.count(actor_prefix(event.actor)) == 0) return;
  if (!names_object(event.object, object) && !names_object(event.actor, object)) return;
  std::string context = context_text(event, seen);
  if (std::find(contexts.begin(), contexts.end(), context) == contexts.end()) {
    contexts.push_back(std::move(context));
  }
}

// "user stop-reply: Pod=deleted" → {"user stop-reply", "Pod=deleted"}.
std::pair<std::string_view, std::string_view> split_context(std::string_view context) {
  const std::size_t colon = context.find(": ");
  if (colon == std::string_view::npos) return {context.substr(0, context.find(':')), {}};
  return {context.substr(0, colon), context.substr(colon + 2)};
}

// Whether `text` has a word that starts with `stem`, letters compared without case:
// "StopWorkspace" and "stopped" start with "stop".
bool names_stem(std::string_view text, std::string_view stem) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (stem.empty()) return false;
  for (std::size_t i = 0; i + stem.size() <= text.size(); ++i) {
    if (i > 0 && alnum(text[i - 1])) continue;
    std::size_t n = 0;
    while (n < stem.size() && lower(text[i + n]) == lower(stem[n])) ++n;
    if (n == stem.size()) return true;
  }
  return false;
}

// The verb of a context's action up to its first '-': "user stop-reply" → "stop".
std::string_view action_stem(std::string_view action) {
  const std::size_t space = action.find(' ');
  if (space == std::string_view::npos) return {};
  const std::string_view verb = action.substr(space + 1);
  return verb.substr(0, std::min(verb.find('-'), verb.find(' ')));
}

// The contexts context_similarity compares: all, or each action's first; of those, the ones
// whose action the oracle's message names, when it names some (`mechanism`).
std::vector<std::string> counted_contexts(const Signature& signature, bool first_per_action,
                                          std::string_view mechanism = {}) {
  std::vector<std::string> out;
  std::set<std::string_view> actions;
  for (const std::string& context : signature.contexts) {
    const bool first = actions.insert(split_context(context).first).second;
    if (first || !first_per_action) out.push_back(context);
  }
  std::vector<std::string> named;
  for (const std::string& context : out) {
    if (names_stem(mechanism, action_stem(split_context(context).first))) named.push_back(context);
  }
  WSIM_ASSERT_LE(out.size(), signature.contexts.size());
  WSIM_ASSERT_LE(named.size(), out.size());
  return named.empty() ? out : named;
}

}  // namespace

std::string action_context(const std::vector<TraceEvent>& trace, std::size_t at,
                           std::string_view object) {
  WSIM_ASSERT_LT(at, trace.size());
  std::map<std::string, SeenObject> seen;
  for (std::size_t i = 0; i < at; ++i) observe_if_named(seen, trace[i], object);
  WSIM_ASSERT_LE(seen.size(), at);  // Each object seen came from an earlier event.
  return context_text(trace[at], seen);
}

double context_similarity(const Signature& known, const Signature& finding, bool first_per_action) {
  const std::vector<std::string> known_contexts =
      counted_contexts(known, first_per_action, known.mechanism);
  const std::vector<std::string> finding_contexts = counted_contexts(finding, first_per_action);
  if (known_contexts.empty()) return 1.0;
  double sum = 0;
  for (const std::string& known_context : known_contexts) {
    const auto [action, words] = split_context(known_context);
    double best_exact = -1;
    double best_alike = 0;
    for (const std::string& context : finding_contexts) {
      const auto [other_action, other_words] = split_context(context);
      const double similarity = word_similarity(words, other_words);
      if (other_action == action) {
        best_exact = std::max(best_exact, similarity);
      } else if (same_actor_and_kind(other_action, action)) {
        best_alike = std::max(best_alike, similarity);
      }
    }
    sum += best_exact >= 0 ? best_exact : best_alike;
  }
  const double mean = sum / static_cast<double>(known_contexts.size());
  WSIM_ASSERT(mean >= 0.0);
  WSIM_ASSERT(mean <= 1.0 + 1e-9);  // A mean of similarities, each at most 1.
  return mean;
}

double word_similarity(std::string_view a, std::string_view b) {
  return weighted_word_similarity(a, b, WordWeights{});
}

WordWeights word_weights(const std::vector<KnownBug>& known, std::string_view system) {
  WordWeights weights;
  for (const KnownBug& bug : known) {
    const std::string_view invariant = bug.signature.invariant;
    if (invariant.substr(0, invariant.find('.')) != system) continue;
    ++weights.documents;
    std::set<std::string> words = words_of(bug.signature.mechanism);
    const std::set<std::string> state = words_of(bug.signature.state);
    words.insert(state.begin(), state.end());
    for (const std::string& word : words) ++weights.document_frequency[word];
  }
  // A word counts once per document (the words are a set), so weight() is at least 1.
  for (const auto& [word, frequency] : weights.document_frequency) {
    WSIM_ASSERT_LE(frequency, weights.documents);
  }
  return weights;
}

double WordWeights::weight(const std::string& word) const {
  WSIM_ASSERT_GE(documents, 0);
  if (documents == 0) return 1.0;
  const auto it = document_frequency.find(word);
  const double df = it == document_frequency.end() ? 0.0 : static_cast<double>(it->second);
  return std::log((static_cast<double>(documents) + 1.0) / (df + 1.0)) + 1.0;
}

double weighted_word_similarity(std::string_view a, std::string_view b,
                                const WordWeights& weights) {
  const std::set<std::string> wa = words_of(a);
  const std::set<std::string> wb = words_of(b);
  if (wa.empty() && wb.empty()) return 1.0;
  double shared = 0;
  double all = 0;
  for (const std::string& word : wa) {
    const double w = weights.weight(word);
    all += w;
    if (wb.count(word) > 0) shared += w;
  }
  for (const std::string& word : wb) {
    if (wa.count(word) == 0) all += weights.weight(word);
  }
  WSIM_ASSERT(all > 0);
  WSIM_ASSERT(shared <= all);  // The shared words are some of all the words.
  return shared / all;
}

std::string normalize_state(std::string_view state, std::string_view object) {
  if (object.empty()) return "";
  std::set<std::string> lines;
  std::size_t at = 0;
  while (at <= state.size()) {
    std::size_t end = state.find('\n', at);
    if (end == std::string_view::npos) end = state.size();
    const std::string_view line = state.substr(at, end - at);
    if (names_object(line, object)) {
      std::string normal = normalize_text(line, object);
      if (!normal.empty()) lines.insert(std::move(normal));
    }
    at = end + 1;
  }
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : " / ") + line;
  return out;
}

std::string Signature::text() const {
  std::string out = invariant;
  if (!culprit.empty()) out += " @ " + culprit;
  if (!mechanism.empty()) out += " [" + mechanism + "]";
  if (!state.empty()) out += " {" + state + "}";
  out += " |";
  if (path.empty()) out += " -";
  for (std::size_t i = 0; i < path.size(); ++i) out += (i == 0 ? " " : "; ") + path[i];
  return out;
}

std::string Signature::contexts_text() const {
  std::string out;
  for (const std::string& context : contexts) out += (out.empty() ? "" : " || ") + context;
  return out.empty() ? "-" : out;
}

std::string normalize_event(const TraceEvent& event) {
  std::string out(actor_prefix(event.actor));
  out += " " + event.verb;
  const std::string_view kind = object_kind(event.object);
  if (!kind.empty()) out += " " + std::string(kind);
  const std::string_view result = result_class(event.result);
  if (!result.empty()) out += " " + std::string(result);
  return out;
}

std::set<std::string, std::less<>> external_actors_of(const System& system) {
  std::set<std::string, std::less<>> actors = {"user", "kubectl", "admin"};
  // A system's scripted fault actors (kubelet, link, api) are not external actions: their
  // faults are on the path as faults, their ordinary work is not.
  for (const ActionInfo& action : system.actions()) {
    if (generic_lane(action.actor) == Lane::kUser) actors.insert(action.actor);
  }
  return actors;
}

Signature compute_signature(const std::set<std::string, std::less<>>& external_actors,
                            const std::vector<TraceEvent>& trace,
                            std::optional<std::size_t> culprit, const Violation& violation,
                            std::string_view final_state) {
  WSIM_ASSERT(!violation.invariant_id.empty());
  Signature signature;
  signature.invariant = violation.invariant_id;
  if (culprit) {
    WSIM_ASSERT_LT(*culprit, trace.size());
    // The harness's own events (a monitor's note) are not the culprit: the event before is.
    std::size_t at = *culprit;
    while (at > 0 && is_harness(trace[at])) --at;
    if (!is_harness(trace[at])) signature.culprit = normalize_event(trace[at]);
  }
  // "world" and empty objects name no object: every event is on the path.
  const std::string object = violation.object == "world" ? "" : violation.object;
  signature.mechanism = normalize_text(violation.message, object);
  signature.state = normalize_state(final_state, object);
  std::set<std::string> path;
  std::set<std::string> actions;
  std::map<std::string, SeenObject> seen;  // The objects naming `object` so far (contexts).
  for (const TraceEvent& event : trace) {
    add_context(signature.contexts, external_actors, event, seen, object);
    if (!object.empty()) observe_if_named(seen, event, object);
    if (is_harness(event) || is_scripted_marker(event) || !touches(event, object)) continue;
    // An external action is named without its result (the reply to a user varies by seed).
    const bool external = external_actors.count(actor_prefix(event.actor)) > 0;
    if (external) {
      TraceEvent action = event;
      action.result.clear();
      path.insert(normalize_event(action));
      actions.insert(normalize_event(action));
    } else if (is_fault_symptom(event)) {
      // On an API request a Conflict is routine (the caller re-reads and retries); a step of the
      // reconciler that ends in Conflict ("write-condition ws-1 Conflict": its retries ran out)
      // failed, whatever the last error was.
      const bool api_request = !object_kind(event.object).empty();
      if (event.result == "Conflict" && api_request) continue;
      TraceEvent step = event;
      if (event.result == "Conflict") step.result = "fail";
      path.insert(normalize_event(step));
    }
  }
  signature.path.assign(path.begin(), path.end());
  signature.actions.assign(actions.begin(), actions.end());
  WSIM_ASSERT(std::is_sorted(signature.path.begin(), signature.path.end()));
  // Every external action is also a path feature (match_known's coverage relies on it).
  WSIM_ASSERT_LE(signature.actions.size(), signature.path.size());
  return signature;
}

const KnownBug* match_known(const Signature& finding, const std::vector<KnownBug>& known,
                            const MatchOptions& options) {
  // The coverage below binary-searches the finding's path and actions (compute_signature sorts).
  WSIM_ASSERT(std::is_sorted(finding.path.begin(), finding.path.end()));
  WSIM_ASSERT(std::is_sorted(finding.actions.begin(), finding.actions.end()));
  WSIM_ASSERT_LE(options.coverage_min, 1.0);
  const std::map<std::string, double> weights =
      options.rarity ? rarity_weights(finding, known) : std::map<std::string, double>{};
  const std::string_view invariant = finding.invariant;
  const WordWeights word_weight =
      options.weighted_words ? word_weights(known, invariant.substr(0, invariant.find('.')))
                             : WordWeights{};
  auto weight = [&](const std::string& feature) {
    if (!options.rarity) return 1.0;
    const auto it = weights.find(feature);
    return it == weights.end() ? 0.0 : it->second;
  };
  using Mechanism = MatchOptions::Mechanism;
  using State = MatchOptions::State;
  constexpr double kEpsilon = 1e-9;
  const std::string relaxed = relax_template(finding.mechanism);
  const KnownBug* best = nullptr;
  double best_state = 0;
  double best_context = 0;
  double best_coverage = 0;
  double best_shared = 0;
  for (const KnownBug& bug : known) {
    const Signature& k = bug.signature;
    if (k.invariant != finding.invariant) continue;
    const bool both_mechanism = !k.mechanism.empty() && !finding.mechanism.empty();
    // The culprit (the last event before the check) tells mechanisms apart only when the
    // oracle's own description does not: with both mechanisms present it is not a filter (an
    // unrelated event between a response and its check must not make a known bug NEW).
    if (!both_mechanism && !k.culprit.empty() && !finding.culprit.empty() &&
        k.culprit != finding.culprit) {
      continue;
    }
    if (both_mechanism && options.mechanism == Mechanism::kExact &&
        k.mechanism != finding.mechanism) {
      continue;
    }
    if (both_mechanism && options.mechanism == Mechanism::kRelaxed &&
        relax_template(k.mechanism) != relaxed) {
      continue;
    }
    const bool both_state = !k.state.empty() && !finding.state.empty();
    if (both_state && options.state == State::kFilter && k.state != finding.state) continue;
    // The similarities of mechanism and state rank first (kRank); 1 when not compared.
    double mechanism = both_mechanism && options.mechanism == Mechanism::kRank
                           ? weighted_word_similarity(k.mechanism, finding.mechanism, word_weight)
                           : 1.0;
    double state_similarity = both_state && options.state == State::kRank
                                  ? weighted_word_similarity(k.state, finding.state, word_weight)
                                  : 1.0;
    if (options.combined && both_mechanism && both_state && options.mechanism == Mechanism::kRank &&
        options.state == State::kRank) {
      // One text: a word the seed changed in a short state weighs what it weighs in the whole.
      mechanism = weighted_word_similarity(k.mechanism + " / " + k.state,
                                           finding.mechanism + " / " + finding.state, word_weight);
      state_similarity = mechanism;
    }
    if (mechanism + kEpsilon < options.similarity_min ||
        state_similarity + kEpsilon < options.similarity_min) {
      continue;
    }
    const double state = mechanism + state_similarity;
    double context = options.context == MatchOptions::Context::kOff
                         ? 1.0
                         : context_similarity(k, finding, options.first_context_per_action);
    if (options.context == MatchOptions::Context::kFloor &&
        context + kEpsilon < options.context_min) {
      continue;
    }
    double total = 0;
    double shared = 0;
    bool missing_action = false;  // An external action of k's path not covered.
    bool has_fault = false;       // k's path has a fault ...
    bool fault_covered = false;   // ... and the finding covers one.
    for (const std::string& feature : k.path) {
      const bool action = std::binary_search(k.actions.begin(), k.actions.end(), feature);
      if (action && options.actions == MatchOptions::Actions::kIgnored) continue;
      const double w = weight(feature);
      total += w;
      bool covered = std::binary_search(finding.path.begin(), finding.path.end(), feature);
      if (!covered && action && options.actions == MatchOptions::Actions::kByActor) {
        const std::string actor = feature.substr(0, feature.find(' ') + 1);  // "user ".
        covered = std::any_of(finding.actions.begin(), finding.actions.end(),
                              [&](const std::string& a) { return a.rfind(actor, 0) == 0; });
      }
      if (!covered && action && options.actions == MatchOptions::Actions::kByActorAndKind) {
        covered =
            std::any_of(finding.actions.begin(), finding.actions.end(),
                        [&](const std::string& a) { return same_actor_and_kind(a, feature); });
      }
      if (covered) shared += w;
      const bool required =
          options.actions_required ||
          (options.operator_actions_required && actor_and_kind(feature).first == kOperatorActor);
      missing_action = missing_action || (!covered && action && required);
      has_fault = has_fault || !action;
      fault_covered = fault_covered || (!action && covered);
    }
    if (missing_action || (options.fault_required && has_fault && !fault_covered)) continue;
    // A known path with nothing counted is covered by any path.
    const double coverage = total <= kEpsilon ? 1.0 : shared / total;
    WSIM_ASSERT(coverage >= 0.0);
    WSIM_ASSERT(coverage <= 1.0 + kEpsilon);
    if (coverage + kEpsilon < options.coverage_min) {
      continue;
    }
    // A more similar mechanism and state, then more similar contexts, then higher coverage,
    // then more shared weight, then corpus order.
    if (options.context != MatchOptions::Context::kOff && options.context_times_coverage) {
      context *= coverage;
    }
    const bool same_state = std::abs(state - best_state) <= kEpsilon;
    const bool same_context = same_state && std::abs(context - best_context) <= kEpsilon;
    const bool same_coverage = std::abs(coverage - best_coverage) <= kEpsilon;
    if (best == nullptr || state > best_state + kEpsilon ||
        (same_state && context > best_context + kEpsilon) ||
        (same_context && coverage > best_coverage + kEpsilon) ||
        (same_context && same_coverage && shared > best_shared + kEpsilon)) {
      best = &bug;
      best_state = state;
      best_context = context;
      best_coverage = coverage;
      best_shared = shared;
    }
  }
  WSIM_ASSERT(best == nullptr || best->signature.invariant == finding.invariant);
  return best;
}

std::string known_label(const KnownBug* known) {
  return known == nullptr ? "NEW" : "known: " + known->name;
}

}  // namespace wsim::run
