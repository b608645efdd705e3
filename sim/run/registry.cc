// The registry of systems linked into the binary (system.h). Systems register from main() (the
// `wsim` CLI, fuzz targets, tests) through register_all_systems(), never from static
// initializers, so the set and its order are explicit.
#include <algorithm>
#include <map>
#include <set>

#include "sim/core/assert.h"
#include "sim/run/system.h"

namespace wsim::run {
namespace {

std::map<std::string, std::unique_ptr<System>>& registry() {
  static std::map<std::string, std::unique_ptr<System>> systems;
  return systems;
}

std::vector<FuzzTarget>& fuzz_target_cache() {
  static std::vector<FuzzTarget> targets;
  return targets;
}

bool valid_target_name(const std::string& name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Rebuilds the fuzz target list from every registered system; asserts the names (they become
// file names of fuzz/ binaries and must not collide between systems).
void rebuild_fuzz_targets() {
  std::vector<FuzzTarget>& targets = fuzz_target_cache();
  targets.clear();
  std::set<std::string> names;
  for (const auto& [system_name, system] : registry()) {
    for (FuzzTarget target : system->fuzz_targets()) {
      WSIM_ASSERT_MSG(valid_target_name(target.name), "fuzz target names match [A-Za-z0-9_]+");
      WSIM_ASSERT_MSG(names.insert(target.name).second, "fuzz target declared twice");
      WSIM_ASSERT_MSG(target.system.empty() || target.system == system_name,
                      "a system declares only its own fuzz targets");
      if (target.canary) WSIM_ASSERT_MSG(!target.bugs.empty(), "a canary names its bug");
      WSIM_ASSERT_GT(target.input_bytes_max, 0u);
      target.system = system_name;
      targets.push_back(std::move(target));
    }
  }
  std::sort(targets.begin(), targets.end(),
            [](const FuzzTarget& a, const FuzzTarget& b) { return a.name < b.name; });
  WSIM_ASSERT_EQ(targets.size(), names.size());
}

std::string_view actor_prefix(std::string_view actor) {
  const std::size_t slash = actor.find('/');
  return slash == std::string_view::npos ? actor : actor.substr(0, slash);
}

}  // namespace

void register_system(std::unique_ptr<System> system) {
  WSIM_ASSERT(system != nullptr);
  std::string name = system->name();
  WSIM_ASSERT_MSG(!name.empty(), "a system needs a name");
  // Registering the same name twice keeps the first: register_*_system() may be called from
  // several tests in one process.
  auto [it, inserted] = registry().emplace(std::move(name), std::move(system));
  if (!inserted) return;
  // The system's kinds join the fake API's kind registry before any run (sim/kube/kinds.h).
  for (CustomKind kind : it->second->custom_kinds()) kube::register_custom_kind(std::move(kind));
  rebuild_fuzz_targets();
}

const System* find_system(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::vector<const System*> systems() {
  std::vector<const System*> out;
  out.reserve(registry().size());
  for (const auto& [name, system] : registry()) out.push_back(system.get());
  WSIM_ASSERT_EQ(out.size(), registry().size());
  return out;
}

const std::vector<FuzzTarget>& registered_fuzz_targets() { return fuzz_target_cache(); }

std::optional<ActorRole> actor_role(const System& system, std::string_view actor) {
  const std::string_view prefix = actor_prefix(actor);
  for (const ActorLane& lane : system.actor_lanes()) {
    WSIM_ASSERT_MSG(!lane.actor_prefix.empty(), "an actor lane names its actor prefix");
    if (lane.actor_prefix == prefix) return lane.role;
  }
  return std::nullopt;
}

}  // namespace wsim::run
