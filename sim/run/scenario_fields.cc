// Setting scenario fields by reflection: scalar values from text (`--set FIELD=VALUE`), the
// field lists error messages name (scenario.h set_field).
#include "sim/run/scenario.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>

#include "sim/core/assert.h"
#include "sim/core/sim.h"
#include "sim/run/duration.h"
#include "sim/run/scenario_internal.h"

namespace wsim::run {

namespace pb = google::protobuf;
using namespace scenario_internal;  // NOLINT: the helpers shared by the scenario files.

namespace {

// ---- Field values by reflection ------------------------------------------------------------

std::string scalar_text(const pb::Message& message, const pb::FieldDescriptor* field, int index) {
  WSIM_ASSERT(field != nullptr);
  const pb::Reflection* r = message.GetReflection();
  const bool rep = field->is_repeated();
  if (rep) WSIM_ASSERT_GE(index, 0);  // An element of a repeated field (field_text's loop).
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      return std::to_string(rep ? r->GetRepeatedInt32(message, field, index)
                                : r->GetInt32(message, field));
    case pb::FieldDescriptor::CPPTYPE_INT64:
      return std::to_string(rep ? r->GetRepeatedInt64(message, field, index)
                                : r->GetInt64(message, field));
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      return std::to_string(rep ? r->GetRepeatedUInt32(message, field, index)
                                : r->GetUInt32(message, field));
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return std::to_string(rep ? r->GetRepeatedUInt64(message, field, index)
                                : r->GetUInt64(message, field));
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field))
                 ? "true"
                 : "false";
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      return (rep ? r->GetRepeatedEnum(message, field, index) : r->GetEnum(message, field))->name();
    case pb::FieldDescriptor::CPPTYPE_STRING:
      return rep ? r->GetRepeatedString(message, field, index) : r->GetString(message, field);
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      return "<unsupported>";
  }
  WSIM_ASSERT_MSG(false, "unknown protobuf cpp_type " << static_cast<int>(field->cpp_type()));
  return "";
}

bool parse_i64(std::string_view text, std::int64_t& value) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::uint64_t magnitude = 0;
  if (!parse_u64(text, magnitude)) return false;
  if (negative) {
    if (magnitude > static_cast<std::uint64_t>(INT64_MAX) + 1) return false;
    value = magnitude == static_cast<std::uint64_t>(INT64_MAX) + 1
                ? INT64_MIN
                : -static_cast<std::int64_t>(magnitude);
    WSIM_ASSERT_LE(value, 0);
  } else {
    if (magnitude > static_cast<std::uint64_t>(INT64_MAX)) return false;
    value = static_cast<std::int64_t>(magnitude);
    WSIM_ASSERT_GE(value, 0);
  }
  return true;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Sets (or, for repeated fields, adds) one scalar value. `error` gets the problem without the
// field name.
// An integer field's value from text: a number, or a duration ("5m") for a *_ms field.
bool integer_of(const pb::FieldDescriptor* field, std::string_view text, bool is_signed,
                std::int64_t& i64, std::uint64_t& u64, std::string& error) {
  WSIM_ASSERT(field != nullptr);
  if (ends_with(field->name(), "_ms") && !text.empty() &&
      (text.back() < '0' || text.back() > '9')) {
    DurationMs ms = 0;
    if (!parse_duration_ms(text, ms, error)) return false;
    WSIM_ASSERT_GE(ms, 0);  // Paired with parse_duration_ms: durations are never negative.
    i64 = ms;
    u64 = static_cast<std::uint64_t>(ms);
    return true;
  }
  if (is_signed ? parse_i64(text, i64) : parse_u64(text, u64)) return true;
  error =
      "'" + std::string(text) + "' is not " + (is_signed ? "an integer" : "a non-negative integer");
  return false;
}

