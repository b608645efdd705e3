// Request paths and options (request.h): a resource path into a Target (404 for anything else),
// delete options from the body and the propagationPolicy query, and the patch type from
// Content-Type with its application (merge, JSON, strategic). Pure functions over hostile input.
#include "serve/request.h"

#include "serve/patch.h"

#include <limits>

#include <sstream>
#include <vector>

#include "serve/json_patch.h"
#include "serve/validation.h"

namespace wsim::serve {
namespace {

std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream stream(path);
  std::string part;
  while (std::getline(stream, part, '/')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

bool not_found(int& code, std::string& error, const std::string& path) {
  code = 404;
  error = "the server could not find the requested resource (" + path + ")";
  return false;
}

// `rest` after the group version: [namespaces NS] PLURAL [NAME [status]], or namespaces NAME
// status.
bool parse_rest(const std::vector<std::string>& rest, const std::string& group,
                const std::string& version, Target& target) {
  std::size_t i = 0;
  const bool namespace_status =
      rest.size() == 3 && rest[0] == "namespaces" && (rest[2] == "status" || rest[2] == "finalize");
  if (!namespace_status && rest.size() >= 3 && rest[0] == "namespaces") {
    target.namespace_ = rest[1];
    i = 2;
  }
  if (i >= rest.size()) return false;
  target.resource = find_by_plural(group, version, rest[i]);
  if (target.resource == nullptr) return false;
  if (!target.resource->namespaced && i == 2) return false;
  if (i + 1 < rest.size()) target.name = rest[i + 1];
  if (i + 2 < rest.size()) {
    const std::string& sub = rest[i + 2];
    if (i + 3 != rest.size()) return false;
    if (sub == "status" && target.resource->has_status) {
      target.status = true;
    } else if (sub == "scale" && target.resource->has_scale) {
      target.scale = true;
    } else if (sub == "finalize" && target.resource->kind == "Namespace") {
      target.finalize = true;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

bool parse_target(const std::string& path, Target& target, int& code, std::string& error) {
  const std::vector<std::string> parts = segments(path);
  target = Target{};
  std::string group;
  std::string version;
  std::size_t start = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    version = parts[1];
    start = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    group = parts[1];
    version = parts[2];
    start = 3;
  } else {
    return not_found(code, error, path);
  }
  const std::vector<std::string> rest(parts.begin() + static_cast<long>(start), parts.end());
  if (!parse_rest(rest, group, version, target)) return not_found(code, error, path);
  return true;
}

bool parse_delete_options(const std::string& body, const std::string& propagation_query,
                          const std::string& grace_query, kube::DeleteOptions& out,
                          std::string& error) {
  out = kube::DeleteOptions{};
  Json options = Json::object();
  if (!body.empty()) {
    options = Json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!options.is_object()) {
      error = "body: DeleteOptions must be a JSON object";
      return false;
    }
  }
  std::string propagation = propagation_query;
  if (options.contains("propagationPolicy") && options["propagationPolicy"].is_string()) {
    propagation = options["propagationPolicy"].get<std::string>();
  }
  if (propagation == "Foreground") {
    out.propagation = kube::Propagation::kForeground;
  } else if (propagation == "Orphan") {
    out.propagation = kube::Propagation::kOrphan;
  } else if (!propagation.empty() && propagation != "Background") {
    error = "propagationPolicy: Unsupported value: \"" + propagation +
            "\": supported values: \"Foreground\", \"Background\", \"Orphan\"";
    return false;
  }
  if (options.contains("orphanDependents") && options["orphanDependents"] == true) {
    out.propagation = kube::Propagation::kOrphan;
  }
  const Json preconditions = options.value("preconditions", Json::object());
  if (preconditions.contains("uid") && preconditions["uid"].is_string()) {
    out.precondition_uid = preconditions["uid"].get<std::string>();
  }
  if (preconditions.contains("resourceVersion") && preconditions["resourceVersion"].is_string()) {
    const std::string rv = preconditions["resourceVersion"].get<std::string>();
    if (rv.empty() || rv.find_first_not_of("0123456789") != std::string::npos) {
      error = "preconditions.resourceVersion: must be a decimal string";
      return false;
    }
    // Kubernetes compares the precondition as a string: one no resourceVersion can equal (more
    // than 19 digits) is a 409 Conflict, not an error. UINT64_MAX is never reached either.
    out.precondition_resource_version =
        rv.size() > 19 ? std::numeric_limits<std::uint64_t>::max() : std::stoull(rv);
  }
  std::int64_t grace_s = -1;
  if (options.contains("gracePeriodSeconds") && !options["gracePeriodSeconds"].is_null()) {
    const Json& grace = options["gracePeriodSeconds"];
    if (!grace.is_number_integer() ||
        (grace.is_number_unsigned() &&
         grace.get<std::uint64_t>() >
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      error = "json: cannot unmarshal " + grace.dump() +
              " into Go struct field DeleteOptions.gracePeriodSeconds of type int64";
      return false;
    }
    grace_s = std::max<std::int64_t>(0, grace.get<std::int64_t>());
  } else if (!grace_query.empty()) {
    if (grace_query.find_first_not_of("0123456789") != std::string::npos ||
        grace_query.size() > 19 ||
        (grace_query.size() == 19 && grace_query > "9223372036854775807")) {
      error = "gracePeriodSeconds: invalid value \"" + grace_query +
              "\": must be a non-negative 64-bit integer";
      return false;
    }
    grace_s = std::stoll(grace_query);
  }
  // Clamped so that now + grace cannot overflow (validation.h kGraceSecondsMax).
  if (grace_s >= 0) out.grace_period_ms = std::min(grace_s, kGraceSecondsMax) * 1000;
  return true;
}

PatchType patch_type(const std::string& content_type) {
  const std::string type = content_type.substr(0, content_type.find(';'));
  if (type == "application/merge-patch+json") return PatchType::kMerge;
  if (type == "application/json-patch+json") return PatchType::kJson;
  if (type == "application/strategic-merge-patch+json") return PatchType::kStrategicMerge;
  if (type == "application/apply-patch+yaml") return PatchType::kApply;
  return PatchType::kUnsupported;
}

bool apply_patch(PatchType type, const Json& patch, Json& current, std::string& error,
                 const std::string& kind) {
  try {
    if (type == PatchType::kJson) {
      if (!patch.is_array()) {
        error = "json patch: must be a list of operations";
        return false;
      }
      return apply_json_patch_bounded(patch, current, error);
    }
    if (!patch.is_object()) {
      error = "patch: must be a JSON object";
      return false;
    }
    if (type == PatchType::kStrategicMerge) return strategic_merge(kind, patch, current, error);
    current.merge_patch(patch);
    return true;
  } catch (const nlohmann::json::exception& e) {
    error = std::string("json patch: ") + e.what();
    return false;
  }
}

}  // namespace wsim::serve
