// The seam between the generic harness (sim/) and a system under test (model/<system>/).
//
// A System describes itself (versions, invariants, probes, faults, scripted actions — for
// `wsim list`) and creates one SystemRun per run. The run layer owns the phases (design.md §5):
//   start() → fault phase (random workload + faults + scripted events) → heal() → settle →
//   check_liveness().  check_safety() runs after every event of every phase.
// sim/ never includes model/: systems register themselves in the registry below.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/sim.h"
#include "sim/core/time.h"
#include "sim/proto/scenario.pb.h"

namespace wsim::run {

enum class InvariantKind { kSafety, kLiveness };

struct InvariantInfo {
  std::string id;  // Stable, e.g. "gitlab.L1" — used by corpus expectations.
  InvariantKind kind;
  std::string description;  // One line.
  // Real-world reference: "gitlab#411205 (seed 000)", "docs/gitlab-model.md §10.2".
  std::string reference;
};

struct Violation {
  std::string invariant_id;
  std::string object;   // The workspace or object concerned.
  std::string message;  // What was seen, with the values that break it.
  // Other objects the violation is about (e.g. the two instances of one workspace id): a later
  // violation that names an object a known bug already broke, here or as `object`, is taken for
  // that bug's consequence (driver.h).
  std::vector<std::string> related;
};

// A named value axis of a system ("agent": A0a..A3), for `wsim list` and hunting.
struct VersionAxis {
  std::string field;                // Field name in the system's config message.
  std::vector<std::string> values;  // Oldest first.
  std::string latest;
  // Empty, or one entry per value: where that value's behaviour comes from, e.g. "@ea4641ad"
  // (upstream commit), "[reconstructed] <design document>" or "[invented]" (docs/fidelity.md).
  std::vector<std::string> provenance = {};
};

struct ActionInfo {
  std::string actor;   // "user", "kubectl", ...
  std::string action;  // "terminate", "delete_namespace", ...
  std::string help;
};

class SystemRun {
 public:
  virtual ~SystemRun() = default;
  // Spawns the system's actors and, unless scenario.scripted_only, its random workload.
  virtual void start() = 0;
  // Performs one scripted event now. Returns false (and sets `error`) for an unknown action or
  // target; the run layer validates scenarios by dry-running this before a run starts.
  virtual bool perform(const proto::ScriptedEvent& event, std::string& error) = 0;
  // Called after every event; returns the first violated safety invariant, if any.
  // Must be cheap (incremental): it runs millions of times.
  virtual std::optional<Violation> check_safety() = 0;
  // End of the fault phase: stop external actions and faults, heal links.
  virtual void heal() = 0;
  // After the settle time: every liveness violation.
  virtual std::vector<Violation> check_liveness() = 0;
  // A short multi-line description of the state of every workspace (for verdicts, explain).
  virtual std::string describe_state() const = 0;
  // Parameters the run drew for itself in create() (workload rates, sizes), as (name, value) in a
  // stable order. The run layer prints them with the fault swarm on the first lines of a run, so
  // a reader sees the whole configuration a seed produced. Optional.
  virtual std::vector<std::pair<std::string, std::string>> swarm_parameters() const { return {}; }
};

// A system's configuration is the field of proto::Scenario's `system` oneof named like the
// system (`gitlab { ... }` for name() == "gitlab"); the run layer finds it by reflection, and the
// command line sets its fields by name (`--agent A0a` sets `agent`).
class System {
 public:
  virtual ~System() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<VersionAxis> axes() const = 0;
  virtual std::vector<InvariantInfo> invariants() const = 0;
  virtual std::vector<ActionInfo> actions() const = 0;
  virtual DurationMs default_fault_phase_ms() const = 0;
  virtual DurationMs default_settle_ms() const = 0;
  // Fills in defaults (latest versions, sizes) of the scenario's config for this system, and
  // checks it; returns false with an error naming the field on invalid values.
  virtual bool normalize(proto::Scenario& scenario, std::string& error) const = 0;
  // Declares the system's fault points and probes on `sim` and builds a run.
  virtual std::unique_ptr<SystemRun> create(Sim& sim, const proto::Scenario& scenario) const = 0;
};

// Registry of systems linked into the binary, in name order.
void register_system(std::unique_ptr<System> system);
const System* find_system(const std::string& name);
std::vector<const System*> systems();

}  // namespace wsim::run