bool set_integer(pb::Message& message, const pb::FieldDescriptor* field, std::string_view text,
                 std::string& error) {
  WSIM_ASSERT(!field->is_map());  // set_value turns maps away.
  const pb::Reflection* r = message.GetReflection();
  const bool rep = field->is_repeated();
  const auto type = field->cpp_type();
  const bool is_signed =
      type == pb::FieldDescriptor::CPPTYPE_INT32 || type == pb::FieldDescriptor::CPPTYPE_INT64;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  if (!integer_of(field, text, is_signed, i64, u64, error)) return false;
  if ((type == pb::FieldDescriptor::CPPTYPE_INT32 && (i64 < INT32_MIN || i64 > INT32_MAX)) ||
      (type == pb::FieldDescriptor::CPPTYPE_UINT32 && u64 > UINT32_MAX)) {
    error = "'" + std::string(text) + "' is out of range";
    return false;
  }
  switch (type) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      rep ? r->AddInt32(&message, field, static_cast<std::int32_t>(i64))
          : r->SetInt32(&message, field, static_cast<std::int32_t>(i64));
      return true;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      rep ? r->AddInt64(&message, field, i64) : r->SetInt64(&message, field, i64);
      return true;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      rep ? r->AddUInt32(&message, field, static_cast<std::uint32_t>(u64))
          : r->SetUInt32(&message, field, static_cast<std::uint32_t>(u64));
      return true;
    default:
      WSIM_ASSERT(type == pb::FieldDescriptor::CPPTYPE_UINT64);
      rep ? r->AddUInt64(&message, field, u64) : r->SetUInt64(&message, field, u64);
      return true;
  }
}

bool set_enum(pb::Message& message, const pb::FieldDescriptor* field, std::string_view text,
              std::string& error) {
  WSIM_ASSERT(field->cpp_type() == pb::FieldDescriptor::CPPTYPE_ENUM);
  const pb::EnumValueDescriptor* value = field->enum_type()->FindValueByName(std::string(text));
  if (value == nullptr) {
    std::string names;
    for (int k = 0; k < field->enum_type()->value_count(); ++k) {
      if (!names.empty()) names += ", ";
      names += field->enum_type()->value(k)->name();
    }
    error = "unknown value '" + std::string(text) + "' (one of: " + names + ")";
    return false;
  }
  const pb::Reflection* r = message.GetReflection();
  field->is_repeated() ? r->AddEnum(&message, field, value) : r->SetEnum(&message, field, value);
  return true;
}

bool set_scalar(pb::Message& message, const pb::FieldDescriptor* field, std::string_view text,
                std::string& error) {
  WSIM_ASSERT(field != nullptr);
  const pb::Reflection* r = message.GetReflection();
  const bool rep = field->is_repeated();
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
    case pb::FieldDescriptor::CPPTYPE_INT64:
    case pb::FieldDescriptor::CPPTYPE_UINT32:
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return set_integer(message, field, text, error);
    case pb::FieldDescriptor::CPPTYPE_BOOL: {
      bool value = false;
      if (text == "true" || text == "1") {
        value = true;
      } else if (text != "false" && text != "0") {
        error = "'" + std::string(text) + "' is not true or false";
        return false;
      }
      rep ? r->AddBool(&message, field, value) : r->SetBool(&message, field, value);
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      return set_enum(message, field, text, error);
    case pb::FieldDescriptor::CPPTYPE_STRING:
      if (text.size() > kFieldBytesMax) {
        error = "value longer than " + std::to_string(kFieldBytesMax) + " bytes";
        return false;
      }
      rep ? r->AddString(&message, field, std::string(text))
          : r->SetString(&message, field, std::string(text));
      return true;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      error = "is a message; set its fields one by one (--set " + field->name() + ".FIELD=VALUE)";
      return false;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      error = "floating-point fields are not supported (use integer ratios)";
      return false;
  }
  WSIM_ASSERT_MSG(false, "unknown protobuf cpp_type " << static_cast<int>(field->cpp_type()));
  return false;
}

}  // namespace

namespace scenario_internal {

std::string field_text(const pb::Message& message, const pb::FieldDescriptor* field) {
  WSIM_ASSERT(field != nullptr);
  WSIM_ASSERT(field->containing_type() == message.GetDescriptor());  // A field of this message.
  if (!field->is_repeated()) return scalar_text(message, field, -1);
  std::string out;
  const int n = message.GetReflection()->FieldSize(message, field);
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    out += scalar_text(message, field, i);
  }
  return out;
}

