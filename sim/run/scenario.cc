// Scenarios as text: reading a file, parsing the text format with positions for errors (the text
// scanner), the selected system and its config, rendering back to text. Field setting is in
// scenario_fields.cc, validation in scenario_validate.cc.
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

#include "sim/core/sim.h"
#include "sim/run/duration.h"
#include "sim/run/scenario_internal.h"

namespace wsim::run {

namespace pb = google::protobuf;
using namespace scenario_internal;  // NOLINT: the helpers shared by the scenario files.

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

// The next non-space character of `text` at or after position j (on any line), skipping
// comments; '\0' at the end.
char next_significant(std::string_view text, std::size_t j) {
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
}

// "a.b.c" of the enclosing fields (empty ones skipped) and the current one; "-" when none.
std::string dotted_path(const std::vector<std::string>& stack, const std::string& current) {
  std::string path;
  for (const std::string& name : stack) {
    if (name.empty()) continue;
    path += name;
    path += '.';
  }
  path += current;
  if (!path.empty() && path.back() == '.') path.pop_back();
  if (!path.empty()) WSIM_ASSERT_NE(path.back(), '.');
  return path.empty() ? "-" : path;
}

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
      const char next = next_significant(text, j);
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
  WSIM_ASSERT_LE(i, text.size());  // advance() never steps past the end.
  // At the end of the text (an unclosed message) the enclosing message is the one in question.
  if (i >= text.size()) current.clear();
  // A field name right at the position (e.g. an unknown field) is the field in question.
  if (i < text.size() && ident_start(text[i])) {
    std::size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    const char next = next_significant(text, j);
    if (next == ':' || next == '{' || next == '<') current = std::string(text.substr(i, j - i));
  }
  return dotted_path(stack, current);
}

std::string path_key(const FieldPath& path) {
  std::string out;
  for (const auto& [field, index] : path) {
    WSIM_ASSERT(field != nullptr);
    if (!out.empty()) out += '.';
    out += field->name();
  }
  return out;
}

}  // namespace

namespace scenario_internal {

bool ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

std::string path_name(const FieldPath& path) {
  std::string out;
  for (const auto& [field, index] : path) {
    WSIM_ASSERT(field != nullptr);
    WSIM_ASSERT_GE(index, -1);  // -1: a singular field; else an element of a repeated one.
    if (!out.empty()) out += '.';
    out += field->name();
    if (index >= 0) out += "[" + std::to_string(index) + "]";
  }
  return out;
}

// "FILE:LINE:COL: field PATH: message", with the position of the deepest located field.
std::string locate(const LoadedScenario& loaded, const FieldPath& path,
                   const std::string& message) {
  WSIM_ASSERT(!message.empty());  // An error names what is wrong.
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

}  // namespace scenario_internal

// ---- Reading and parsing -----------------------------------------------------------------

bool is_pinned(const proto::FaultOverride& fault) {
  return !fault.verb().empty() || !fault.object().empty() || !fault.actor().empty() ||
         fault.occurrence() != 0 || fault.has_from_ms() || fault.has_until_ms();
}

bool read_file_capped(const std::string& path, std::size_t bytes_max, std::string& out,
                      std::string& error) {
  WSIM_ASSERT_GT(bytes_max, 0u);
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
    WSIM_ASSERT_LE(size, out.size());
  }
  if (size > bytes_max) {
    error = path + ": file is larger than the limit of " + std::to_string(bytes_max) + " bytes";
    return false;
  }
  out.resize(size);
  WSIM_ASSERT_LE(out.size(), bytes_max);
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
    WSIM_ASSERT(!error.empty());
    return false;
  }
  out.locations = std::move(tree);
  WSIM_ASSERT(out.locations != nullptr);  // locate() names lines from it.
  return true;
}

bool load_scenario_file(const std::string& path, LoadedScenario& out, std::string& error) {
  std::string text;
  if (!read_file_capped(path, kScenarioBytesMax, text, error)) {
    WSIM_ASSERT(!error.empty());  // A failed read says why.
    return false;
  }
  WSIM_ASSERT_LE(text.size(), kScenarioBytesMax);
  return parse_scenario(text, path, out, error);
}

