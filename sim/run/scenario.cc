#include "sim/run/scenario.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <optional>
#include <set>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>

#include "sim/core/sim.h"
#include "sim/run/duration.h"

namespace wsim::run {

namespace pb = google::protobuf;
using FieldPath = std::vector<std::pair<const pb::FieldDescriptor*, int>>;

namespace {

// ---- Positions in the text -----------------------------------------------------------------

// Collects the parser's first error (0-based line and column).
class FirstErrorCollector : public pb::io::ErrorCollector {
 public:
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (has_error) return;
    has_error = true;
    this->line = line;
    this->column = column;
    this->message = message;
  }
  void AddWarning(int, pb::io::ColumnNumber, const std::string&) override {}

  bool has_error = false;
  int line = 0;
  int column = 0;
  std::string message;
};

bool ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

// Which field was being parsed at (line, column) of `text`: the enclosing message fields plus the
// field whose name or value sits at the position, e.g. "toy.version". A light scan of the text
// format (comments, strings, braces); good enough to name the field in an error message.
std::string field_at(std::string_view text, int line, int column) {
  std::vector<std::string> stack;
  std::string current;  // The field whose value we are in.
  std::string last_ident;
  int at_line = 0;
  int at_column = 0;
  std::size_t i = 0;
  auto reached = [&] { return at_line > line || (at_line == line && at_column >= column); };
  auto advance = [&](std::size_t n) {
    for (std::size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      if (text[i] == '\n') {
        ++at_line;
        at_column = 0;
      } else {
        ++at_column;
      }
    }
  };
  // The next non-space character after position j (on any line), skipping comments.
  auto next_significant = [&](std::size_t j) -> char {
    while (j < text.size()) {
      const char c = text[j];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++j;
      } else if (c == '#') {
        while (j < text.size() && text[j] != '\n') ++j;
      } else {
        return c;
      }
    }
    return '\0';
  };
  while (i < text.size() && !reached()) {
    const char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') advance(1);
    } else if (c == '"' || c == '\'') {
      advance(1);
      while (i < text.size() && text[i] != c && text[i] != '\n' && !reached()) {
        advance(text[i] == '\\' ? 2 : 1);
      }
      advance(1);
    } else if (ident_start(c)) {
      std::size_t j = i;
      while (j < text.size() && ident_char(text[j])) ++j;
      last_ident = std::string(text.substr(i, j - i));
      const char next = next_significant(j);
      if (next == ':' || next == '{' || next == '<') current = last_ident;
      advance(j - i);
    } else if (c == '{' || c == '<') {
      stack.push_back(current);
      current.clear();
      advance(1);
    } else if (c == '}' || c == '>') {
      if (!stack.empty()) stack.pop_back();
      current.clear();
      advance(1);
    } else {
      advance(1);
    }
  }
  // At the end of the text (an unclosed message) the enclosing message is the one in question.
  if (i >= text.size()) current.clear();
  // A field name right at the position (e.g. an unknown field) is the field in question.
  if (i < text.size() && ident_start(text[i])) {
    std::size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    const char next = next_significant(j);
    if (next == ':' || next == '{' || next == '<') current = std::string(text.substr(i, j - i));
  }
  std::string path;
  for (const std::string& name : stack) {
    if (name.empty()) continue;
    path += name;
    path += '.';
  }
  path += current;
  if (!path.empty() && path.back() == '.') path.pop_back();
  return path.empty() ? "-" : path;
}

std::string path_name(const FieldPath& path) {
  std::string out;
  for (const auto& [field, index] : path) {
    if (!out.empty()) out += '.';
    out += field->name();
    if (index >= 0) out += "[" + std::to_string(index) + "]";
  }
  return out;
}

std::string path_key(const FieldPath& path) {
  std::string out;
  for (const auto& [field, index] : path) {
    if (!out.empty()) out += '.';
    out += field->name();
  }
  return out;
}

