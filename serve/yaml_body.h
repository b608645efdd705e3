// Server-side apply bodies (application/apply-patch+yaml): YAML or JSON (JSON is YAML), to
// JSON. YAML 1.2 core schema scalars: unquoted true/false, null/~, integers and floats keep
// their types; everything quoted is a string. Parsed with yaml-cpp (Debian libyaml-cpp-dev)
// when the build found it, else JSON bodies only.
//
// Threading: pure function.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace wsim::serve {

// False with `error` when the body is neither JSON nor (with yaml-cpp) YAML, or nests too deep.
bool parse_apply_body(const std::string& body, nlohmann::json& out, std::string& error);

}  // namespace wsim::serve
