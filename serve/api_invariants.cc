// The parser of the scenario's invariants over API state (api_invariants.h has the grammar).
// Checking them is api_invariants_check.cc.
#include "serve/api_invariants.h"

#include <sstream>

#include "sim/core/assert.h"
#include "sim/run/duration.h"

namespace wsim::serve {
namespace {

using Words = std::vector<std::string>;

constexpr std::size_t kTransitionsMax = 32;
constexpr std::size_t kAtomsMax = 16;
constexpr const char* kAtomForms =
    "PATH == VALUE, PATH != VALUE, label KEY, deleting, not deleting, KIND TARGET exists or no "
    "KIND TARGET";

constexpr const char* kComparisons[] = {"==", "!=", "<", "<=", ">", ">="};

// True when `word` is written in double quotes (a VALUE with spaces, or "" for no value).
bool quoted(const std::string& word) {
  return word.size() >= 2 && word.front() == '"' && word.back() == '"';
}

// The words of `text`, separated by spaces. A word that starts with a double quote runs to the
// closing one and keeps its quotes (value_of removes them), so keywords never match it; \" and
// \\ inside it are a quote and a backslash. A comma right after the closing quote is a word of
// its own (transition lists). False with `error` on an unclosed quote or text glued to one.
bool words(const std::string& text, Words& out, std::string& error) {
  out.clear();
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    if (text[i] != '"') {
      while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n') ++i;
      out.push_back(text.substr(start, i - start));
      continue;
    }
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
    }
    if (i >= text.size()) {
      error = "unclosed quote in '" + text.substr(start, 60) + "'";
      return false;
    }
    ++i;
    out.push_back(text.substr(start, i - start));
    if (i < text.size() && text[i] == ',') out.push_back(text.substr(i++, 1));
    if (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n') {
      error = "expected a space after the quoted value " + out.back();
      return false;
    }
  }
  return true;
}

bool parse_count(const std::string& text, int& out) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != text.npos) {
    return false;
  }
  out = std::stoi(text);
  return true;
}

// A VALUE as written: a quoted one without its quotes and escapes ("" is the empty value).
std::string value_of(const std::string& word) {
  if (!quoted(word)) return word;
  std::string out;
  for (std::size_t i = 1; i + 1 < word.size(); ++i) {
    if (word[i] == '\\' && i + 2 < word.size()) ++i;
    out += word[i];
  }
  return out;
}

bool is_comparison(const std::string& word) {
  for (const char* op : kComparisons) {
    if (word == op) return true;
  }
  return false;
}

// A signed decimal integer of at most 18 digits (an int64 without overflow).
bool parse_integer(const std::string& text, std::int64_t& out) {
  const std::size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() <= digits || text.size() - digits > 18 ||
      text.find_first_not_of("0123456789", digits) != std::string::npos) {
    return false;
  }
  out = std::stoll(text);
  return true;
}

std::string joined(const Words& w, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < w.size(); ++i) out += (out.empty() ? "" : " ") + w[i];
  return out;
}

// "at most N KIND per label KEY" (from `at`, the index after "at").
bool parse_at_most(const Words& w, std::size_t at, ApiInvariant& out, std::string& error) {
  if (w.size() != at + 6 || w[at] != "most" || w[at + 3] != "per" || w[at + 4] != "label" ||
      !parse_count(w[at + 1], out.at_most)) {
    error = "expected 'at most N KIND per label KEY'";
    return false;
  }
  if (!out.always || out.within_ms > 0) {
    error = "'at most' is a safety invariant: write it with 'always:'";
    return false;
  }
  out.form = ApiInvariant::Form::kAtMost;
  out.kind = w[at + 2];
  out.label = w[at + 5];
  return true;
}

// TARGET from `i`: "NS/NAME", "NAME" or "labelled KEY=VALUE"; advances `i`.
bool parse_target(const Words& w, std::size_t& i, ApiTarget& out, std::string& error) {
  if (i + 1 >= w.size()) {
    error = "expected 'KIND NAMESPACE/NAME', 'KIND NAME' or 'KIND labelled KEY=VALUE'";
    return false;
  }
  out.kind = w[i];
  if (w[i + 1] != "labelled") {
    out.ref = w[i + 1];
    i += 2;
    return true;
  }
  const std::size_t eq = i + 2 < w.size() ? w[i + 2].find('=') : std::string::npos;
  if (eq == std::string::npos || eq == 0) {
    error = "expected 'labelled KEY=VALUE' after '" + w[i] + "'";
    return false;
  }
  out.label = w[i + 2].substr(0, eq);
  out.value = w[i + 2].substr(eq + 1);
  i += 3;
  return true;
}

