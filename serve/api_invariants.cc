#include "serve/api_invariants.h"

#include <map>
#include <sstream>

namespace wsim::serve {
namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

bool parse_count(const std::string& text, int& out) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != text.npos) {
    return false;
  }
  out = std::stoi(text);
  return true;
}

// "at most N KIND per label KEY" (from `at`, the index after "at").
bool parse_at_most(const std::vector<std::string>& w, std::size_t at, ApiInvariant& out,
                   std::string& error) {
  if (w.size() != at + 6 || w[at] != "most" || w[at + 3] != "per" || w[at + 4] != "label" ||
      !parse_count(w[at + 1], out.at_most)) {
    error = "expected 'at most N KIND per label KEY'";
    return false;
  }
  if (!out.always) {
    error = "'at most' is a safety invariant: write it with 'always:'";
    return false;
  }
  out.form = ApiInvariant::Form::kAtMost;
  out.kind = w[at + 2];
  out.label = w[at + 5];
  return true;
}

// "[in NAMESPACE] [labelled KEY]" from `i`; advances `i`.
void parse_scope(const std::vector<std::string>& w, std::size_t& i, ApiInvariant& out) {
  if (i + 1 < w.size() && w[i] == "in") {
    out.namespace_ = w[i + 1];
    i += 2;
  }
  if (i + 1 < w.size() && w[i] == "labelled") {
    out.label = w[i + 1];
    i += 2;
  }
}

// "every KIND [in NS] [labelled KEY] has KIND2 TARGET" or "no KIND [in NS] [labelled KEY]".
bool parse_every_or_no(const std::vector<std::string>& w, std::size_t at, ApiInvariant& out,
                       std::string& error) {
  const bool every = w[at - 1] == "every";
  if (at >= w.size()) {
    error = "expected a kind after '" + w[at - 1] + "'";
    return false;
  }
  out.kind = w[at];
  std::size_t i = at + 1;
  parse_scope(w, i, out);
  if (!every) {
    out.form = ApiInvariant::Form::kNone;
    if (i == w.size()) return true;
    error = "unexpected '" + w[i] + "': expected 'no KIND [in NAMESPACE] [labelled KEY]'";
    return false;
  }
  out.form = ApiInvariant::Form::kEveryHas;
  if (i + 2 == w.size() && w[i] == "has") {
    out.target_kind = w[i + 1];
    error = "expected 'has KIND2 NAMESPACE/NAME' or 'has KIND2 labelled KEY=VALUE'";
    return false;
  }
  if (i + 3 == w.size() && w[i] == "has") {
    out.target_kind = w[i + 1];
    out.target_ref = w[i + 2];
    return true;
  }
  const std::size_t eq = i + 4 == w.size() ? w[i + 3].find('=') : std::string::npos;
  if (i + 4 == w.size() && w[i] == "has" && w[i + 2] == "labelled" && eq != std::string::npos) {
    out.target_kind = w[i + 1];
    out.target_label = w[i + 3].substr(0, eq);
    out.target_value = w[i + 3].substr(eq + 1);
    return true;
  }
  error =
      "expected 'every KIND [in NAMESPACE] [labelled KEY] has KIND2 NAMESPACE/NAME' or '... "
      "has KIND2 labelled KEY=VALUE'";
  return false;
}

// {name}, {namespace}, {label:KEY} of `object` in `pattern`.
std::string expand(const std::string& pattern, const kube::Object& object) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    const std::size_t close = pattern[i] == '{' ? pattern.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += pattern[i++];
      continue;
    }
    const std::string field = pattern.substr(i + 1, close - i - 1);
    if (field == "name") {
      out += object.meta.name;
    } else if (field == "namespace") {
      out += object.meta.namespace_;
    } else if (field.rfind("label:", 0) == 0) {
      auto label = object.meta.labels.find(field.substr(6));
      if (label != object.meta.labels.end()) out += label->second;
    } else {
      out += pattern.substr(i, close - i + 1);
    }
    i = close + 1;
  }
  return out;
}

