// Discovery documents (discovery.h): /version (reported as v1.32.0-wsim), /api, /apis and the
// per-group-version resource lists, built from the resource registry (resources.h) on each request.
#include "serve/discovery.h"

#include <algorithm>
#include <vector>

namespace wsim::serve {
namespace {

Json verbs_of(bool status) {
  if (status) return {"get", "patch", "update"};
  return {"create", "delete", "get", "list", "patch", "update", "watch"};
}

}  // namespace

Json version_document() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0-wsim"},
          {"gitCommit", "wsim"},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "none (wsim serve, C++)"},
          {"compiler", "wsim"},
          {"platform", "linux/amd64"}};
}

Json core_versions_document(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

Json group_list_document() {
  Json groups = Json::array();
  const std::vector<const Resource*> all = resources();
  for (const std::string& group : api_groups()) {
    Json versions = Json::array();
    for (const Resource* r : all) {
      if (r->group != group) continue;
      const Json version = {{"groupVersion", r->api_version()}, {"version", r->version}};
      if (std::find(versions.begin(), versions.end(), version) == versions.end()) {
        versions.push_back(version);
      }
    }
    groups.push_back({{"name", group}, {"versions", versions}, {"preferredVersion", versions[0]}});
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

Json resource_list_document(const std::string& group, const std::string& version) {
  Json list = Json::array();
  for (const Resource* resource : resources()) {
    const Resource& r = *resource;
    if (r.group != group || r.version != version) continue;
    Json entry = {{"name", r.plural},
                  {"singularName", r.singular},
                  {"namespaced", r.namespaced},
                  {"kind", r.kind},
                  {"verbs", verbs_of(false)}};
    if (!r.short_names.empty()) entry["shortNames"] = r.short_names;
    if (!r.categories.empty()) entry["categories"] = r.categories;
    entry["verbs"].push_back("deletecollection");
    list.push_back(entry);
    if (r.has_scale) {
      list.push_back({{"name", r.plural + "/scale"},
                      {"singularName", ""},
                      {"namespaced", r.namespaced},
                      {"group", "autoscaling"},
                      {"version", "v1"},
                      {"kind", "Scale"},
                      {"verbs", verbs_of(true)}});
    }
    if (r.kind == "Namespace") {
      list.push_back({{"name", "namespaces/finalize"},
                      {"singularName", ""},
                      {"namespaced", false},
                      {"kind", "Namespace"},
                      {"verbs", {"update"}}});
    }
    if (r.has_status) {
      list.push_back({{"name", r.plural + "/status"},
                      {"singularName", ""},
                      {"namespaced", r.namespaced},
                      {"kind", r.kind},
                      {"verbs", verbs_of(true)}});
    }
  }
  if (list.empty()) return Json();
  const std::string group_version = group.empty() ? version : group + "/" + version;
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group_version},
          {"resources", list}};
}

}  // namespace wsim::serve