bool parse_comparison(const Words& w, std::size_t& i, ApiAtom& atom, std::string& error) {
  if (!valid_api_path(w[i])) {
    error = "unknown field '" + w[i] +
            "': expected spec.KEY, status.KEY, status.conditions.TYPE, metadata.name, "
            "metadata.namespace, metadata.labels.KEY, metadata.annotations.KEY or data.KEY";
    return false;
  }
  if (i + 2 >= w.size()) {
    error = "expected a value after '" + w[i] + " " + w[i + 1] + "' (\"\" for none)";
    return false;
  }
  const std::string& op = w[i + 1];
  atom.path = w[i];
  atom.value = value_of(w[i + 2]);
  if (op == "==" || op == "!=") {
    atom.op = op == "==" ? ApiAtom::Op::kEquals : ApiAtom::Op::kNotEquals;
    i += 3;
    return true;
  }
  if (quoted(w[i + 2]) || !parse_integer(atom.value, atom.number)) {
    error = "'" + op + "' compares integers: expected an integer after '" + w[i] + " " + op +
            "', got " + w[i + 2];
    return false;
  }
  atom.op = op == "<"    ? ApiAtom::Op::kLess
            : op == "<=" ? ApiAtom::Op::kLessEq
            : op == ">"  ? ApiAtom::Op::kGreater
                         : ApiAtom::Op::kGreaterEq;
  i += 3;
  return true;
}

// One ATOM from `i`; advances `i`.
bool parse_atom(const Words& w, std::size_t& i, ApiAtom& atom, std::string& error) {
  const std::size_t start = i;
  bool ok = true;
  if (i >= w.size()) {
    error = std::string("expected a condition: ") + kAtomForms;
    return false;
  }
  if (w[i] == "label" && i + 1 < w.size()) {
    atom.op = ApiAtom::Op::kHasLabel;
    atom.value = w[i + 1];
    i += 2;
  } else if (w[i] == "deleting") {
    atom.op = ApiAtom::Op::kDeleting;
    i += 1;
  } else if (w[i] == "not" && i + 1 < w.size() && w[i + 1] == "deleting") {
    atom.op = ApiAtom::Op::kNotDeleting;
    i += 2;
  } else if (w[i] == "no") {
    atom.op = ApiAtom::Op::kMissing;
    ++i;
    ok = parse_target(w, i, atom.target, error);
  } else if (i + 1 < w.size() && is_comparison(w[i + 1])) {
    ok = parse_comparison(w, i, atom, error);
  } else {
    atom.op = ApiAtom::Op::kExists;
    ok = parse_target(w, i, atom.target, error);
    if (ok && (i >= w.size() || w[i] != "exists")) {
      error = "unknown condition '" + joined(w, start, i + 1) + "': expected " + kAtomForms;
      ok = false;
    }
    i += ok ? 1 : 0;
  }
  atom.text = joined(w, start, i);
  return ok;
}

// CONDITION from `i`: ATOM [and ATOM ...] [or ATOM [and ATOM ...] ...] ("and" binds tighter);
// advances `i`.
bool parse_condition(const Words& w, std::size_t& i, std::vector<ApiAtom>& out,
                     std::string& error) {
  bool or_before = false;
  for (;;) {
    ApiAtom atom;
    if (!parse_atom(w, i, atom, error)) return false;
    atom.or_before = or_before;
    out.push_back(std::move(atom));
    if (out.size() > kAtomsMax) {
      error = "more than " + std::to_string(kAtomsMax) + " conditions";
      return false;
    }
    if (i >= w.size() || (w[i] != "and" && w[i] != "or")) return true;
    or_before = w[i] == "or";
    ++i;
  }
}

