// Server-side apply bodies (yaml_body.h): JSON, or YAML through yaml-cpp (WSIM_SERVE_YAML) with
// YAML 1.2 core-schema scalars, to JSON. Hostile input: a YAML body must be UTF-8, its bracket
// nesting is counted before yaml-cpp's recursive parser sees it, and conversion stops at kMaxDepth
// levels.
#include "serve/yaml_body.h"

#include <cstdlib>

#include "serve/http.h"

#ifdef WSIM_SERVE_YAML
#include <yaml-cpp/yaml.h>
#endif

namespace wsim::serve {
namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 200;  // Deeper documents are refused (no stack overflow).

#ifdef WSIM_SERVE_YAML
Json scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // Quoted: a string.
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  const Json number = Json::parse(text, nullptr, false);
  if (number.is_number()) return number;
  return text;
}

bool convert(const YAML::Node& node, Json& out, int depth, std::string& error) {
  if (depth > kMaxDepth) {
    error = "body: the YAML nests deeper than " + std::to_string(kMaxDepth) + " levels";
    return false;
  }
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out = Json::object();
      for (const auto& entry : node) {
        Json value;
        if (!convert(entry.second, value, depth + 1, error)) return false;
        out[entry.first.as<std::string>()] = std::move(value);
      }
      return true;
    case YAML::NodeType::Sequence:
      out = Json::array();
      for (const auto& item : node) {
        Json value;
        if (!convert(item, value, depth + 1, error)) return false;
        out.push_back(std::move(value));
      }
      return true;
    case YAML::NodeType::Scalar:
      out = scalar(node);
      return true;
    default:
      out = nullptr;
      return true;
  }
}
#endif

}  // namespace

bool parse_apply_body(const std::string& body, Json& out, std::string& error) {
  out = Json::parse(body, nullptr, false);
  if (!out.is_discarded()) return true;
#ifdef WSIM_SERVE_YAML
  // YAML text is UTF-8 (sigs.k8s.io/yaml → go-yaml refuses other bytes: "yaml: invalid leading
  // UTF-8 octet"); yaml-cpp passes them through into strings nothing can print as JSON.
  if (!http::valid_utf8(body)) {
    error = "body: yaml: invalid UTF-8 (a YAML body must be UTF-8 text)";
    return false;
  }
  // Flow collections nest by brackets: bounded before yaml-cpp's recursive parser sees them.
  int depth = 0;
  for (char c : body) {
    depth += (c == '[' || c == '{') ? 1 : (c == ']' || c == '}') ? -1 : 0;
    if (depth > kMaxDepth) {
      error = "body: the YAML nests deeper than " + std::to_string(kMaxDepth) + " levels";
      return false;
    }
  }
  try {
    const YAML::Node node = YAML::Load(body);
    if (!convert(node, out, 0, error)) return false;
    if (!out.is_object()) {
      error = "body: the applied configuration must be a YAML or JSON object";
      return false;
    }
    return true;
  } catch (const YAML::Exception& e) {
    error = std::string("body: not YAML: ") + e.what();
    return false;
  }
#else
  error = "body: not JSON (this wsim was built without yaml-cpp: send JSON)";
  return false;
#endif
}

}  // namespace wsim::serve
