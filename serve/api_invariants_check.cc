// Checking the scenario's invariants over API state (api_invariants.h): the rules on the current
// objects, and ApiMonitor's deadlines and per-object histories.
#include <algorithm>
#include <map>

#include "serve/api_invariants.h"
#include "sim/core/assert.h"
#include "sim/run/duration.h"

namespace wsim::serve {
namespace {

constexpr std::size_t kPendingMax = 64;  // History violations waiting for a check.

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

std::string ref_text(const kube::Object& object) { return kube::ObjectRef::of(object).to_string(); }

// The TARGET's text for messages: "default/ws-0" or "labelled workspace=ws-0".
std::string target_text(const ApiTarget& target, const kube::Object& of) {
  if (!target.ref.empty()) return expand(target.ref, of);
  return "labelled " + target.label + "=" + expand(target.value, of);
}

bool target_exists(const ApiTarget& target, const kube::ApiServer& api, const kube::Object& of) {
  if (!target.ref.empty()) {
    const std::string ref = expand(target.ref, of);
    const std::size_t slash = ref.find('/');
    // A bare NAME is in the subject's namespace, unless the kind has none.
    const std::string ns = slash != std::string::npos             ? ref.substr(0, slash)
                           : kube::is_cluster_scoped(target.kind) ? ""
                                                                  : of.meta.namespace_;
    const std::string name = slash == std::string::npos ? ref : ref.substr(slash + 1);
    return api.peek(kube::ObjectRef{target.kind, ns, name}) != nullptr;
  }
  const std::string value = expand(target.value, of);
  return !api.peek_list(
                 target.kind, "",
                 kube::LabelSelector(std::map<std::string, std::string>{{target.label, value}}))
              .empty();
}

// A numeric comparison: false when the field is absent or not an integer (of at most 18 digits).
bool compare_holds(const ApiAtom& atom, const std::string& field) {
  const std::size_t sign = !field.empty() && field[0] == '-' ? 1 : 0;
  if (field.size() <= sign || field.size() - sign > 18 ||
      field.find_first_not_of("0123456789", sign) != std::string::npos) {
    return false;
  }
  const std::int64_t value = std::stoll(field);
  switch (atom.op) {
    case ApiAtom::Op::kLess:
      return value < atom.number;
    case ApiAtom::Op::kLessEq:
      return value <= atom.number;
    case ApiAtom::Op::kGreater:
      return value > atom.number;
    case ApiAtom::Op::kGreaterEq:
      return value >= atom.number;
    default:
      break;
  }
  WSIM_ASSERT_MSG(false, "not a numeric comparison: " << atom.text);
  return false;
}

bool atom_holds(const ApiAtom& atom, const kube::Object& object, const kube::ApiServer& api) {
  switch (atom.op) {
    case ApiAtom::Op::kEquals:
      return api_field(object, atom.path) == expand(atom.value, object);
    case ApiAtom::Op::kNotEquals:
      return api_field(object, atom.path) != expand(atom.value, object);
    case ApiAtom::Op::kLess:
    case ApiAtom::Op::kLessEq:
    case ApiAtom::Op::kGreater:
    case ApiAtom::Op::kGreaterEq:
      return compare_holds(atom, api_field(object, atom.path));
    case ApiAtom::Op::kHasLabel:
      return object.meta.labels.count(atom.value) > 0;
    case ApiAtom::Op::kDeleting:
      return object.meta.deletion_ms.has_value();
    case ApiAtom::Op::kNotDeleting:
      return !object.meta.deletion_ms.has_value();
    case ApiAtom::Op::kExists:
      return target_exists(atom.target, api, object);
    case ApiAtom::Op::kMissing:
      return !target_exists(atom.target, api, object);
  }
  WSIM_ASSERT_MSG(false, "unknown condition");
  return false;
}

// Empty when the condition `atoms` holds for `object` (every atom of one alternative holds, or
// there are none); else what fails: "not ATOM" for a condition without "or", "not (A or B)"
// with the first failing atom of each alternative.
std::string failing(const std::vector<ApiAtom>& atoms, const kube::Object& object,
                    const kube::ApiServer& api) {
  std::vector<std::string> failed;  // The first failing atom of each alternative.
  bool alternative_failed = false;
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    if (atoms[i].or_before) {
      if (!alternative_failed) return "";
      alternative_failed = false;
    }
    if (!alternative_failed && !atom_holds(atoms[i], object, api)) {
      alternative_failed = true;
      failed.push_back(atoms[i].text);
    }
  }
  if (!alternative_failed) return "";
  if (failed.size() == 1) return "not " + failed[0];
  std::string out;
  for (const std::string& text : failed) out += (out.empty() ? "not (" : " or ") + text;
  return out + ")";
}

// The rule's subject: namespace, label and `with` condition.
bool in_scope(const ApiInvariant& inv, const kube::Object& object, const kube::ApiServer& api) {
  if (!inv.namespace_.empty() && object.meta.namespace_ != inv.namespace_) return false;
  if (!inv.label.empty() && object.meta.labels.count(inv.label) == 0) return false;
  return failing(inv.with, object, api).empty();
}

std::vector<const kube::Object*> selected(const ApiInvariant& inv, const kube::ApiServer& api) {
  std::vector<const kube::Object*> out;
  for (const kube::Object* object : api.peek_list(inv.kind, inv.namespace_)) {
    if (inv.form == ApiInvariant::Form::kAtMost) {
      if (inv.label.empty() || object->meta.labels.count(inv.label) > 0) out.push_back(object);
    } else if (in_scope(inv, *object, api)) {
      out.push_back(object);
    }
  }
  return out;
}

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

std::vector<run::Violation> check_every(const ApiInvariant& inv, const kube::ApiServer& api) {
  std::vector<run::Violation> out;
  const ApiTarget target{inv.target_kind, inv.target_ref, inv.target_label, inv.target_value};
  for (const kube::Object* object : selected(inv, api)) {
    if (inv.form == ApiInvariant::Form::kNone) {
      out.push_back({inv.id, ref_text(*object), ref_text(*object) + " exists: " + inv.text, {}});
      continue;
    }
    if (target_exists(target, api, *object) != inv.target_absent) continue;
    out.push_back({inv.id,
                   ref_text(*object),
                   ref_text(*object) + (inv.target_absent ? " has " : " has no ") +
                       inv.target_kind + " " + target_text(target, *object) + ": " + inv.text,
                   {}});
  }
  return out;
}

std::vector<run::Violation> check_implies(const ApiInvariant& inv, const kube::ApiServer& api) {
  std::vector<run::Violation> out;
  for (const kube::Object* object : selected(inv, api)) {
    const std::string why = failing(inv.then, *object, api);
    if (why.empty()) continue;
    out.push_back(
        {inv.id, ref_text(*object), ref_text(*object) + ": " + why + ": " + inv.text, {}});
  }
  return out;
}

bool matches(const std::string& pattern, const std::string& value) {
  return pattern == "*" || pattern == value;
}

}  // namespace