// "FILE:LINE:COL: field PATH: message", with the position of the deepest located field.
std::string locate(const LoadedScenario& loaded, const FieldPath& path,
                   const std::string& message) {
  const std::string name = path.empty() ? "-" : path_name(path);
  // A field set on the command line: name the flag, not a line of the file.
  for (std::size_t n = path.size(); n > 0; --n) {
    const FieldPath prefix(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(n));
    auto it = loaded.overridden.find(path_key(prefix));
    if (it != loaded.overridden.end()) {
      return "command line (" + it->second + "): field " + name + ": " + message;
    }
  }
  int line = -1;
  int column = -1;
  const pb::TextFormat::ParseInfoTree* tree = loaded.locations.get();
  for (const auto& [field, path_index] : path) {
    if (tree == nullptr) break;
    // ParseInfoTree wants an index for repeated fields (-1 is a fatal error there) and -1 for
    // singular ones; an index past the end just has no location.
    const int index = field->is_repeated() ? std::max(path_index, 0) : -1;
    const auto location = tree->GetLocation(field, index);
    if (location.line < 0) break;
    line = location.line;
    column = location.column;
    tree = field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE
               ? tree->GetTreeForNested(field, index)
               : nullptr;
  }
  if (line >= 0) {
    return loaded.origin + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) +
           ": field " + name + ": " + message;
  }
  return loaded.origin + ": field " + name + ": " + message;
}

// ---- Field values by reflection ------------------------------------------------------------

std::string scalar_text(const pb::Message& message, const pb::FieldDescriptor* field,
                        int index) {
  const pb::Reflection* r = message.GetReflection();
  const bool rep = field->is_repeated();
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
      return (rep ? r->GetRepeatedEnum(message, field, index) : r->GetEnum(message, field))
          ->name();
    case pb::FieldDescriptor::CPPTYPE_STRING:
      return rep ? r->GetRepeatedString(message, field, index) : r->GetString(message, field);
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      return "<unsupported>";
  }
  return "";
}

std::string field_text(const pb::Message& message, const pb::FieldDescriptor* field) {
  if (!field->is_repeated()) return scalar_text(message, field, -1);
  std::string out;
  const int n = message.GetReflection()->FieldSize(message, field);
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    out += scalar_text(message, field, i);
  }
  return out;
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
  } else {
    if (magnitude > static_cast<std::uint64_t>(INT64_MAX)) return false;
    value = static_cast<std::int64_t>(magnitude);
  }
  return true;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Sets (or, for repeated fields, adds) one scalar value. `error` gets the problem without the
// field name.
bool set_scalar(pb::Message& message, const pb::FieldDescriptor* field, std::string_view text,
                std::string& error) {
  const pb::Reflection* r = message.GetReflection();
  const bool rep = field->is_repeated();
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  auto integer = [&](bool is_signed) {
    // Durations for *_ms fields: "--set settle_ms=5m".
    if (ends_with(field->name(), "_ms") && !text.empty() &&
        (text.back() < '0' || text.back() > '9')) {
      DurationMs ms = 0;
      if (!parse_duration_ms(text, ms, error)) return false;
      i64 = ms;
      u64 = static_cast<std::uint64_t>(ms);
      return true;
    }
    if (is_signed ? parse_i64(text, i64) : parse_u64(text, u64)) return true;
    error = "'" + std::string(text) + "' is not " +
            (is_signed ? "an integer" : "a non-negative integer");
    return false;
  };
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      if (!integer(true)) return false;
      if (i64 < INT32_MIN || i64 > INT32_MAX) {
        error = "'" + std::string(text) + "' is out of range";
        return false;
      }
      rep ? r->AddInt32(&message, field, static_cast<std::int32_t>(i64))
          : r->SetInt32(&message, field, static_cast<std::int32_t>(i64));
      return true;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      if (!integer(true)) return false;
      rep ? r->AddInt64(&message, field, i64) : r->SetInt64(&message, field, i64);
      return true;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      if (!integer(false)) return false;
      if (u64 > UINT32_MAX) {
        error = "'" + std::string(text) + "' is out of range";
        return false;
      }
      rep ? r->AddUInt32(&message, field, static_cast<std::uint32_t>(u64))
          : r->SetUInt32(&message, field, static_cast<std::uint32_t>(u64));
      return true;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      if (!integer(false)) return false;
      rep ? r->AddUInt64(&message, field, u64) : r->SetUInt64(&message, field, u64);
      return true;
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
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      const pb::EnumValueDescriptor* value =
          field->enum_type()->FindValueByName(std::string(text));
      if (value == nullptr) {
        std::string names;
        for (int k = 0; k < field->enum_type()->value_count(); ++k) {
          if (!names.empty()) names += ", ";
          names += field->enum_type()->value(k)->name();
        }
        error = "unknown value '" + std::string(text) + "' (one of: " + names + ")";
        return false;
      }
      rep ? r->AddEnum(&message, field, value) : r->SetEnum(&message, field, value);
      return true;
    }
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
  return false;
}