// SUBJECT from `i`: KIND [in NAMESPACE] [labelled KEY] [with CONDITION]; advances `i`.
bool parse_subject(const Words& w, std::size_t& i, ApiInvariant& out, std::string& error) {
  if (i >= w.size()) {
    error = "expected a kind after '" + w[i - 1] + "'";
    return false;
  }
  out.kind = w[i++];
  if (i + 1 < w.size() && w[i] == "in") {
    out.namespace_ = w[i + 1];
    i += 2;
  }
  if (i + 1 < w.size() && w[i] == "labelled") {
    out.label = w[i + 1];
    i += 2;
  }
  if (i < w.size() && w[i] == "with") {
    ++i;
    return parse_condition(w, i, out.with, error);
  }
  return true;
}

// "every SUBJECT has [no] KIND2 TARGET" from `at` (after "every").
bool parse_every(const Words& w, std::size_t at, ApiInvariant& out, std::string& error) {
  std::size_t i = at;
  if (!parse_subject(w, i, out, error)) return false;
  out.form = ApiInvariant::Form::kEveryHas;
  if (i < w.size() && w[i] == "has") {
    ++i;
    if (i < w.size() && w[i] == "no") {
      out.target_absent = true;
      ++i;
    }
    ApiTarget target;
    if (parse_target(w, i, target, error) && i == w.size()) {
      out.target_kind = target.kind;
      out.target_ref = target.ref;
      out.target_label = target.label;
      out.target_value = target.value;
      return true;
    }
  }
  error =
      "expected 'every KIND [in NAMESPACE] [labelled KEY] [with CONDITION] has [no] KIND2 "
      "NAMESPACE/NAME' or '... has [no] KIND2 labelled KEY=VALUE'";
  return false;
}

// "no SUBJECT" from `at` (after "no").
bool parse_none(const Words& w, std::size_t at, ApiInvariant& out, std::string& error) {
  std::size_t i = at;
  if (!parse_subject(w, i, out, error)) return false;
  out.form = ApiInvariant::Form::kNone;
  if (i == w.size()) return true;
  error = "unexpected '" + w[i] + "': expected 'no KIND [in NAMESPACE] [labelled KEY] [with " +
          "CONDITION]'";
  return false;
}

// "SUBJECT implies CONDITION" from `at`.
bool parse_implies(const Words& w, std::size_t at, ApiInvariant& out, std::string& error) {
  std::size_t i = at;
  if (!parse_subject(w, i, out, error)) return false;
  out.form = ApiInvariant::Form::kImplies;
  if (i >= w.size() || w[i] != "implies") {
    error = (i < w.size() ? "unexpected '" + w[i] + "': " : std::string()) +
            "expected 'at most ...', 'every ...', 'no ...' or 'KIND [with CONDITION] implies "
            "CONDITION'";
    return false;
  }
  ++i;
  if (!parse_condition(w, i, out.then, error)) return false;
  if (i == w.size()) return true;
  error = "unexpected '" + w[i] + "' after the condition (conditions are joined by 'and' or 'or')";
  return false;
}

// "A -> B, C -> D" (the words from `from` on; a comma ends an unquoted B or is a word of its
// own after a quoted one, words()).
bool parse_transitions(const Words& w, std::size_t from, ApiInvariant& out, std::string& error) {
  for (std::size_t i = from;;) {
    if (i + 2 >= w.size() || w[i + 1] != "->") {
      error = "expected transitions 'A -> B[, C -> D ...]' (values, * or \"\"), got '" +
              joined(w, i, w.size()) + "'";
      return false;
    }
    const std::string from_value = value_of(w[i]);
    std::string to = w[i + 2];
    i += 3;
    bool more = false;
    if (!quoted(to) && to.size() > 1 && to.back() == ',') {
      to.pop_back();
      more = true;
    } else if (i < w.size() && w[i] == ",") {
      ++i;
      more = true;
    }
    out.transitions.emplace_back(from_value, value_of(to));
    if (out.transitions.size() > kTransitionsMax) {
      error = "more than " + std::to_string(kTransitionsMax) + " transitions";
      return false;
    }
    if (!more && i == w.size()) return true;
    if (!more) {
      error = "unexpected '" + w[i] + "' after a transition (transitions are separated by ',')";
      return false;
    }
  }
}

