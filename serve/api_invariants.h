// Invariants over API state, for a system whose insides wsim cannot see (an external reconciler
// under `wsim serve --scenario`): written in the scenario (ExternalConfig.invariants) in a small
// language, checked on the fake API server's objects. [invented]
//
//   always: at most N KIND per label KEY
//       Among the KIND objects that are not being deleted (no deletionTimestamp), at most N carry
//       each value of label KEY.
//   always|eventually: every KIND [in NAMESPACE] [labelled KEY] has KIND2 TARGET
//       For every KIND object (of NAMESPACE; carrying label KEY), an object of KIND2 exists:
//         TARGET = NAMESPACE2/NAME2      that object (cluster-scoped kinds: NAME2 alone), or
//         TARGET = labelled KEY2=VALUE2  any KIND2 object with that label.
//       NAMESPACE2, NAME2 and VALUE2 may use {name}, {namespace} and {label:KEY} of the object.
//   always|eventually: no KIND [in NAMESPACE] [labelled KEY]
//
// "always" is a safety invariant (checked after every event), "eventually" a liveness one
// (judged after heal and settle). Examples (examples/node-controller/workspaces.textproto):
//   always: at most 1 Pod per label workspace
//   eventually: every Pod labelled workspace has Workspace default/{label:workspace}
//   eventually: every Workspace in default has Pod labelled workspace={name}
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/kube/api_server.h"
#include "sim/run/system.h"

namespace wsim::serve {

struct ApiInvariant {
  enum class Form { kAtMost, kEveryHas, kNone };
  std::string id;    // external.S<n> or external.L<n>.
  std::string text;  // As written.
  bool always = true;
  Form form = Form::kAtMost;
  // The objects it is about.
  std::string kind;
  std::string namespace_;  // Empty: every namespace.
  std::string label;       // kAtMost: the grouping label; else: required label (empty: none).
  int at_most = 1;
  // kEveryHas: the object that must exist.
  std::string target_kind;
  std::string target_ref;    // NAMESPACE2/NAME2 template, or empty.
  std::string target_label;  // KEY2 (with target_value), or empty.
  std::string target_value;  // VALUE2 template.
};

// Parses one invariant; false with `error` saying what is wrong and what was expected.
bool parse_api_invariant(const std::string& text, ApiInvariant& out, std::string& error);

// Parses the scenario's list, numbering safety ids external.S1.. and liveness external.L1...
bool parse_api_invariants(const std::vector<std::string>& texts, std::vector<ApiInvariant>& out,
                          std::string& error);

// Every violation of `invariant` in `api`'s current objects, in object order.
std::vector<run::Violation> check_api_invariant(const ApiInvariant& invariant,
                                                const kube::ApiServer& api);

}  // namespace wsim::serve