std::string api_field(const kube::Object& object, const std::string& path) {
  WSIM_ASSERT_MSG(valid_api_path(path), path);
  if (path == "metadata.name") return object.meta.name;
  if (path == "metadata.namespace") return object.meta.namespace_;
  const std::size_t dot = path.find('.');
  const std::string head = path.substr(0, dot);
  std::string key = path.substr(dot + 1);
  if (head == "spec") return std::string(object.spec.value_or_empty(key));
  if (head == "data") return std::string(object.data.value_or_empty(key));
  if (head == "status" && key.rfind("conditions.", 0) == 0) {
    const kube::Condition* condition = object.condition(key.substr(11));
    return condition == nullptr ? std::string() : condition->status;
  }
  if (head == "status") return std::string(object.status.value_or_empty(key));
  WSIM_ASSERT_EQ(head, std::string("metadata"));
  const std::size_t second = key.find('.');
  const kube::Fields& map =
      key.rfind("labels.", 0) == 0 ? object.meta.labels : object.meta.annotations;
  return std::string(map.value_or_empty(key.substr(second + 1)));
}

std::vector<run::Violation> check_api_invariant(const ApiInvariant& invariant,
                                                const kube::ApiServer& api) {
  switch (invariant.form) {
    case ApiInvariant::Form::kAtMost:
      return check_at_most(invariant, api);
    case ApiInvariant::Form::kEveryHas:
    case ApiInvariant::Form::kNone:
      return check_every(invariant, api);
    case ApiInvariant::Form::kImplies:
      return check_implies(invariant, api);
    case ApiInvariant::Form::kHistory:
      return {};
  }
  WSIM_ASSERT_MSG(false, "unknown invariant form");
  return {};
}

// --- ApiMonitor ---

struct ApiMonitor::HistoryState {
  std::deque<run::Violation> pending;
  // kAfterNever: the objects (rule index, uid) that have had value A.
  std::set<std::pair<std::size_t, std::string>> seen;
};

namespace {

// One committed write of an object of a history rule's kind: the violation it makes, if any.
std::optional<run::Violation> history_step(const ApiInvariant& inv, std::size_t index,
                                           const kube::Object* before, const kube::Object& after,
                                           kube::ApiServer& api, ApiMonitor::HistoryState& state) {
  WSIM_ASSERT(inv.form == ApiInvariant::Form::kHistory);
  WSIM_ASSERT(!inv.transitions.empty());
  const std::string from = before == nullptr ? std::string() : api_field(*before, inv.path);
  const std::string to = api_field(after, inv.path);
  const std::string at = " at " + run::format_duration_ms(api.sim().loop().now_ms()) + ": ";
  if (inv.history == ApiInvariant::History::kAfterNever) {
    auto& seen = state.seen;
    const auto key = std::make_pair(index, after.meta.uid);
    const auto& [a, b] = inv.transitions.front();
    if (seen.count(key) > 0 && matches(b, to)) {
      return run::Violation{
          inv.id,
          ref_text(after),
          ref_text(after) + " " + inv.path + " is '" + to + "' after '" + a + "'" + at + inv.text,
          {}};
    }
    if (matches(a, to)) seen.insert(key);
    return std::nullopt;
  }
  if (from == to) return std::nullopt;
  const bool listed = std::any_of(inv.transitions.begin(), inv.transitions.end(), [&](auto& t) {
    return matches(t.first, from) && matches(t.second, to);
  });
  if (listed == (inv.history == ApiInvariant::History::kOnly)) return std::nullopt;
  return run::Violation{
      inv.id,
      ref_text(after),
      ref_text(after) + " " + inv.path + " '" + from + "' -> '" + to + "'" + at + inv.text,
      {}};
}

}  // namespace