// "SUBJECT PATH never|only TRANSITIONS" or "SUBJECT PATH after A never B" from `at`.
bool parse_history(const Words& w, std::size_t at, ApiInvariant& out, std::string& error) {
  std::size_t i = at;
  if (!parse_subject(w, i, out, error)) return false;
  out.form = ApiInvariant::Form::kHistory;
  const char* expected =
      "expected 'history: KIND [with CONDITION] PATH never A -> B[, ...]', '... PATH only A -> "
      "B[, ...]' or '... PATH after A never B'";
  if (i + 2 >= w.size()) {
    error = expected;
    return false;
  }
  out.path = w[i];
  if (!valid_api_path(out.path)) {
    error =
        "unknown field '" + out.path + "' in a history rule: expected spec.KEY, status.KEY, ...";
    return false;
  }
  const std::string& mode = w[i + 1];
  if (mode == "after" && i + 5 == w.size() && w[i + 3] == "never") {
    out.history = ApiInvariant::History::kAfterNever;
    out.transitions.emplace_back(value_of(w[i + 2]), value_of(w[i + 4]));
    return true;
  }
  if (mode != "never" && mode != "only") {
    error = expected;
    return false;
  }
  out.history = mode == "never" ? ApiInvariant::History::kNever : ApiInvariant::History::kOnly;
  return parse_transitions(w, i + 2, out, error);
}

// "eventually within DURATION:" (w[0] is "eventually").
bool parse_within(const Words& w, ApiInvariant& out, std::string& error) {
  if (w.size() < 3 || w[1] != "within" || w[2].size() < 2 || w[2].back() != ':') {
    error = "expected 'eventually:' or 'eventually within DURATION:' (e.g. 'within 60s:')";
    return false;
  }
  std::string why;
  if (!run::parse_duration_ms(w[2].substr(0, w[2].size() - 1), out.within_ms, why) ||
      out.within_ms <= 0) {
    error = "bad duration '" + w[2].substr(0, w[2].size() - 1) + "' (e.g. 500ms, 60s, 5m)" +
            (why.empty() ? "" : ": " + why);
    return false;
  }
  out.always = true;
  return true;
}

}  // namespace

bool valid_api_path(const std::string& path) {
  for (const char* prefix :
       {"spec.", "status.", "metadata.labels.", "metadata.annotations.", "data."}) {
    const std::string p(prefix);
    if (path.size() > p.size() && path.rfind(p, 0) == 0) return true;
  }
  return path == "metadata.name" || path == "metadata.namespace";
}

bool parse_api_invariant(const std::string& text, ApiInvariant& out, std::string& error) {
  Words w;
  if (!words(text, w, error)) return false;
  out.text = text;
  if (w.empty() ||
      (w[0] != "always:" && w[0] != "eventually:" && w[0] != "eventually" && w[0] != "history:")) {
    error =
        "an invariant starts with 'always:', 'eventually:', 'eventually within DURATION:' or "
        "'history:'";
    return false;
  }
  if (w[0] == "history:") return parse_history(w, 1, out, error);
  out.always = w[0] == "always:";
  std::size_t at = 1;
  if (w[0] == "eventually") {
    if (!parse_within(w, out, error)) return false;
    at = 3;
  }
  if (w.size() > at && w[at] == "at") return parse_at_most(w, at + 1, out, error);
  if (w.size() > at && w[at] == "every") return parse_every(w, at + 1, out, error);
  if (w.size() > at && w[at] == "no") return parse_none(w, at + 1, out, error);
  if (w.size() > at) return parse_implies(w, at, out, error);
  error = "expected 'at most ...', 'every ...', 'no ...' or 'KIND ... implies ...' after '" +
          joined(w, 0, at) + "'";
  return false;
}

bool parse_api_invariants(const std::vector<std::string>& texts, std::vector<ApiInvariant>& out,
                          std::string& error) {
  int safety = 0;
  int liveness = 0;
  out.clear();
  for (std::size_t i = 0; i < texts.size(); ++i) {
    ApiInvariant inv;
    if (!parse_api_invariant(texts[i], inv, error)) {
      error = "invariants[" + std::to_string(i) + "] \"" + texts[i].substr(0, 120) + "\": " + error;
      return false;
    }
    WSIM_ASSERT(!inv.kind.empty());
    inv.id = inv.always ? "external.S" + std::to_string(++safety)
                        : "external.L" + std::to_string(++liveness);
    out.push_back(std::move(inv));
  }
  WSIM_ASSERT_EQ(out.size(), texts.size());
  return true;
}

}  // namespace wsim::serve
