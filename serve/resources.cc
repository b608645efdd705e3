#include "serve/resources.h"

#include <algorithm>

namespace wsim::serve {

std::string Resource::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

const std::vector<Resource>& resources() {
  static const std::vector<Resource> table = {
      {"Namespace", "", "v1", "namespaces", "namespace", false, true, {"ns"}},
      {"Node", "", "v1", "nodes", "node", false, true, {"no"}},
      {"Pod", "", "v1", "pods", "pod", true, true, {"po"}},
      {"ConfigMap", "", "v1", "configmaps", "configmap", true, false, {"cm"}},
      {"Secret", "", "v1", "secrets", "secret", true, false, {}},
      {"Deployment", "apps", "v1", "deployments", "deployment", true, true, {"deploy"}},
      {"ReplicaSet", "apps", "v1", "replicasets", "replicaset", true, true, {"rs"}},
      {"Workspace", "workspace.gitpod.io", "v1", "workspaces", "workspace", true, true, {"ws"}},
  };
  return table;
}

const Resource* find_by_plural(const std::string& group, const std::string& version,
                               const std::string& plural) {
  for (const Resource& r : resources()) {
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  }
  return nullptr;
}

const Resource* find_by_kind(const std::string& kind) {
  for (const Resource& r : resources()) {
    if (r.kind == kind) return &r;
  }
  return nullptr;
}

std::vector<std::string> api_groups() {
  std::vector<std::string> groups;
  for (const Resource& r : resources()) {
    if (r.group.empty()) continue;
    if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
  }
  return groups;
}

}  // namespace wsim::serve
