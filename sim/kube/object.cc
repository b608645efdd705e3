// Object, ObjectRef and LabelSelector helpers (object.h): field reads and ref rendering. Which
// kinds are cluster-scoped is the kind registry's (kinds.cc).
#include "sim/kube/object.h"

#include <string_view>

#include "sim/core/assert.h"

namespace wsim::kube {

const Condition* Object::condition(std::string_view type) const {
  WSIM_ASSERT(!type.empty());
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

std::string Object::spec_or(std::string_view key, std::string_view fallback) const {
  WSIM_ASSERT(!key.empty());
  auto it = spec.find(key);
  return it == spec.end() ? std::string(fallback) : it->second;
}

std::string Object::status_or(std::string_view key, std::string_view fallback) const {
  WSIM_ASSERT(!key.empty());
  auto it = status.find(key);
  return it == status.end() ? std::string(fallback) : it->second;
}

std::string ObjectRef::to_string() const {
  std::string out;
  out.reserve(kind.size() + namespace_.size() + name.size() + 2);
  out += kind;
  out += '/';
  if (!namespace_.empty()) {
    out += namespace_;
    out += '/';
  }
  out += name;
  WSIM_ASSERT_GE(out.size(), kind.size() + 1);
  return out;
}

bool LabelSelector::matches(const Fields& labels) const {
  for (const auto& [key, value] : match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

std::string LabelSelector::to_string() const {
  std::string out;
  for (const auto& [key, value] : match_labels) {
    if (!out.empty()) out += ',';
    out += key;
    out += '=';
    out += value;
  }
  // "k=v" per term, commas between.
  if (!match_labels.empty()) WSIM_ASSERT_GE(out.size(), 2 * match_labels.size());
  return out;
}

}  // namespace wsim::kube