ApiMonitor::ApiMonitor(std::vector<ApiInvariant> invariants, kube::ApiServer& api)
    : invariants_(std::move(invariants)), api_(api), history_(std::make_shared<HistoryState>()) {
  for (std::size_t i = 0; i < invariants_.size(); ++i) {
    if (invariants_[i].form != ApiInvariant::Form::kHistory) continue;
    WSIM_ASSERT(invariants_[i].always);
    // The observer holds its own copy of the rule and the shared state: it may outlive us.
    std::shared_ptr<HistoryState> state = history_;
    kube::ApiServer* server = &api_;
    // Inside the write: every write is seen, also two of one object within one event.
    const auto listener = [inv = invariants_[i], i, state, server](const kube::WatchEvent& event) {
      if (event.type == kube::WatchEventType::kDeleted) {
        state->seen.erase(std::make_pair(i, event.object.meta.uid));
        return;
      }
      const kube::Object* before = event.previous;
      const kube::Object* after = &event.object;
      if (!in_scope(inv, *after, *server)) return;
      std::optional<run::Violation> found = history_step(inv, i, before, *after, *server, *state);
      if (found && state->pending.size() < kPendingMax) state->pending.push_back(std::move(*found));
    };
    api_.subscribe(invariants_[i].kind, listener, kube::ListenAt::kInsideWrite);
  }
}

std::optional<run::Violation> ApiMonitor::fresh(std::vector<run::Violation> found) {
  for (run::Violation& v : found) {
    if (reported_.insert(std::make_pair(v.invariant_id, v.object)).second) return std::move(v);
  }
  return std::nullopt;
}

std::optional<run::Violation> ApiMonitor::check_safety(TimeMs now_ms) {
  while (!history_->pending.empty()) {
    run::Violation v = std::move(history_->pending.front());
    history_->pending.pop_front();
    if (std::optional<run::Violation> out = fresh({std::move(v)})) return out;
  }
  const std::uint64_t rv = api_.current_resource_version();
  if (rv != checked_rv_) {
    for (const ApiInvariant& inv : invariants_) {
      if (!inv.always || inv.within_ms > 0 || inv.form == ApiInvariant::Form::kHistory) continue;
      if (std::optional<run::Violation> out = fresh(check_api_invariant(inv, api_))) return out;
    }
    update_obligations(now_ms);
    checked_rv_ = rv;
  }
  return missed_deadline(now_ms);
}

void ApiMonitor::update_obligations(TimeMs now_ms) {
  for (std::size_t i = 0; i < invariants_.size(); ++i) {
    if (invariants_[i].within_ms == 0) continue;
    std::map<std::string, Obligation>& pending = since_ms_[i];
    std::map<std::string, Obligation> next;
    for (run::Violation& v : check_api_invariant(invariants_[i], api_)) {
      auto it = pending.find(v.object);
      const TimeMs since = it == pending.end() ? now_ms : it->second.since_ms;
      WSIM_ASSERT_LE(since, now_ms);
      next[v.object] = Obligation{since, std::move(v.message)};
    }
    pending = std::move(next);
  }
}

std::optional<run::Violation> ApiMonitor::missed_deadline(TimeMs now_ms) {
  for (const auto& [index, pending] : since_ms_) {
    const ApiInvariant& inv = invariants_[index];
    WSIM_ASSERT_GT(inv.within_ms, 0);
    for (const auto& [object, obligation] : pending) {
      if (now_ms - obligation.since_ms <= inv.within_ms) continue;
      std::optional<run::Violation> out = fresh({run::Violation{
          inv.id,
          object,
          "for longer than " + run::format_duration_ms(inv.within_ms) + " (since " +
              run::format_duration_ms(obligation.since_ms) + "): " + obligation.message,
          {}}});
      if (out) return out;
    }
  }
  return std::nullopt;
}

std::optional<TimeMs> ApiMonitor::next_deadline_ms() const {
  std::optional<TimeMs> out;
  for (const auto& [index, pending] : since_ms_) {
    const ApiInvariant& inv = invariants_[index];
    for (const auto& [object, obligation] : pending) {
      if (reported_.count(std::make_pair(inv.id, object)) > 0) continue;
      const TimeMs due = obligation.since_ms + inv.within_ms + 1;
      if (!out || due < *out) out = due;
    }
  }
  return out;
}

std::vector<run::Violation> ApiMonitor::check_liveness() const {
  std::vector<run::Violation> out;
  for (const ApiInvariant& inv : invariants_) {
    if (inv.always) continue;
    for (run::Violation& v : check_api_invariant(inv, api_)) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace wsim::serve
