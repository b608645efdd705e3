// Label and field selectors of list and watch requests (`?labelSelector=`, `?fieldSelector=`).
// Label selectors: comma-separated `k=v`, `k==v`, `k!=v`, `k` (exists), `!k` (absent) and the
// set-based `k in (v1, v2)` (present, one of the values) and `k notin (v1, v2)` (absent, or none
// of them), parsed as apimachinery's labels.Parse does (commas inside the parentheses belong to
// the set; `()` is the set holding the empty value). `>`/`<` are refused with an error. Field
// selectors: `metadata.name`, `metadata.namespace`, `status.phase`, `spec.nodeName` with `=`,
// `==` or `!=`; other fields are refused (Kubernetes answers 400 for unsupported fields too).
//
// Threading: values, no shared state.
#pragma once

#include <string>
#include <vector>

#include "sim/kube/object.h"

namespace wsim::serve {

struct Requirement {
  std::string key;
  enum class Op { kEquals, kNotEquals, kExists, kNotExists, kIn, kNotIn } op = Op::kEquals;
  std::string value;
  std::vector<std::string> values;  // kIn, kNotIn.
};

struct Selector {
  std::vector<Requirement> labels;
  std::vector<Requirement> fields;

  bool matches(const kube::Object& object) const;
};

// Parses both query values into `out`; false with `error` naming the parameter and the term.
bool parse_selector(const std::string& label_selector, const std::string& field_selector,
                    Selector& out, std::string& error);

}  // namespace wsim::serve