bool set_value(pb::Message& message, const pb::FieldDescriptor* field, const std::string& text,
               std::string& error) {
  if (field->is_map() || (field->is_repeated() &&
                          field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE)) {
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
    if (++count > kScriptedEventsMax) {
      error = "too many values";
      return false;
    }
    if (!set_scalar(message, field, std::string_view(text).substr(begin, end - begin), error)) {
      return false;
    }
    begin = end + 1;
  }
  return true;
}

std::string field_names(const pb::Descriptor* descriptor, bool scalars_only) {
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
    if (!out.empty()) out += ", ";
    out += system->name();
  }
  return out.empty() ? "none" : out;
}

}  // namespace

// ---- Reading and parsing -----------------------------------------------------------------

bool read_file_capped(const std::string& path, std::size_t bytes_max, std::string& out,
                      std::string& error) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    error = path + ": cannot read: " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = path + ": not a regular file";
    return false;
  }
  if (static_cast<std::uint64_t>(info.st_size) > bytes_max) {
    error = path + ": file is " + std::to_string(info.st_size) + " bytes; the limit is " +
            std::to_string(bytes_max) + " bytes";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  // Read at most bytes_max + 1 bytes, whatever stat said (the file may grow meanwhile).
  out.assign(bytes_max + 1 < 65536 ? bytes_max + 1 : 65536, '\0');
  std::size_t size = 0;
  while (in) {
    if (size == out.size()) {
      if (out.size() > bytes_max) break;
      out.resize(std::min(out.size() * 2, bytes_max + 1));
    }
    in.read(out.data() + size, static_cast<std::streamsize>(out.size() - size));
    size += static_cast<std::size_t>(in.gcount());
  }
  if (size > bytes_max) {
    error = path + ": file is larger than the limit of " + std::to_string(bytes_max) + " bytes";
    return false;
  }
  out.resize(size);
  return true;
}

bool parse_scenario(std::string_view text, const std::string& origin, LoadedScenario& out,
                    std::string& error) {
  out = LoadedScenario{};
  out.origin = origin;
  if (text.size() > kScenarioBytesMax) {
    error = origin + ": scenario is " + std::to_string(text.size()) + " bytes; the limit is " +
            std::to_string(kScenarioBytesMax) + " bytes";
    return false;
  }
  FirstErrorCollector collector;
  auto tree = std::make_shared<pb::TextFormat::ParseInfoTree>();
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  parser.WriteLocationsTo(tree.get());
  parser.SetRecursionLimit(kNestingMax);
  const std::string copy(text);
  if (!parser.ParseFromString(copy, &out.scenario) || collector.has_error) {
    if (!collector.has_error) {
      error = origin + ": field -: not a valid scenario";
    } else {
      std::string message = collector.message;
      if (message.size() >= 5 && message.compare(message.size() - 5, 5, "got: ") == 0) {
        message += "end of file (is a closing '}' missing?)";
      }
      error = origin + ":" + std::to_string(collector.line + 1) + ":" +
              std::to_string(collector.column + 1) + ": field " +
              field_at(text, collector.line, collector.column) + ": " + message;
    }
    out.scenario.Clear();
    return false;
  }
  out.locations = std::move(tree);
  return true;
}

bool load_scenario_file(const std::string& path, LoadedScenario& out, std::string& error) {
  std::string text;
  if (!read_file_capped(path, kScenarioBytesMax, text, error)) return false;
  return parse_scenario(text, path, out, error);
}

