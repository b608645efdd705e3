// Probes (probe.h): named coverage counters, declared once per name, merged across runs.
#include "sim/core/probe.h"

#include "sim/core/assert.h"

namespace wsim {

ProbeId Probes::declare(std::string name, std::string description) {
  WSIM_ASSERT_MSG(!name.empty(), "a probe needs a dotted name");
  auto it = id_by_name_.find(name);
  if (it != id_by_name_.end()) {
    WSIM_ASSERT_LT(it->second, probes_.size());
    return it->second;
  }
  const auto id = static_cast<ProbeId>(probes_.size());
  id_by_name_.emplace(name, id);
  probes_.push_back(Probe{std::move(name), std::move(description), 0});
  WSIM_ASSERT_EQ(probes_.size(), id_by_name_.size());
  return id;
}

std::vector<Probe> Probes::sorted() const {
  std::vector<Probe> out;
  out.reserve(probes_.size());
  for (const auto& [name, id] : id_by_name_) {
    WSIM_ASSERT_LT(id, probes_.size());
    out.push_back(probes_[id]);
  }
  WSIM_ASSERT_EQ(out.size(), probes_.size());
  return out;
}

void Probes::merge(const Probes& other) {
  // Merging into itself would double every count and grow the vector it walks.
  WSIM_ASSERT(&other != this);
  for (const Probe& probe : other.probes_) {
    const ProbeId id = declare(probe.name, probe.description);
    WSIM_ASSERT_LT(id, probes_.size());
    probes_[id].hits += probe.hits;
  }
  WSIM_ASSERT_GE(probes_.size(), other.probes_.size());  // Every probe of `other` is one of ours.
}

}  // namespace wsim