std::vector<const kube::Object*> selected(const ApiInvariant& inv, const kube::ApiServer& api) {
  std::vector<const kube::Object*> out;
  for (const kube::Object* object : api.peek_list(inv.kind, inv.namespace_)) {
    if (inv.label.empty() || object->meta.labels.count(inv.label) > 0) out.push_back(object);
  }
  return out;
}

std::string ref_text(const kube::Object& object) { return kube::ObjectRef::of(object).to_string(); }

std::vector<run::Violation> check_at_most(const ApiInvariant& inv, const kube::ApiServer& api) {
  std::map<std::string, std::vector<std::string>> by_value;
  for (const kube::Object* object : selected(inv, api)) {
    if (object->meta.deletion_ms) continue;
    by_value[object->meta.labels.at(inv.label)].push_back(object->meta.name);
  }
  std::vector<run::Violation> out;
  for (const auto& [value, names] : by_value) {
    if (static_cast<int>(names.size()) <= inv.at_most) continue;
    std::string list;
    for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
    out.push_back({inv.id,
                   inv.kind + " " + inv.label + "=" + value,
                   std::to_string(names.size()) + " " + inv.kind + "s carry " + inv.label + "=" +
                       value + " (" + list + "); at most " + std::to_string(inv.at_most) +
                       " may: " + inv.text,
                   {}});
  }
  return out;
}

bool target_exists(const ApiInvariant& inv, const kube::ApiServer& api, const kube::Object& of) {
  if (!inv.target_ref.empty()) {
    const std::string ref = expand(inv.target_ref, of);
    const std::size_t slash = ref.find('/');
    const std::string ns = slash == std::string::npos ? "" : ref.substr(0, slash);
    const std::string name = slash == std::string::npos ? ref : ref.substr(slash + 1);
    return api.peek(kube::ObjectRef{inv.target_kind, ns, name}) != nullptr;
  }
  const std::string value = expand(inv.target_value, of);
  return !api.peek_list(
                 inv.target_kind, "",
                 kube::LabelSelector(std::map<std::string, std::string>{{inv.target_label, value}}))
              .empty();
}

std::vector<run::Violation> check_every(const ApiInvariant& inv, const kube::ApiServer& api) {
  std::vector<run::Violation> out;
  for (const kube::Object* object : selected(inv, api)) {
    if (inv.form == ApiInvariant::Form::kNone) {
      out.push_back({inv.id, ref_text(*object), ref_text(*object) + " exists: " + inv.text, {}});
      continue;
    }
    if (target_exists(inv, api, *object)) continue;
    const std::string target = inv.target_ref.empty() ? "labelled " + inv.target_label + "=" +
                                                            expand(inv.target_value, *object)
                                                      : expand(inv.target_ref, *object);
    out.push_back(
        {inv.id,
         ref_text(*object),
         ref_text(*object) + " has no " + inv.target_kind + " " + target + ": " + inv.text,
         {}});
  }
  return out;
}

}  // namespace

bool parse_api_invariant(const std::string& text, ApiInvariant& out, std::string& error) {
  const std::vector<std::string> w = words(text);
  out.text = text;
  if (w.empty() || (w[0] != "always:" && w[0] != "eventually:")) {
    error = "an invariant starts with 'always:' or 'eventually:'";
    return false;
  }
  out.always = w[0] == "always:";
  if (w.size() >= 2 && w[1] == "at") return parse_at_most(w, 2, out, error);
  if (w.size() >= 2 && (w[1] == "every" || w[1] == "no")) {
    return parse_every_or_no(w, 2, out, error);
  }
  error = "expected 'at most ...', 'every ...' or 'no ...' after '" + w[0] + "'";
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
    inv.id = inv.always ? "external.S" + std::to_string(++safety)
                        : "external.L" + std::to_string(++liveness);
    out.push_back(std::move(inv));
  }
  return true;
}

std::vector<run::Violation> check_api_invariant(const ApiInvariant& invariant,
                                                const kube::ApiServer& api) {
  if (invariant.form == ApiInvariant::Form::kAtMost) return check_at_most(invariant, api);
  return check_every(invariant, api);
}

}  // namespace wsim::serve