bool scenario_for_system(const std::string& system_name, LoadedScenario& out,
                         std::string& error) {
  out = LoadedScenario{};
  out.origin = "command line";
  const System* system = find_system(system_name);
  if (system == nullptr) {
    error = "unknown system '" + system_name + "' (systems: " + system_names() + ")";
    return false;
  }
  if (mutable_config_of(out.scenario, *system) == nullptr) {
    error = "system '" + system_name + "' has no config field in scenario.proto";
    return false;
  }
  out.system = system;
  return true;
}

// ---- Config access -------------------------------------------------------------------------

const pb::Message* config_of(const proto::Scenario& scenario, const System& system) {
  const pb::FieldDescriptor* field = proto::Scenario::descriptor()->FindFieldByName(system.name());
  if (field == nullptr || field->containing_oneof() != system_oneof()) return nullptr;
  return &scenario.GetReflection()->GetMessage(scenario, field);
}

pb::Message* mutable_config_of(proto::Scenario& scenario, const System& system) {
  const pb::FieldDescriptor* field = proto::Scenario::descriptor()->FindFieldByName(system.name());
  if (field == nullptr || field->containing_oneof() != system_oneof()) return nullptr;
  return scenario.GetReflection()->MutableMessage(&scenario, field);
}

const System* selected_system(const LoadedScenario& loaded, std::string& error) {
  const pb::FieldDescriptor* field =
      loaded.scenario.GetReflection()->GetOneofFieldDescriptor(loaded.scenario, system_oneof());
  if (field == nullptr) {
    std::string choices;
    for (int i = 0; i < system_oneof()->field_count(); ++i) {
      if (find_system(system_oneof()->field(i)->name()) == nullptr) continue;
      if (!choices.empty()) choices += ", ";
      choices += system_oneof()->field(i)->name() + " { }";
    }
    error = loaded.origin + ": field system: no system selected; add one of: " +
            (choices.empty() ? std::string("(none linked)") : choices);
    return nullptr;
  }
  const System* system = find_system(field->name());
  if (system == nullptr) {
    error = locate(loaded, {{field, -1}},
                   "system '" + field->name() + "' is not linked into this binary (systems: " +
                       system_names() + ")");
  }
  return system;
}

bool config_value(const proto::Scenario& scenario, const System& system, const std::string& name,
                  std::string& value) {
  const pb::Message* config = config_of(scenario, system);
  if (config == nullptr) return false;
  const pb::FieldDescriptor* field = config->GetDescriptor()->FindFieldByName(name);
  if (field == nullptr || field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) return false;
  value = field_text(*config, field);
  return true;
}

std::string describe_config(const proto::Scenario& scenario, const System& system) {
  const pb::Message* config = config_of(scenario, system);
  if (config == nullptr) return "";
  std::string out;
  const pb::Descriptor* descriptor = config->GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const pb::FieldDescriptor* field = descriptor->field(i);
    if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!out.empty()) out += ' ';
    out += field->name() + "=" + field_text(*config, field);
  }
  return out;
}

std::string describe_versions(const proto::Scenario& scenario, const System& system) {
  std::string out;
  for (const VersionAxis& axis : system.axes()) {
    std::string value;
    if (!config_value(scenario, system, axis.field, value)) continue;
    if (!out.empty()) out += ' ';
    out += axis.field + "=" + value;
  }
  return out;
}

std::string version_tag(const proto::Scenario& scenario, const System& system) {
  std::string out;
  for (const VersionAxis& axis : system.axes()) {
    std::string value;
    if (!config_value(scenario, system, axis.field, value) || value.empty()) continue;
    if (!out.empty()) out += '-';
    out += value;
  }
  return out;
}

std::string scenario_to_text(const proto::Scenario& scenario) {
  std::string out;
  pb::TextFormat::Printer printer;
  printer.PrintToString(scenario, &out);
  return out;
}

// ---- Overrides -----------------------------------------------------------------------------

bool set_field(LoadedScenario& loaded, const std::string& path, const std::string& value,
               const std::string& flag, std::string& error) {
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
  std::string problem;
  if (!set_value(*message, field, value, problem)) {
    error = flag + ": field " + key + ": " + problem;
    return false;
  }
  loaded.overridden[key] = flag;
  return true;
}

