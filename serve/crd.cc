// CustomResourceDefinitions (crd.h): checks a CRD body (names, scope, versions, schema,
// subresources; an error names the field), registers or unregisters its kind in the resource
// registry (resources.h, which has the mutex) and writes the CRD's status conditions.
#include "serve/crd.h"

#include <algorithm>
#include <vector>

#include "serve/resources.h"

namespace wsim::serve {
namespace {

using Json = nlohmann::json;

bool fail(std::string& error, const std::string& field, const std::string& what) {
  error = field + ": " + what;
  return false;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::vector<std::string> strings(const Json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const Json& item : list) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

// The Resources `crd` defines (one per served version). False with `error`.
bool resources_of(const Json& crd, std::vector<Resource>& out, std::string& error) {
  const Json spec = crd.value("spec", Json::object());
  if (!spec.is_object()) return fail(error, "spec", "Required value");
  const Json group = spec.value("group", Json());
  if (!group.is_string() || group.get<std::string>().find('.') == std::string::npos) {
    return fail(error, "spec.group", "Invalid value: should be a domain with at least one dot");
  }
  const Json names = spec.value("names", Json::object());
  if (!names.is_object() || !names.value("kind", Json()).is_string() ||
      !names.value("plural", Json()).is_string()) {
    return fail(error, "spec.names", "Required value: kind and plural are required");
  }
  Resource base;
  base.group = group.get<std::string>();
  base.kind = names["kind"].get<std::string>();
  base.plural = names["plural"].get<std::string>();
  base.singular = names.value("singular", lower(base.kind));
  base.short_names = strings(names.value("shortNames", Json()));
  base.categories = strings(names.value("categories", Json()));
  base.custom = true;
  const std::string scope = spec.value("scope", "Namespaced");
  if (scope != "Namespaced" && scope != "Cluster") {
    return fail(error, "spec.scope",
                "Unsupported value: \"" + scope +
                    "\": supported values: \"Cluster\", "
                    "\"Namespaced\"");
  }
  base.namespaced = scope == "Namespaced";
  const std::string expected = base.plural + "." + base.group;
  const Json name = crd.value("metadata", Json::object()).value("name", Json());
  if (name.is_string() && name.get<std::string>() != expected) {
    return fail(error, "metadata.name",
                "Invalid value: \"" + name.get<std::string>() +
                    "\": must be spec.names.plural+\".\"+spec.group");
  }
  const Json versions = spec.value("versions", Json());
  if (!versions.is_array() || versions.empty()) {
    return fail(error, "spec.versions",
                "Invalid value: must have exactly one version marked as storage version");
  }
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const Json& v = versions[i];
    const std::string field = "spec.versions[" + std::to_string(i) + "]";
    if (!v.is_object() || !v.value("name", Json()).is_string()) {
      return fail(error, field + ".name", "Required value");
    }
    if (!v.value("served", true)) continue;
    Resource r = base;
    r.version = v["name"].get<std::string>();
    const Json sub = v.value("subresources", Json::object());
    r.has_status = sub.is_object() && sub.contains("status");
    r.has_scale = false;  // Scale of custom kinds (specReplicasPath): not served.
    r.schema = v.value("schema", Json::object()).value("openAPIV3Schema", Json());
    out.push_back(std::move(r));
  }
  return true;
}

}  // namespace

bool validate_crd(const Json& crd, std::string& error) {
  std::vector<Resource> defined;
  return resources_of(crd, defined, error);
}

bool register_crd(const Json& crd, std::string& error) {
  std::vector<Resource> defined;
  if (!resources_of(crd, defined, error)) return false;
  for (const Resource& r : defined) {
    if (!register_custom(r, error)) return false;
  }
  return true;
}

void unregister_crd(const Json& crd) {
  const Json spec = crd.value("spec", Json::object());
  if (!spec.is_object()) return;
  const Json names = spec.value("names", Json::object());
  if (!spec.value("group", Json()).is_string() || !names.is_object() ||
      !names.value("plural", Json()).is_string()) {
    return;
  }
  unregister_custom(spec["group"].get<std::string>(), names["plural"].get<std::string>());
}

Json crd_status(const Json& crd, const std::string& time) {
  const Json names = crd.value("spec", Json::object()).value("names", Json::object());
  Json accepted = names;
  if (accepted.is_object() && !accepted.contains("singular") && accepted.contains("kind")) {
    accepted["singular"] = lower(accepted["kind"].get<std::string>());
  }
  if (accepted.is_object() && !accepted.contains("listKind") && accepted.contains("kind")) {
    accepted["listKind"] = accepted["kind"].get<std::string>() + "List";
  }
  return {{"acceptedNames", accepted},
          {"conditions",
           {{{"type", "NamesAccepted"},
             {"status", "True"},
             {"reason", "NoConflicts"},
             {"message", "no conflicts found"},
             {"lastTransitionTime", time}},
            {{"type", "Established"},
             {"status", "True"},
             {"reason", "InitialNamesAccepted"},
             {"message", "the initial names have been accepted"},
             {"lastTransitionTime", time}}}},
          {"storedVersions", Json::array()}};
}

}  // namespace wsim::serve
