// Invariants over API state, for a system whose insides wsim cannot see (an external reconciler
// under `wsim serve --scenario`): written in the scenario (ExternalConfig.invariants) in a small
// language, checked on the fake API server's objects. [invented]
//
//   always: at most N KIND per label KEY
//       Among the KIND objects that are not being deleted (no deletionTimestamp), at most N carry
//       each value of label KEY.
//   always|eventually: every SUBJECT has [no] KIND2 TARGET
//       For every SUBJECT object, an object of KIND2 exists (with "no": none exists):
//         TARGET = NAMESPACE2/NAME2      that object,
//         TARGET = NAME2                 that object in the subject's namespace (cluster-scoped
//                                        kinds: the object of that name),
//         TARGET = labelled KEY2=VALUE2  any KIND2 object with that label.
//       NAMESPACE2, NAME2 and VALUE2 may use {name}, {namespace} and {label:KEY} of the object.
//   always|eventually: no SUBJECT
//   always|eventually: SUBJECT implies CONDITION
//       Every SUBJECT object satisfies CONDITION.
//   eventually within DURATION: BODY           (BODY: one of the three forms above)
//       A deadline in virtual time: no object may fail BODY for longer than DURATION (e.g. 60s,
//       500ms, 5m) without a break. Checked after every event like "always".
//   history: SUBJECT PATH never A -> B [, C -> D ...]
//   history: SUBJECT PATH only A -> B [, C -> D ...]
//   history: SUBJECT PATH after A never B
//       Over every committed state of each object (by uid, from its creation): its field PATH
//       never changes from A to B / changes only by one of the listed transitions / never has
//       value B once it has had value A. A and B are values, * (any value) or "" (no value).
//       A change is a transition; the object's removal is not (its field does not change).
//
//   SUBJECT   = KIND [in NAMESPACE] [labelled KEY] [with CONDITION]
//   CONDITION = ATOM [and ATOM ...] [or ATOM [and ATOM ...] ...]     ("and" binds tighter)
//   ATOM      = PATH == VALUE | PATH != VALUE      (VALUE may use the templates; "" = no value)
//             | PATH < N | PATH <= N | PATH > N | PATH >= N
//                                                  (N an integer; false when the field is
//                                                   absent or not an integer)
//             | label KEY                          (carries label KEY)
//             | deleting | not deleting            (has a deletionTimestamp)
//             | KIND2 TARGET exists | no KIND2 TARGET
//   PATH      = spec.KEY | status.KEY | status.conditions.TYPE (its status: True, False, ...)
//             | metadata.name | metadata.namespace | metadata.labels.KEY
//             | metadata.annotations.KEY | data.KEY
//   Words are separated by spaces. A VALUE (or A, B of a history rule) with spaces is written
//   in double quotes, "ide 2" (\" and \\ inside), and is never read as a keyword.
//
// "always" is a safety invariant (checked after every event), "eventually" a liveness one
// (judged after heal and settle); "eventually within" and "history" rules are safety ones too (a
// missed deadline or a bad transition is seen at an instant). Examples
// (examples/node-controller/workspaces.textproto, examples/python-controller/notebooks.textproto):
//   always: at most 1 Pod per label workspace
//   eventually: every Pod labelled workspace has Workspace default/{label:workspace}
//   always: Pod with label workspace implies Workspace {label:workspace} exists
//   always: Notebook with status.phase == Running implies spec.desired == running
//   eventually within 60s: every Notebook with spec.desired == stopped has no Pod labelled
//       notebook={name}
//   history: Notebook status.phase never Stopped -> Running
//
// Threading: single-threaded, runs on the event loop (the monitor's observers run inside the
// API server's writes). Not modelled: parentheses, comparisons of two fields, numbers that are
// not integers.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/kube/api_server.h"
#include "sim/run/system.h"

