// Label and field selectors (selector.h): parsing as apimachinery's labels.Parse does (set terms
// cited below), the supported field keys, and Selector::matches over a sim/kube Object. Malformed
// or unsupported selectors are refused with an error naming the parameter. Values, no shared state.
#include "serve/selector.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace wsim::serve {
namespace {

std::string trim(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(' ') - begin + 1);
}

// `KEY in (V1, V2)` / `KEY notin (...)`. k8s.io/apimachinery pkg/labels/selector.go@008b3652959c
// Parser.parseValues / parseIdentifiersList: the values are comma-separated, each possibly empty,
// "()" is the set {""}; the operator is a word of its own after the key.
bool parse_set_term(const std::string& term, Requirement& out) {
  const std::size_t open = term.find('(');
  if (term.back() != ')' || term.find_first_of("()", open + 1) != term.size() - 1) return false;
  const std::string head = trim(term.substr(0, open));
  const std::size_t space = head.find_last_of(' ');
  if (space == std::string::npos) return false;
  const std::string op = head.substr(space + 1);
  out = {trim(head.substr(0, space)), Requirement::Op::kIn, "", {}};
  if (op == "notin") {
    out.op = Requirement::Op::kNotIn;
  } else if (op != "in") {
    return false;
  }
  const std::string values = term.substr(open + 1, term.size() - open - 2);
  std::size_t begin = 0;
  for (std::size_t comma; (comma = values.find(',', begin)) != std::string::npos;
       begin = comma + 1) {
    out.values.push_back(trim(values.substr(begin, comma - begin)));
  }
  out.values.push_back(trim(values.substr(begin)));
  for (const std::string& value : out.values) {
    if (value.find(' ') != std::string::npos) return false;
  }
  return !out.key.empty() && out.key.find_first_of(" !") == std::string::npos;
}

bool parse_term(const std::string& term, bool allow_existence, Requirement& out) {
  if (allow_existence && term.find('(') != std::string::npos) return parse_set_term(term, out);
  std::size_t at = term.find("!=");
  if (at != std::string::npos) {
    out = {trim(term.substr(0, at)), Requirement::Op::kNotEquals, trim(term.substr(at + 2)), {}};
    return !out.key.empty();
  }
  at = term.find("==");
  if (at != std::string::npos) {
    out = {trim(term.substr(0, at)), Requirement::Op::kEquals, trim(term.substr(at + 2)), {}};
    return !out.key.empty();
  }
  at = term.find('=');
  if (at != std::string::npos) {
    out = {trim(term.substr(0, at)), Requirement::Op::kEquals, trim(term.substr(at + 1)), {}};
    return !out.key.empty();
  }
  if (!allow_existence || term.find(' ') != std::string::npos ||
      term.find('(') != std::string::npos) {
    return false;
  }
  if (!term.empty() && term[0] == '!') {
    out = {term.substr(1), Requirement::Op::kNotExists, "", {}};
  } else {
    out = {term, Requirement::Op::kExists, "", {}};
  }
  return !out.key.empty();
}

// Field labels: metadata.name and .namespace, spec.* and status.* (sim/kube's flat keys), and
// the top-level fields of kinds without spec (Event: involvedObject.*, reason, type, source).
bool field_supported(const std::string& key) {
  static const std::vector<std::string> prefixes = {"spec.",      "status.", "involvedObject.",
                                                    "regarding.", "source.", "reportingController"};
  if (key == "metadata.name" || key == "metadata.namespace" || key == "reason" || key == "type" ||
      key == "reportingComponent") {
    return true;
  }
  for (const std::string& prefix : prefixes) {
    if (key.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The terms of a selector: split at the commas outside parentheses (a set's commas are its own).
std::vector<std::string> split_terms(const std::string& text) {
  std::vector<std::string> terms(1);
  int depth = 0;
  for (const char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth <= 0) {
      terms.emplace_back();
    } else {
      terms.back() += c;
    }
  }
  return terms;
}

bool parse_terms(const std::string& text, const std::string& parameter, bool labels,
                 std::vector<Requirement>& out, std::string& error) {
  for (std::string term : split_terms(text)) {
    term = trim(term);
    if (term.empty()) continue;
    Requirement requirement;
    if (!parse_term(term, labels, requirement)) {
      error = parameter + ": unsupported term \"" + term + "\" (supported: k=v, k==v, k!=v" +
              (labels ? ", k, !k, k in (v1,v2), k notin (v1,v2)" : "") + ")";
      return false;
    }
    if (!labels && !field_supported(requirement.key)) {
      error = parameter + ": field label not supported: " + requirement.key;
      return false;
    }
    out.push_back(requirement);
  }
  return true;
}

std::string field_value(const kube::Object& object, const std::string& key) {
  if (key == "metadata.name") return object.meta.name;
  if (key == "metadata.namespace") return object.meta.namespace_;
  if (key.rfind("status.", 0) == 0) return object.status_or(key.substr(7), "");
  if (key.rfind("spec.", 0) == 0) return object.spec_or(key.substr(5), "");
  if (key.rfind("regarding.", 0) == 0) {  // events.k8s.io names of core's involvedObject.
    return object.spec_or("involvedObject." + key.substr(10), "");
  }
  if (key == "reportingController") return object.spec_or("reportingComponent", "");
  return object.spec_or(key, "");  // Top-level fields of Events (flat, see codec.h).
}

bool holds(const Requirement& r, bool present, const std::string& value) {
  switch (r.op) {
    case Requirement::Op::kEquals:
      return present && value == r.value;
    case Requirement::Op::kNotEquals:
      return !present || value != r.value;
    case Requirement::Op::kExists:
      return present;
    case Requirement::Op::kNotExists:
      return !present;
    case Requirement::Op::kIn:
      return present && std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    case Requirement::Op::kNotIn:
      return !present || std::find(r.values.begin(), r.values.end(), value) == r.values.end();
  }
  return false;
}

}  // namespace

bool Selector::matches(const kube::Object& object) const {
  for (const Requirement& r : labels) {
    auto it = object.meta.labels.find(r.key);
    const bool present = it != object.meta.labels.end();
    if (!holds(r, present, present ? it->second : "")) return false;
  }
  for (const Requirement& r : fields) {
    if (!holds(r, true, field_value(object, r.key))) return false;
  }
  return true;
}

bool parse_selector(const std::string& label_selector, const std::string& field_selector,
                    Selector& out, std::string& error) {
  out = Selector{};
  return parse_terms(label_selector, "labelSelector", true, out.labels, error) &&
         parse_terms(field_selector, "fieldSelector", false, out.fields, error);
}

}  // namespace wsim::serve
