// RFC 6902 JSON patches under the API server's bounds (json_patch.h): before each operation is
// applied, the bytes `copy` adds and the depth the result would reach are checked, so that a
// hostile patch can exhaust neither memory nor the stack. Pure functions.
#include "serve/json_patch.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "serve/validation.h"

namespace wsim::serve {
namespace {

std::size_t path_tokens(const Json& op, const char* key) {
  if (!op.contains(key) || !op[key].is_string()) return 0;
  const std::string path = op[key].get<std::string>();
  return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
}

}  // namespace

void measure_json(const Json& value, std::size_t bytes_max, std::size_t& bytes,
                  std::size_t& depth) {
  bytes = 0;
  depth = 0;
  std::vector<std::pair<const Json*, std::size_t>> stack = {{&value, 0}};
  while (!stack.empty() && bytes <= bytes_max) {
    const auto [node, level] = stack.back();
    stack.pop_back();
    if (node->is_object() || node->is_array()) {
      depth = std::max(depth, level + 1);
      bytes += 2;
      for (auto it = node->begin(); it != node->end(); ++it) {
        if (node->is_object()) bytes += it.key().size() + 4;
        stack.emplace_back(&*it, level + 1);
      }
    } else if (node->is_string()) {
      bytes += node->get_ref<const std::string&>().size() + 3;
    } else {
      bytes += 8;
    }
  }
}

bool apply_json_patch_bounded(const Json& patch, Json& doc, std::string& error) {
  std::size_t copied_bytes = 0;
  std::size_t bytes = 0;
  std::size_t depth_bound = 0;
  measure_json(doc, static_cast<std::size_t>(-1), bytes, depth_bound);
  for (const Json& op : patch) {
    const std::string name = op.is_object() ? op.value("op", std::string()) : std::string();
    std::size_t value_depth = 0;
    if (name == "copy" && op.contains("from") && op["from"].is_string()) {
      const Json& source = doc.at(Json::json_pointer(op["from"].get<std::string>()));
      measure_json(source, kJsonPatchCopyBytesMax, bytes, value_depth);
      copied_bytes += bytes;
      if (copied_bytes > kJsonPatchCopyBytesMax) {
        error = "json patch: unable to copy, the copies would add more than " +
                std::to_string(kJsonPatchCopyBytesMax) + " bytes";
        return false;
      }
    } else if (name == "move") {
      value_depth = depth_bound;  // Conservative: moves are rare and do not grow the object.
    } else if (op.is_object() && op.contains("value")) {
      measure_json(op["value"], static_cast<std::size_t>(-1), bytes, value_depth);
    }
    depth_bound = std::max(depth_bound, path_tokens(op, "path") + value_depth);
    if (depth_bound > kJsonDepthMax) {
      error = "json patch: the result would nest deeper than " + std::to_string(kJsonDepthMax);
      return false;
    }
    doc.patch_inplace(Json::array({op}));
  }
  return true;
}

}  // namespace wsim::serve