namespace wsim::serve {

// Where a rule looks for another object: TARGET of the grammar above.
struct ApiTarget {
  std::string kind;
  std::string ref;    // NAMESPACE2/NAME2 or NAME2 template, or empty.
  std::string label;  // KEY2 (with value), or empty.
  std::string value;  // VALUE2 template.
};

// One ATOM of a condition.
struct ApiAtom {
  enum class Op {
    kEquals,
    kNotEquals,
    kLess,
    kLessEq,
    kGreater,
    kGreaterEq,
    kHasLabel,
    kDeleting,
    kNotDeleting,
    kExists,
    kMissing
  };
  Op op = Op::kEquals;
  std::string path;         // kEquals .. kGreaterEq.
  std::string value;        // kEquals, kNotEquals: a template; kHasLabel: the key.
  std::int64_t number = 0;  // kLess .. kGreaterEq: the integer compared with.
  ApiTarget target;         // kExists, kMissing.
  // The atom begins another alternative ("or"): a condition holds when every atom of one of its
  // alternatives holds. False for the first atom.
  bool or_before = false;
  std::string text;  // As written, for messages.
};

struct ApiInvariant {
  enum class Form { kAtMost, kEveryHas, kNone, kImplies, kHistory };
  enum class History { kNever, kOnly, kAfterNever };
  std::string id;    // external.S<n> or external.L<n>.
  std::string text;  // As written.
  bool always = true;
  Form form = Form::kAtMost;
  DurationMs within_ms = 0;  // "eventually within": the deadline (always is then true).
  // The objects it is about.
  std::string kind;
  std::string namespace_;  // Empty: every namespace.
  std::string label;       // kAtMost: the grouping label; else: required label (empty: none).
  std::vector<ApiAtom> with;
  int at_most = 1;
  // kEveryHas: the object that must exist (target_absent: must not).
  std::string target_kind;
  std::string target_ref;    // NAMESPACE2/NAME2 or NAME2 template, or empty.
  std::string target_label;  // KEY2 (with target_value), or empty.
  std::string target_value;  // VALUE2 template.
  bool target_absent = false;
  std::vector<ApiAtom> then;  // kImplies.
  // kHistory: the field, the rule and its (from, to) value patterns.
  std::string path;
  History history = History::kNever;
  std::vector<std::pair<std::string, std::string>> transitions;
};

// Parses one invariant; false with `error` saying what is wrong and what was expected.
bool parse_api_invariant(const std::string& text, ApiInvariant& out, std::string& error);

// Parses the scenario's list, numbering safety ids external.S1.. (always, eventually within,
// history) and liveness ids external.L1.. (eventually) in the order written. An error starts
// with "invariants[I]" (0-based).
bool parse_api_invariants(const std::vector<std::string>& texts, std::vector<ApiInvariant>& out,
                          std::string& error);

// Every violation of `invariant` in `api`'s current objects, in object order (a kHistory rule
// has none here: see ApiMonitor). For an "eventually within" rule: the objects failing its body
// now, whatever their deadline.
std::vector<run::Violation> check_api_invariant(const ApiInvariant& invariant,
                                                const kube::ApiServer& api);

// The value of PATH in `object` ("" when absent). REQUIRES: valid_api_path(path).
std::string api_field(const kube::Object& object, const std::string& path);
bool valid_api_path(const std::string& path);

// A run's rules with their state: the deadlines of "eventually within" rules and the histories
// of "history" rules (a store observer per rule's kind, installed by the constructor: create the
// monitor before the first object of those kinds is written, and keep it as long as `api`).
//
// Invariants: (1) a violation (rule, object) is returned by check_safety() at most once, so a
// driver that goes past a known violation is given the next one; (2) a history violation is
// returned at the first check after the write that made it; (3) an "eventually within"
// obligation starts at the first check that sees its object fail the body and ends at the first
// one that sees it pass (or the object gone); it is violated at a check more than within_ms later.
class ApiMonitor {
 public:
  ApiMonitor(std::vector<ApiInvariant> invariants, kube::ApiServer& api);
  ApiMonitor(const ApiMonitor&) = delete;
  ApiMonitor& operator=(const ApiMonitor&) = delete;

  // After every event: the first new violation of a safety rule, if any.
  std::optional<run::Violation> check_safety(TimeMs now_ms);
  // After heal and settle: every violation of the "eventually" rules.
  std::vector<run::Violation> check_liveness() const;
  // The earliest instant at which a pending deadline is missed (one past it), if any: a check
  // then sees the violation even when nothing else happens.
  std::optional<TimeMs> next_deadline_ms() const;

  const std::vector<ApiInvariant>& invariants() const { return invariants_; }

  struct HistoryState;  // Shared with the store observers.

 private:
  std::optional<run::Violation> fresh(std::vector<run::Violation> found);
  void update_obligations(TimeMs now_ms);
  std::optional<run::Violation> missed_deadline(TimeMs now_ms);

  std::vector<ApiInvariant> invariants_;
  kube::ApiServer& api_;
  std::shared_ptr<HistoryState> history_;
  std::uint64_t checked_rv_ = 0;
  bool checked_ = false;
  std::set<std::pair<std::string, std::string>> reported_;  // (id, object).
  // Per "eventually within" rule (index in invariants_): failing object -> since when, and why.
  struct Obligation {
    TimeMs since_ms = 0;
    std::string message;
  };
  std::map<std::size_t, std::map<std::string, Obligation>> since_ms_;
};

}  // namespace wsim::serve
