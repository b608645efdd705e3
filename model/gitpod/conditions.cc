// Upstream: see conditions.h (gitpod-io/gitpod @ 4f45d02eac95 workspace_types.go).
#include "model/gitpod/conditions.h"

#include <algorithm>
#include <charconv>

#include "model/gitpod/names.h"
#include "sim/core/assert.h"

namespace wsim::gitpod {

bool cond_present(const kube::Object& object, std::string_view type) {
  WSIM_ASSERT(!type.empty());
  return object.condition(type) != nullptr;
}

bool cond_true(const kube::Object& object, std::string_view type) {
  WSIM_ASSERT(!type.empty());
  const kube::Condition* c = object.condition(type);
  return c != nullptr && c->status == "True";
}

bool cond_false(const kube::Object& object, std::string_view type) {
  WSIM_ASSERT(!type.empty());
  const kube::Condition* c = object.condition(type);
  return c != nullptr && c->status == "False";
}

std::string cond_message(const kube::Object& object, std::string_view type) {
  WSIM_ASSERT(!type.empty());
  const kube::Condition* c = object.condition(type);
  return c == nullptr ? std::string() : c->message;
}

void remove_cond(kube::Object& object, std::string_view type) {
  if (object.condition(type) == nullptr) return;  // Nothing to remove: no need to detach.
  auto& list = object.conditions.mutable_vector();
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const kube::Condition& c) { return c.type == type; }),
             list.end());
  WSIM_ASSERT(object.condition(type) == nullptr);
}

void set_cond(kube::Object& object, std::string_view type, bool status, std::string reason,
              std::string message, TimeMs now_ms) {
  WSIM_ASSERT(!type.empty());
  WSIM_ASSERT_GE(now_ms, 0);
  remove_cond(object, type);
  kube::Condition c;
  c.type = type;
  c.status = status ? "True" : "False";
  c.reason = reason.empty() ? "Unknown" : std::move(reason);
  c.message = std::move(message);
  c.last_transition_ms = now_ms;
  object.conditions.push_back(std::move(c));
  WSIM_ASSERT(object.condition(type) != nullptr);
}

bool upsert_cond(kube::Object& object, std::string_view type, bool status, std::string reason,
                 std::string message, TimeMs now_ms) {
  WSIM_ASSERT(!type.empty());
  const kube::Condition* c = object.condition(type);
  const std::string want_reason = reason.empty() ? "Unknown" : reason;
  if (c != nullptr && (c->status == "True") == status && c->reason == want_reason &&
      c->message == message) {
    return false;
  }
  set_cond(object, type, status, std::move(reason), std::move(message), now_ms);
  return true;
}

std::string phase(const kube::Object& cr) { return cr.status_or(kStatusPhase, ""); }

void set_phase(kube::Object& cr, const std::string& phase) {
  WSIM_ASSERT(!phase.empty());
  // The same phase again changes nothing: no write, so a status map still shared with the
  // cached object is not copied (docs/performance.md §13.1).
  if (cr.status_view(kStatusPhase) == phase) return;
  cr.status[kStatusPhase] = phase;
  WSIM_ASSERT(cr.status_view(kStatusPhase) == phase);
}

namespace {

// `text` as a decimal integer, or `fallback` unless all of it is one.
std::int64_t parse_int(const std::string& text, std::int64_t fallback) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return fallback;
  return value;
}

}  // namespace

std::int64_t status_int(const kube::Object& object, std::string_view key, std::int64_t fallback) {
  WSIM_ASSERT(!key.empty());
  auto it = object.status.find(key);
  if (it == object.status.end()) return fallback;
  return parse_int(it->second, fallback);
}

void set_status_int(kube::Object& object, const std::string& key, std::int64_t value) {
  WSIM_ASSERT(!key.empty());
  std::string text = std::to_string(value);
  if (auto it = object.status.find(key); it != object.status.end() && it->second == text) return;
  object.status[key] = std::move(text);  // Only a change writes (see set_phase).
}

std::optional<TimeMs> status_time(const kube::Object& object, std::string_view key) {
  auto it = object.status.find(key);  // One lookup (status_int would look the key up again).
  if (it == object.status.end()) return std::nullopt;
  const std::int64_t value = parse_int(it->second, -1);
  WSIM_ASSERT_MSG(value >= 0, "bad time field " << key);
  return value;
}

void set_status_time(kube::Object& object, const std::string& key, TimeMs at_ms) {
  WSIM_ASSERT_GE(at_ms, 0);
  set_status_int(object, key, at_ms);
}

std::string status_str(const kube::Object& object, std::string_view key) {
  WSIM_ASSERT(!key.empty());
  return object.status_or(key, "");
}

bool is_headless(const kube::Object& cr) {
  const std::string type = cr.spec_or(kSpecType, "Regular");
  return type != "Regular";
}

bool is_image_build(const kube::Object& cr) { return cr.spec_or(kSpecType, "") == "ImageBuild"; }

std::string workspace_id(const kube::Object& cr) { return cr.spec_or(kSpecWorkspaceId, ""); }

}  // namespace wsim::gitpod
