// Helpers shared by the three scenario files (scenario.cc: text and config; scenario_fields.cc:
// field setting; scenario_validate.cc: validation). Not for use outside them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "sim/run/scenario.h"

namespace wsim::run::scenario_internal {

// A path to a field: (field, repeated index or -1) from the Scenario message down.
using FieldPath = std::vector<std::pair<const google::protobuf::FieldDescriptor*, int>>;

// Characters of a text-format identifier.
bool ident_start(char c);
bool ident_char(char c);

// "events[2].at_ms".
std::string path_name(const FieldPath& path);
// "FILE:LINE:COL: field PATH: message", with the position of the deepest located field (or the
// command-line flag that set it).
std::string locate(const LoadedScenario& loaded, const FieldPath& path, const std::string& message);

// The value of a field as text ("" when unset), for describe_config.
std::string field_text(const google::protobuf::Message& message,
                       const google::protobuf::FieldDescriptor* field);
// Sets a scalar field from text, or a repeated scalar field from a comma-separated list (which
// replaces its values); false with `error` when the text is not a value of the field's type.
bool set_value(google::protobuf::Message& message, const google::protobuf::FieldDescriptor* field,
               const std::string& text, std::string& error);
// "a, b, c": the fields of a message (scalars only, when asked), for error messages.
std::string field_names(const google::protobuf::Descriptor* descriptor, bool scalars_only);
// The `system` oneof of Scenario and the names of the registered systems.
const google::protobuf::OneofDescriptor* system_oneof();
std::string system_names();

// The evidence of a corpus file, `upstream` and `needs` (scenario_evidence.cc): false with an
// error naming the field's line when a step or a need is incomplete or names an undeclared
// amplifier.
bool validate_evidence(const LoadedScenario& loaded, const System& system, std::string& error);

}  // namespace wsim::run::scenario_internal
