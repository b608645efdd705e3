// The REST resources of `wsim serve` (resources.h), read from the kind registry of the fake API
// (sim/kube/kinds.h) plus the CRDs created through the front-end.
#include "serve/resources.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>

#include "sim/kube/kinds.h"

namespace wsim::serve {
namespace {

// The front-end's view of a kind the fake API registered (sim/kube/kinds.h).
Resource from_kind(const kube::KindInfo& info) {
  Resource r;
  r.kind = info.kind;
  r.group = info.group;
  r.version = info.version;
  r.plural = info.plural;
  r.singular = r.kind;
  std::transform(r.singular.begin(), r.singular.end(), r.singular.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  r.namespaced = !info.cluster_scoped();
  r.has_status = info.status_subresource;
  r.short_names = info.short_names;
  r.has_scale = info.has_scale;
  r.top_level = info.top_level;
  r.categories = info.categories;
  return r;
}

// The served resources: those of the kind registry (built-in kinds and the kinds the registered
// systems declare, read as the registry grows: systems register before the server starts), then
// the CRDs created through the front-end. Entries are never freed (pointers stay valid); `served`
// lists the live CRD ones in registration order.
struct Table {
  std::mutex mutex;
  std::deque<Resource> registered;
  std::size_t kinds_read = 0;  // Registry entries already looked at.
  std::deque<std::unique_ptr<const Resource>> all;
  std::vector<const Resource*> served;

  // REQUIRES: `mutex` held.
  void read_registry() {
    const std::vector<const kube::KindInfo*> kinds = kube::registered_kinds();
    for (; kinds_read < kinds.size(); ++kinds_read) {
      if (kinds[kinds_read]->served) registered.push_back(from_kind(*kinds[kinds_read]));
    }
  }
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

std::string Resource::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::vector<const Resource*> resources() {
  std::vector<const Resource*> out;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.read_registry();
  for (const Resource& r : t.registered) out.push_back(&r);
  out.insert(out.end(), t.served.begin(), t.served.end());
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
  for (const kube::KindInfo* k : kube::registered_kinds()) {
    if (!k->served) continue;
    // A system's custom kind (its CRD applied again): the kind is served already.
    if (k->custom && k->group == resource.group && k->plural == resource.plural) return true;
    if ((k->group == resource.group && k->plural == resource.plural) || k->kind == resource.kind) {
      error = "spec.names: " + resource.plural + "." + resource.group +
              " would shadow a built-in resource";
      return false;
    }
  }
  Table& c = table();
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
  Table& c = table();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.served.erase(
      std::remove_if(c.served.begin(), c.served.end(),
                     [&](const Resource* r) { return r->group == group && r->plural == plural; }),
      c.served.end());
}

}  // namespace wsim::serve