bool set_value(pb::Message& message, const pb::FieldDescriptor* field, const std::string& text,
               std::string& error) {
  WSIM_ASSERT(field != nullptr);
  WSIM_ASSERT(field->containing_type() == message.GetDescriptor());
  if (field->is_map() ||
      (field->is_repeated() && field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE)) {
    error = "repeated messages and maps cannot be set from the command line";
    return false;
  }
  if (!field->is_repeated()) return set_scalar(message, field, text, error);
  message.GetReflection()->ClearField(&message, field);
  if (text.empty()) return true;
  std::size_t begin = 0;
  int count = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    WSIM_ASSERT_LE(begin, end);
    if (++count > kScriptedEventsMax) {
      error = "too many values";
      return false;
    }
    if (!set_scalar(message, field, std::string_view(text).substr(begin, end - begin), error)) {
      return false;
    }
    begin = end + 1;
  }
  // One element per comma-separated value (the field was cleared first).
  WSIM_ASSERT_EQ(message.GetReflection()->FieldSize(message, field), count);
  return true;
}

std::string field_names(const pb::Descriptor* descriptor, bool scalars_only) {
  WSIM_ASSERT(descriptor != nullptr);
  std::string out;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const pb::FieldDescriptor* f = descriptor->field(i);
    if (scalars_only && (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE)) continue;
    if (!out.empty()) out += ", ";
    out += f->name();
  }
  return out;
}

const pb::OneofDescriptor* system_oneof() {
  const pb::OneofDescriptor* oneof = proto::Scenario::descriptor()->FindOneofByName("system");
  WSIM_ASSERT(oneof != nullptr);
  return oneof;
}

std::string system_names() {
  std::string out;
  for (const System* system : systems()) {
    WSIM_ASSERT(system != nullptr);
    if (!out.empty()) out += ", ";
    out += system->name();
  }
  return out.empty() ? "none" : out;
}

}  // namespace scenario_internal

// ---- Overrides -----------------------------------------------------------------------------

bool set_field(LoadedScenario& loaded, const std::string& path, const std::string& value,
               const std::string& flag, std::string& error) {
  WSIM_ASSERT(!flag.empty());  // Errors name the flag that set the field.
  pb::Message* message = &loaded.scenario;
  const pb::FieldDescriptor* field = nullptr;
  std::string key;  // Dotted path from the Scenario, for `overridden`.
  std::string ignored;
  const System* system = loaded.system ? loaded.system : selected_system(loaded, ignored);

  if (path.find('.') == std::string::npos) {
    pb::Message* config = system ? mutable_config_of(loaded.scenario, *system) : nullptr;
    if (config != nullptr && (field = config->GetDescriptor()->FindFieldByName(path))) {
      message = config;
      key = system->name() + "." + path;
    } else if ((field = proto::Scenario::descriptor()->FindFieldByName(path)) &&
               field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      key = path;
    } else {
      field = nullptr;
      error = flag + ": unknown field '" + path + "'";
      if (config != nullptr) {
        error += " (fields of " + system->name() + ": " +
                 field_names(config->GetDescriptor(), true) + ";";
      } else {
        error += " (";
      }
      error += " scenario fields: " + field_names(proto::Scenario::descriptor(), true) + ")";
      return false;
    }
  } else {
    // A dotted path from the Scenario root through singular message fields.
    std::size_t begin = 0;
    while (true) {
      const std::size_t dot = path.find('.', begin);
      const std::string name = path.substr(begin, dot == std::string::npos ? dot : dot - begin);
      field = message->GetDescriptor()->FindFieldByName(name);
      if (field == nullptr) {
        error = flag + ": unknown field '" + name + "' in " + message->GetDescriptor()->name() +
                " (fields: " + field_names(message->GetDescriptor(), false) + ")";
        return false;
      }
      key += (key.empty() ? "" : ".") + name;
      if (dot == std::string::npos) break;
      if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE || field->is_repeated()) {
        error = flag + ": '" + key + "' is not a singular message field";
        return false;
      }
      const pb::OneofDescriptor* oneof = field->containing_oneof();
      if (oneof != nullptr) {
        const pb::FieldDescriptor* set =
            message->GetReflection()->GetOneofFieldDescriptor(*message, oneof);
        if (set != nullptr && set != field) {
          error = flag + ": the scenario selects " + set->name() + ", not " + field->name();
          return false;
        }
      }
      message = message->GetReflection()->MutableMessage(message, field);
      begin = dot + 1;
    }
  }
  WSIM_ASSERT(field != nullptr);  // Both branches found the field or returned an error.
  WSIM_ASSERT(!key.empty());
  std::string problem;
  if (!set_value(*message, field, value, problem)) {
    error = flag + ": field " + key + ": " + problem;
    return false;
  }
  loaded.overridden[key] = flag;
  return true;
}

}  // namespace wsim::run