// ---- Validation ----------------------------------------------------------------------------

namespace {

const pb::FieldDescriptor* scenario_field(const char* name) {
  const pb::FieldDescriptor* field = proto::Scenario::descriptor()->FindFieldByName(name);
  WSIM_ASSERT_MSG(field != nullptr, "scenario.proto has no field " << name);
  return field;
}

const pb::FieldDescriptor* message_field(const pb::Descriptor* descriptor, const char* name) {
  const pb::FieldDescriptor* field = descriptor->FindFieldByName(name);
  WSIM_ASSERT_MSG(field != nullptr, descriptor->name() << " has no field " << name);
  return field;
}

bool check_string(const LoadedScenario& loaded, const FieldPath& path, const std::string& value,
                  std::size_t bytes_max, std::string& error) {
  if (value.size() <= bytes_max) return true;
  error = locate(loaded, path,
                 "value is " + std::to_string(value.size()) + " bytes; the limit is " +
                     std::to_string(bytes_max));
  return false;
}

bool check_phase(const LoadedScenario& loaded, const char* name, std::int64_t value,
                 std::string& error) {
  if (value >= 0 && value <= kPhaseMsMax) return true;
  error = locate(loaded, {{scenario_field(name), -1}},
                 std::to_string(value) + " is out of range (0 = the system's default, at most " +
                     std::to_string(kPhaseMsMax) + " ms = 7 days)");
  return false;
}

// The config field named in a normalize() error, so the error can point at its line.
FieldPath path_for_system_error(const proto::Scenario& scenario, const System& system,
                                const std::string& message) {
  const pb::FieldDescriptor* config_field =
      proto::Scenario::descriptor()->FindFieldByName(system.name());
  FieldPath path{{config_field, -1}};
  const pb::Message* config = config_of(scenario, system);
  if (config == nullptr) return path;
  const pb::Descriptor* descriptor = config->GetDescriptor();
  std::size_t best = std::string::npos;
  const pb::FieldDescriptor* best_field = nullptr;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const std::string& name = descriptor->field(i)->name();
    for (std::size_t at = message.find(name); at != std::string::npos;
         at = message.find(name, at + 1)) {
      const bool start_ok = at == 0 || !ident_char(message[at - 1]);
      const bool end_ok = at + name.size() == message.size() || !ident_char(message[at + name.size()]);
      if (start_ok && end_ok) {
        if (at < best) {
          best = at;
          best_field = descriptor->field(i);
        }
        break;
      }
    }
  }
  if (best_field != nullptr) path.emplace_back(best_field, -1);
  return path;
}

}  // namespace

// `go_past` entries (issue #12): at most kExpectationsMax, each naming a safety invariant of the
// system and an object.
bool validate_go_past(const LoadedScenario& loaded, const std::vector<InvariantInfo>& invariants,
                      std::string& error) {
  const proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* go_past_field = scenario_field("go_past");
  WSIM_ASSERT(go_past_field != nullptr);
  if (scenario.go_past_size() > kExpectationsMax) {
    error = locate(loaded, {{go_past_field, kExpectationsMax}},
                   "more than " + std::to_string(kExpectationsMax) + " go_past entries");
    return false;
  }
  const pb::Descriptor* kd = proto::KnownViolation::descriptor();
  for (int i = 0; i < scenario.go_past_size(); ++i) {
    const proto::KnownViolation& entry = scenario.go_past(i);
    const auto safety = std::find_if(invariants.begin(), invariants.end(), [&](const auto& info) {
      return info.id == entry.invariant() && info.kind == InvariantKind::kSafety;
    });
    if (safety == invariants.end()) {
      error = locate(loaded, {{go_past_field, i}, {message_field(kd, "invariant"), -1}},
                     "'" + entry.invariant().substr(0, 64) +
                         "' is not a safety invariant of this system (`wsim list`)");
      return false;
    }
    if (entry.object().empty()) {
      error = locate(loaded, {{go_past_field, i}, {message_field(kd, "object"), -1}},
                     "a go_past entry needs the object of the violation");
      return false;
    }
  }
  return true;
}

