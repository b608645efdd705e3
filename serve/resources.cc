#include "serve/resources.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>

namespace wsim::serve {
namespace {

Resource make(std::string kind, std::string group, std::string plural, bool namespaced, bool status,
              std::vector<std::string> short_names) {
  Resource r;
  r.kind = std::move(kind);
  r.group = std::move(group);
  r.version = "v1";
  r.plural = std::move(plural);
  r.singular = r.kind;
  std::transform(r.singular.begin(), r.singular.end(), r.singular.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  r.namespaced = namespaced;
  r.has_status = status;
  r.short_names = std::move(short_names);
  return r;
}

std::vector<Resource> built_in() {
  std::vector<Resource> t = {
      make("Namespace", "", "namespaces", false, true, {"ns"}),
      make("Node", "", "nodes", false, true, {"no"}),
      make("Pod", "", "pods", true, true, {"po"}),
      make("ConfigMap", "", "configmaps", true, false, {"cm"}),
      make("Secret", "", "secrets", true, false, {}),
      make("Service", "", "services", true, true, {"svc"}),
      make("PersistentVolumeClaim", "", "persistentvolumeclaims", true, true, {"pvc"}),
      make("Event", "", "events", true, false, {"ev"}),
      make("Deployment", "apps", "deployments", true, true, {"deploy"}),
      make("ReplicaSet", "apps", "replicasets", true, true, {"rs"}),
      make("Event", "events.k8s.io", "events", true, false, {"ev"}),
      make("Lease", "coordination.k8s.io", "leases", true, false, {}),
      make("NetworkPolicy", "networking.k8s.io", "networkpolicies", true, false, {"netpol"}),
      make("CustomResourceDefinition", "apiextensions.k8s.io", "customresourcedefinitions", false,
           true, {"crd", "crds"}),
      make("Workspace", "workspace.gitpod.io", "workspaces", true, true, {"ws"}),
  };
  for (Resource& r : t) {
    if (r.kind == "Deployment" || r.kind == "ReplicaSet") r.has_scale = true;
    if (r.kind == "Event") r.top_level = true;
    if (r.group == "apps" || r.kind == "Pod" || r.kind == "Service") r.categories = {"all"};
  }
  return t;
}

const std::vector<Resource>& table() {
  static const std::vector<Resource> t = built_in();
  return t;
}

// The custom registry: entries are never freed (pointers stay valid); `served` lists the live
// ones in registration order.
struct Custom {
  std::mutex mutex;
  std::deque<std::unique_ptr<const Resource>> all;
  std::vector<const Resource*> served;
};

Custom& custom() {
  static Custom c;
  return c;
}

}  // namespace

std::string Resource::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::vector<const Resource*> resources() {
  std::vector<const Resource*> out;
  for (const Resource& r : table()) out.push_back(&r);
  Custom& c = custom();
  std::lock_guard<std::mutex> lock(c.mutex);
  out.insert(out.end(), c.served.begin(), c.served.end());
  return out;
}

const Resource* find_by_plural(const std::string& group, const std::string& version,
                               const std::string& plural) {
  for (const Resource* r : resources()) {
    if (r->group == group && r->version == version && r->plural == plural) return r;
  }
  return nullptr;
}

const Resource* find_by_kind(const std::string& kind) {
  for (const Resource* r : resources()) {
    if (r->kind == kind) return r;
  }
  return nullptr;
}

const Resource* find_by_api_version(const std::string& api_version, const std::string& kind) {
  for (const Resource* r : resources()) {
    if (r->kind == kind && r->api_version() == api_version) return r;
  }
  return nullptr;
}

std::vector<std::string> api_groups() {
  std::vector<std::string> groups;
  for (const Resource* r : resources()) {
    if (r->group.empty()) continue;
    if (std::find(groups.begin(), groups.end(), r->group) == groups.end()) {
      groups.push_back(r->group);
    }
  }
  return groups;
}

bool register_custom(const Resource& resource, std::string& error) {
  for (const Resource& r : table()) {
    // Gitpod's Workspace CRD applied again: the kind is served already.
    if (r.kind == "Workspace" && r.group == resource.group && r.plural == resource.plural) {
      return true;
    }
    if ((r.group == resource.group && r.plural == resource.plural) || r.kind == resource.kind) {
      error = "spec.names: " + resource.plural + "." + resource.group +
              " would shadow a built-in resource";
      return false;
    }
  }
  Custom& c = custom();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.all.push_back(std::make_unique<const Resource>(resource));
  auto same = [&](const Resource* r) {
    return r->group == resource.group && r->version == resource.version &&
           r->plural == resource.plural;
  };
  c.served.erase(std::remove_if(c.served.begin(), c.served.end(), same), c.served.end());
  c.served.push_back(c.all.back().get());
  return true;
}

void unregister_custom(const std::string& group, const std::string& plural) {
  Custom& c = custom();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.served.erase(
      std::remove_if(c.served.begin(), c.served.end(),
                     [&](const Resource* r) { return r->group == group && r->plural == plural; }),
      c.served.end());
}

}  // namespace wsim::serve