bool scenario_for_system(const std::string& system_name, LoadedScenario& out, std::string& error) {
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
  WSIM_ASSERT_EQ(system->name(), system_name);
  out.system = system;
  return true;
}

// ---- Config access -------------------------------------------------------------------------

const pb::Message* config_of(const proto::Scenario& scenario, const System& system) {
  WSIM_ASSERT(!system.name().empty());
  const pb::FieldDescriptor* field = proto::Scenario::descriptor()->FindFieldByName(system.name());
  if (field == nullptr || field->containing_oneof() != system_oneof()) return nullptr;
  return &scenario.GetReflection()->GetMessage(scenario, field);
}

pb::Message* mutable_config_of(proto::Scenario& scenario, const System& system) {
  WSIM_ASSERT(!system.name().empty());
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
                   "system '" + field->name() +
                       "' is not linked into this binary (systems: " + system_names() + ")");
  }
  if (system != nullptr) WSIM_ASSERT_EQ(system->name(), field->name());
  if (system == nullptr) WSIM_ASSERT(!error.empty());
  return system;
}

bool config_value(const proto::Scenario& scenario, const System& system, const std::string& name,
                  std::string& value) {
  const pb::Message* config = config_of(scenario, system);
  if (config == nullptr) return false;
  const pb::FieldDescriptor* field = config->GetDescriptor()->FindFieldByName(name);
  if (field == nullptr || field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) return false;
  WSIM_ASSERT_EQ(field->name(), name);
  value = field_text(*config, field);
  return true;
}

std::string describe_config(const proto::Scenario& scenario, const System& system) {
  const pb::Message* config = config_of(scenario, system);
  if (config == nullptr) return "";
  std::string out;
  const pb::Descriptor* descriptor = config->GetDescriptor();
  const std::vector<VersionAxis> axes = system.axes();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const pb::FieldDescriptor* field = descriptor->field(i);
    WSIM_ASSERT(field != nullptr);
    if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!out.empty()) out += ' ';
    std::string value = field_text(*config, field);
    // A version axis left empty selects its latest (gitpod's `fixes: ""` is every fix): say
    // which, as describe_versions does.
    const auto axis = std::find_if(axes.begin(), axes.end(),
                                   [&](const VersionAxis& a) { return a.field == field->name(); });
    if (value.empty() && axis != axes.end() && !axis->latest.empty()) value = axis->latest;
    out += field->name() + "=" + value;
  }
  return out;
}

std::string describe_versions(const proto::Scenario& scenario, const System& system) {
  std::string out;
  for (const VersionAxis& axis : system.axes()) {
    WSIM_ASSERT(!axis.field.empty());  // An axis names its config field.
    std::string value;
    if (!config_value(scenario, system, axis.field, value)) continue;
    if (!out.empty()) out += ' ';
    // An empty value selects the latest (gitpod's `fixes: ""` means every fix): say which.
    out += axis.field + "=" + (value.empty() && !axis.latest.empty() ? axis.latest : value);
  }
  return out;
}

std::string version_tag(const proto::Scenario& scenario, const System& system) {
  std::string out;
  for (const VersionAxis& axis : system.axes()) {
    WSIM_ASSERT(!axis.field.empty());
    std::string value;
    if (!config_value(scenario, system, axis.field, value) || value.empty()) continue;
    if (!out.empty()) out += '-';
    out += value;
  }
  if (!out.empty()) WSIM_ASSERT_NE(out.back(), '-');
  return out;
}

std::string scenario_to_text(const proto::Scenario& scenario) {
  std::string out;
  pb::TextFormat::Printer printer;
  const bool printed = printer.PrintToString(scenario, &out);
  WSIM_ASSERT(printed);  // A message in memory always prints.
  return out;
}

}  // namespace wsim::run