namespace {

// The phases of validate_scenario, in order: each checks one part of the scenario and may
// assume the phases before it passed.
enum class ValidationPhase {
  kHeader,          // name, description, phase lengths
  kFaultOverrides,  // counts and fire ratios (names: kDryRun)
  kScriptedEvents,  // counts, times, sizes
  kSystemChecks,    // System::normalize, the defaults, events inside the fault phase
  kExpectations,    // known invariants of the right kind, `when` keys naming config fields
  kGoPast,          // go_past entries
  kDryRun,          // a throwaway world: fault names declared, scripted events understood
};
constexpr ValidationPhase kValidationPhases[] = {
    ValidationPhase::kHeader,         ValidationPhase::kFaultOverrides,
    ValidationPhase::kScriptedEvents, ValidationPhase::kSystemChecks,
    ValidationPhase::kExpectations,   ValidationPhase::kGoPast,
    ValidationPhase::kDryRun};

// Name, description and phase lengths.
bool validate_header(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  if (!check_string(loaded, {{scenario_field("name"), -1}}, scenario.name(), 200, error) ||
      !check_string(loaded, {{scenario_field("description"), -1}}, scenario.description(),
                    64 * 1024, error) ||
      !check_phase(loaded, "fault_phase_ms", scenario.fault_phase_ms(), error) ||
      !check_phase(loaded, "settle_ms", scenario.settle_ms(), error)) {
    return false;
  }
  return true;
}

// Fault overrides: counts and ratios (names are checked against the declared points in
// the dry run).
bool validate_fault_overrides(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* faults_field = scenario_field("faults");
  if (scenario.faults_size() > kFaultOverridesMax) {
    error = locate(loaded, {{faults_field, kFaultOverridesMax}},
                   "more than " + std::to_string(kFaultOverridesMax) + " fault overrides");
    return false;
  }
  for (int i = 0; i < scenario.faults_size(); ++i) {
    const proto::FaultOverride& fault = scenario.faults(i);
    const pb::Descriptor* d = proto::FaultOverride::descriptor();
    if (!check_string(loaded, {{faults_field, i}, {message_field(d, "name"), -1}}, fault.name(),
                      256, error)) {
      return false;
    }
    if (fault.fire_num() == 0 && fault.fire_den() == 0) continue;
    if (fault.fire_den() == 0 || fault.fire_num() > fault.fire_den() ||
        fault.fire_den() > kFireDenominatorMax) {
      error = locate(loaded, {{faults_field, i}, {message_field(d, "fire_den"), -1}},
                     "fire ratio " + std::to_string(fault.fire_num()) + "/" +
                         std::to_string(fault.fire_den()) + " is not a probability (need 0 <= " +
                         "fire_num <= fire_den, 0 < fire_den <= " +
                         std::to_string(kFireDenominatorMax) + ")");
      return false;
    }
  }
  return true;
}

// Scripted events: counts, times, sizes.
bool validate_scripted_events(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* events_field = scenario_field("events");
  if (scenario.events_size() > kScriptedEventsMax) {
    error = locate(loaded, {{events_field, kScriptedEventsMax}},
                   "more than " + std::to_string(kScriptedEventsMax) + " scripted events");
    return false;
  }
  const pb::Descriptor* ed = proto::ScriptedEvent::descriptor();
  for (int i = 0; i < scenario.events_size(); ++i) {
    const proto::ScriptedEvent& event = scenario.events(i);
    if (event.at_ms() < 0 || event.at_ms() > kPhaseMsMax) {
      error = locate(loaded, {{events_field, i}, {message_field(ed, "at_ms"), -1}},
                     std::to_string(event.at_ms()) + " is out of range (0 .. 7 days)");
      return false;
    }
    if (!check_string(loaded, {{events_field, i}, {message_field(ed, "actor"), -1}},
                      event.actor(), 256, error) ||
        !check_string(loaded, {{events_field, i}, {message_field(ed, "action"), -1}},
                      event.action(), 256, error) ||
        !check_string(loaded, {{events_field, i}, {message_field(ed, "target"), -1}},
                      event.target(), 256, error)) {
      return false;
    }
    if (event.action().empty()) {
      error = locate(loaded, {{events_field, i}, {message_field(ed, "action"), -1}},
                     "a scripted event needs an action (`wsim list` shows them)");
      return false;
    }
    if (event.args_size() > kEventArgsMax) {
      error = locate(loaded, {{events_field, i}, {message_field(ed, "args"), -1}},
                     "more than " + std::to_string(kEventArgsMax) + " args");
      return false;
    }
    for (const auto& [key, value] : event.args()) {
      if (key.size() > 256 || value.size() > kFieldBytesMax) {
        error = locate(loaded, {{events_field, i}, {message_field(ed, "args"), -1}},
                       "arg '" + key.substr(0, 64) + "' is too long");
        return false;
      }
    }
  }
  return true;
}

// The system's own checks and defaults; scripted events inside the fault phase.
bool validate_system_checks(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* events_field = scenario_field("events");
  const pb::Descriptor* ed = proto::ScriptedEvent::descriptor();
  std::string problem;
  if (!system.normalize(scenario, problem)) {
    const FieldPath path = path_for_system_error(scenario, system, problem);
    // Systems often prefix their message with the field ("gitlab.agent: ..."): say it once.
    for (const std::string& prefix : {path_name(path) + ": ", path.back().first->name() + ": "}) {
      if (problem.rfind(prefix, 0) == 0) {
        problem.erase(0, prefix.size());
        break;
      }
    }
    error = locate(loaded, path, problem);
    return false;
  }
  if (scenario.fault_phase_ms() == 0) scenario.set_fault_phase_ms(system.default_fault_phase_ms());
  if (scenario.settle_ms() == 0) scenario.set_settle_ms(system.default_settle_ms());
  for (int i = 0; i < scenario.events_size(); ++i) {
    if (scenario.events(i).at_ms() > scenario.fault_phase_ms()) {
      error = locate(loaded, {{events_field, i}, {message_field(ed, "at_ms"), -1}},
                     "scripted event at " + format_duration_ms(scenario.events(i).at_ms()) +
                         " is after the fault phase, which ends at " +
                         format_duration_ms(scenario.fault_phase_ms()) +
                         " (external actions stop when the world heals)");
      return false;
    }
  }
  return true;
}

// Expectation `i`: `when` keys naming config fields, a verdict, a known invariant of its kind.
bool validate_expectation(const LoadedScenario& loaded, const System& system,
                          const std::vector<InvariantInfo>& invariants, int i, std::string& error) {
  const proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* expect_field = scenario_field("expect");
  const pb::Descriptor* xd = proto::Expectation::descriptor();
  const proto::Expectation& expect = scenario.expect(i);
  auto fail = [&](const char* field, const std::string& message) {
    error = locate(loaded, {{expect_field, i}, {message_field(xd, field), -1}}, message);
    return false;
  };
  for (const auto& [key, value] : expect.when()) {
    std::string actual;
    if (!config_value(scenario, system, key, actual)) {
      return fail("when",
                  "'" + key.substr(0, 64) + "' is not a field of " + system.name() + " (fields: " +
                      field_names(config_of(scenario, system)->GetDescriptor(), true) + ")");
    }
  }
  if (expect.verdict() == proto::VERDICT_UNSPECIFIED) {
    return fail("verdict",
                "an expectation needs a verdict: PASS, SAFETY_VIOLATION or LIVENESS_VIOLATION");
  }
  if (expect.verdict() == proto::PASS) {
    if (!expect.invariant().empty())
      return fail("invariant", "a PASS expectation names no invariant");
    return true;
  }
  const InvariantKind kind = expect.verdict() == proto::SAFETY_VIOLATION ? InvariantKind::kSafety
                                                                         : InvariantKind::kLiveness;
  const InvariantInfo* found = nullptr;
  for (const InvariantInfo& info : invariants) {
    if (info.id == expect.invariant()) found = &info;
  }
  if (found == nullptr) {
    std::string ids;
    for (const InvariantInfo& info : invariants) {
      if (info.kind != kind) continue;
      if (!ids.empty()) ids += ", ";
      ids += info.id;
    }
    return fail("invariant",
                expect.invariant().empty()
                    ? "a violation expectation needs the invariant id (" + ids + ")"
                    : "unknown invariant '" + expect.invariant().substr(0, 64) + "' (" + ids + ")");
  }
  if (found->kind != kind) {
    return fail("invariant", found->id + " is a " +
                                 (found->kind == InvariantKind::kSafety ? "safety" : "liveness") +
                                 " invariant, but the verdict is " +
                                 proto::Verdict_Name(expect.verdict()));
  }
  return true;
}

// Expectations: at most kExpectationsMax, each valid (validate_expectation).
bool validate_expectations(LoadedScenario& loaded, const System& system, std::string& error) {
  const proto::Scenario& scenario = loaded.scenario;
  if (scenario.expect_size() > kExpectationsMax) {
    error = locate(loaded, {{scenario_field("expect"), kExpectationsMax}},
                   "more than " + std::to_string(kExpectationsMax) + " expectations");
    return false;
  }
  const std::vector<InvariantInfo> invariants = system.invariants();
  for (int i = 0; i < scenario.expect_size(); ++i) {
    if (!validate_expectation(loaded, system, invariants, i, error)) return false;
  }
  return true;
}

// Dry run on a throwaway world: fault names must be declared; every scripted event must be
// understood by the system.
bool validate_dry_run(LoadedScenario& loaded, const System& system, std::string& error) {
  proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* faults_field = scenario_field("faults");
  const pb::FieldDescriptor* events_field = scenario_field("events");
  Sim dummy(ChoiceSource::from_seed(scenario.seed()));
  std::unique_ptr<SystemRun> run = system.create(dummy, scenario);
  WSIM_ASSERT(run != nullptr);
  const pb::Descriptor* fd = proto::FaultOverride::descriptor();
  for (int i = 0; i < scenario.faults_size(); ++i) {
    FaultId id = 0;
    if (!dummy.faults().find(scenario.faults(i).name(), id)) {
      std::string names;
      std::set<std::string> sorted;
      for (std::size_t k = 0; k < dummy.faults().size(); ++k) {
        sorted.insert(dummy.faults().point(static_cast<FaultId>(k)).name);
      }
      for (const std::string& name : sorted) names += (names.empty() ? "" : ", ") + name;
      error = locate(loaded, {{faults_field, i}, {message_field(fd, "name"), -1}},
                     "unknown fault point '" + scenario.faults(i).name() + "' (" + names + ")");
      return false;
    }
  }
  if (scenario.events_size() > 0) {
    run->start();
    for (int i = 0; i < scenario.events_size(); ++i) {
      std::string why;
      if (!run->perform(scenario.events(i), why)) {
        error = locate(loaded, {{events_field, i}}, why);
        return false;
      }
    }
  }
  return true;
}

bool validate_phase(ValidationPhase phase, LoadedScenario& loaded, const System& system,
                    std::string& error) {
  switch (phase) {
    case ValidationPhase::kHeader:
      return validate_header(loaded, system, error);
    case ValidationPhase::kFaultOverrides:
      return validate_fault_overrides(loaded, system, error);
    case ValidationPhase::kScriptedEvents:
      return validate_scripted_events(loaded, system, error);
    case ValidationPhase::kSystemChecks:
      return validate_system_checks(loaded, system, error);
    case ValidationPhase::kExpectations:
      return validate_expectations(loaded, system, error);
    case ValidationPhase::kGoPast:
      return validate_go_past(loaded, system.invariants(), error);
    case ValidationPhase::kDryRun:
      return validate_dry_run(loaded, system, error);
  }
  WSIM_ASSERT(false);
  return false;
}

}  // namespace

bool validate_scenario(LoadedScenario& loaded, std::string& error) {
  const System* system = selected_system(loaded, error);
  if (system == nullptr) return false;
  loaded.system = system;
  for (ValidationPhase phase : kValidationPhases) {
    if (!validate_phase(phase, loaded, *system, error)) return false;
  }
  return true;
}

}  // namespace wsim::run
