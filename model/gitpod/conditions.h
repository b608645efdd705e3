// Upstream: gitpod-io/gitpod @ 4f45d02eac95 components/ws-manager-api/go/crd/v1/workspace_types.go
// (condition types, SetCondition: replace by type, empty reason → "Unknown"; IsConditionTrue /
// IsConditionPresent) and common-go/kubernetes conditions helpers. docs/fidelity.md.
//
// Workspace CR accessors and Gitpod's condition semantics (docs/systems/gitpod.md §2.2, §2.4).
//
// The CR is a kube::Object of kind "Workspace": spec/status are flat string maps (names.h keys),
// conditions a list unique by type. Gitpod's SetCondition (wsk8s.AddUniqueCondition) differs
// from the Kubernetes helper in sim/kube/controllers: it always replaces the entry of the same
// type, with a fresh LastTransitionTime, and an empty reason becomes "Unknown".
//
// Pure functions on values; single-threaded. Times are virtual milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/time.h"
#include "sim/kube/object.h"

namespace wsim::gitpod {

// --- Conditions. ---
// Types and keys are taken as std::string_view: the names.h constants are `const char*`, and a
// read builds no std::string from them (docs/performance.md §12).
// Presence counts for some rules (StateWiped, BackupFailure): `present` is true for any status.
bool cond_present(const kube::Object& object, std::string_view type);
bool cond_true(const kube::Object& object, std::string_view type);
bool cond_false(const kube::Object& object, std::string_view type);
// The message of a condition, empty if absent.
std::string cond_message(const kube::Object& object, std::string_view type);
// REQUIRES: status is "True" or "False". Replaces any condition of the same type (moved to the
// end), last transition = now_ms; an empty reason becomes "Unknown".
void set_cond(kube::Object& object, std::string_view type, bool status, std::string reason,
              std::string message, TimeMs now_ms);
// Upserts only when status/reason/message differ (the ContainerRunning rule of §2.4).
// Returns true if it changed the list.
bool upsert_cond(kube::Object& object, std::string_view type, bool status, std::string reason,
                 std::string message, TimeMs now_ms);
void remove_cond(kube::Object& object, std::string_view type);

// --- Status fields. ---
std::string phase(const kube::Object& cr);  // "" when never set.
void set_phase(kube::Object& cr, const std::string& phase);
std::int64_t status_int(const kube::Object& object, std::string_view key, std::int64_t fallback);
void set_status_int(kube::Object& object, const std::string& key, std::int64_t value);
std::optional<TimeMs> status_time(const kube::Object& object, std::string_view key);
void set_status_time(kube::Object& object, const std::string& key, TimeMs at_ms);
std::string status_str(const kube::Object& object, std::string_view key);

// Workspace type (§2.1): headless = type != Regular.
bool is_headless(const kube::Object& cr);
bool is_image_build(const kube::Object& cr);
std::string workspace_id(const kube::Object& cr);

}  // namespace wsim::gitpod
