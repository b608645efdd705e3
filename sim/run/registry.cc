// The registry of systems linked into the binary (system.h). Systems register from main() (the
// `wsim` CLI, tests), never from static initializers, so the set and its order are explicit.
#include <map>

#include "sim/core/assert.h"
#include "sim/run/system.h"

namespace wsim::run {
namespace {

std::map<std::string, std::unique_ptr<System>>& registry() {
  static std::map<std::string, std::unique_ptr<System>> systems;
  return systems;
}

}  // namespace

void register_system(std::unique_ptr<System> system) {
  WSIM_ASSERT(system != nullptr);
  std::string name = system->name();
  WSIM_ASSERT_MSG(!name.empty(), "a system needs a name");
  // Registering the same name twice keeps the first: register_*_system() may be called from
  // several tests in one process.
  registry().emplace(std::move(name), std::move(system));
}

const System* find_system(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::vector<const System*> systems() {
  std::vector<const System*> out;
  out.reserve(registry().size());
  for (const auto& [name, system] : registry()) out.push_back(system.get());
  return out;
}

}  // namespace wsim::run
