// Probes: `sometimes` coverage marks for interesting situations ("namespace deleted while the
// workspace runs", "pod rejected after EverReady"). A hunt reports which probes were reached and
// which never were, so a search that never exercises a situation is visible (FoundationDB's
// CODE_PROBE, Antithesis' `sometimes`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/assert.h"

namespace wsim {

using ProbeId = std::uint32_t;

struct Probe {
  std::string name;
  std::string description;
  std::uint64_t hits = 0;
};

class Probes {
 public:
  // Declares a probe; declaring a name twice returns the existing id.
  ProbeId declare(std::string name, std::string description);
  void hit(ProbeId id) {
    WSIM_ASSERT_LT(id, probes_.size());
    ++probes_[id].hits;
  }
  // Marks the probe when `condition` holds; returns `condition`.
  bool sometimes(bool condition, ProbeId id) {
    if (condition) hit(id);
    return condition;
  }
  const Probe& probe(ProbeId id) const {
    WSIM_ASSERT_LT(id, probes_.size());
    return probes_[id];
  }
  std::size_t size() const { return probes_.size(); }
  // All probes in name order.
  std::vector<Probe> sorted() const;
  // Adds another run's hit counts (by name) into this one; used to aggregate a hunt.
  void merge(const Probes& other);

 private:
  std::vector<Probe> probes_;
  std::map<std::string, ProbeId> id_by_name_;
};

}  // namespace wsim
