// The seam between the generic harness (sim/) and a system under test (model/<system>/).
//
// A System describes itself (versions, invariants, probes, faults, scripted actions — for
// `wsim list`) and creates one SystemRun per run. The run layer owns the phases
// (docs/architecture.md §5):
//   start() → fault phase (random workload + faults + scripted events) → heal() → settle →
//   check_liveness().  check_safety() runs after every event of every phase.
// sim/ never includes model/: systems register themselves in the registry below.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/sim.h"
#include "sim/core/time.h"
#include "sim/kube/kinds.h"
#include "sim/proto/scenario.pb.h"

namespace wsim::kube {
class ApiServer;
}  // namespace wsim::kube

namespace wsim::run {

enum class InvariantKind { kSafety, kLiveness };

struct InvariantInfo {
  std::string id;  // Stable, e.g. "gitlab.L1" — used by corpus expectations.
  InvariantKind kind;
  std::string description;  // One line.
  // Real-world reference: "gitlab#411205 (seed 000)", "docs/systems/gitlab.md §10.2".
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

// A libFuzzer target of the system (docs/architecture.md §7; fuzz/README.md): the fuzzer's input
// bytes are the choice stream of one run of the system's scenario with `fields` set. The build
// makes one fuzz/<name> binary per declared target (`wsim list --fuzz-targets`), so a new target is
// one entry in its system's fuzz_targets(), nothing in fuzz/ or scripts/.
//   canary  a historical buggy version: the target MUST find one of `bugs` within the CI budget;
//   guard   the current versions: any violation not known to the regression corpus is a new bug.
struct FuzzTarget {
  std::string name;  // [A-Za-z0-9_]+, unique over all systems; the binary is fuzz/<name>.
  bool canary = false;
  std::string system;  // Filled in by the registry with the declaring system's name().
  std::vector<std::pair<std::string, std::string>> fields;  // set_field(path, value), in order.
  std::vector<std::string> bugs;  // canary: the invariant ids its planted/historical bug trips.
  std::string reference;          // Where the bug / the versions are described.
  std::vector<std::string> forced_faults;  // Fault points forced on (their fire ratio is drawn).
  // libFuzzer's max_len: a bit more than the choice bytes one run of the target draws.
  std::size_t input_bytes_max = 4096;
  // Part of the CI landing gate (.ci/run: `scripts/fuzz pr --gate`): every canary, and the guards
  // of versions with no open known bug (a bug-rich guard finds its known bugs within seconds and
  // libFuzzer's mutation is not seed-replayable, so it runs in `scripts/fuzz pr`/`batch` only).
  bool in_ci_gate = false;
  // guard: run every execution once with the trace kept and the known bugs labelled (what the
  // relabelling run of execute_run_with_known does), instead of a fast run repeated with the
  // trace whenever it hits an invariant some known bug has. Same verdicts and labels; it pays
  // when more than ~7 % of the target's executions would be repeated (docs/performance.md §9.6,
  // §10: keeping the trace costs that much of a run).
  bool label_in_one_run = false;
};

// The role of one of the system's actors in pictures of a run (the timeline's lanes, left to
// right). Kubernetes' own actors (API server, scheduler, controllers, kubelet) and the harness
// are generic and need no declaration; a system declares the actors only it has.
enum class ActorRole { kUser, kControlPlane, kAgent, kNodeDaemon, kStorage };

// Actors whose name starts with `actor_prefix` (the part of the name before the first '/') have
// `role`. A system declares each of its actor prefixes once.
struct ActorLane {
  std::string actor_prefix;  // "rails", "ws-manager", "ws-daemon", ...
  ActorRole role;
};

// A custom resource kind the system installs (a CRD): its name, group, plural, short names and
// scope as sim/kube's kind registry keeps them (sim/kube/kinds.h). register_system() registers
// them there, so the store, the inventories and `wsim serve` know them.
using CustomKind = kube::KindInfo;

// A setting that makes a rare or impossible schedule common, like FoundationDB's BUGGIFY
// (docs/fidelity.md "Amplifiers"). Its default is always `production`: a run amplifies only when
// its scenario says so, and `wsim hunt` draws amplified values for some of its runs and writes
// them into each run's scenario, so a seed replays exactly (sim/run/amplifiers.h). A finding of an
// amplified run is checked again with the amplifiers at production (sim/run/realism.h) and labelled
// `realistic` or `needs NAME`. Fault odds are amplifiers of possible events too; they are fault
// points (sim/core/fault.h), listed apart, and not declared here.
struct Amplifier {
  // The `--set` key: "<system>.<config field>", e.g. "gitlab.rails_clock_granularity_ms".
  std::string name;
  std::string production;  // The production value (the default), as config_value spells it.
  std::vector<std::string> amplified;  // The values a hunt draws instead (at least one).
  // Why it is an amplifier: how rare, or impossible, its schedules are in production.
  std::string why;
  std::string source;  // Where the production value comes from.
};

// A model parameter with a production value, for `wsim list`: a config field's default (`name` is
// its `--set` key) or a constant of the port (`name` describes it).
struct ParameterInfo {
  std::string name;
  std::string value;   // The default, with its unit ("10s", "1ms", "3").
  std::string source;  // Upstream file@commit, a document, or "[invented]" with why.
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
  // The run's Kubernetes API server, built in System::create and empty until start() (every
  // system's cluster writes nothing before it); null for a system without one. The run layer
  // hands it to RunOptions::observe_api (a read-only recorder) and to nothing else.
  virtual kube::ApiServer* api_server() { return nullptr; }
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

  // The system's libFuzzer targets (their `system` left empty: the registry fills it in).
  virtual std::vector<FuzzTarget> fuzz_targets() const { return {}; }
  // Shorter phases for fuzzing and bug hunts (set_field path, value), so one execution costs
  // milliseconds; applied before a fuzz target's own fields.
  virtual std::vector<std::pair<std::string, std::string>> fast_phase_fields() const { return {}; }
  // The roles of the system's own actors, by name prefix (timeline lanes).
  virtual std::vector<ActorLane> actor_lanes() const { return {}; }
  // The custom resource kinds the system installs (registered in sim/kube/kinds.h).
  virtual std::vector<CustomKind> custom_kinds() const { return {}; }
  // Config fields (not version axes) that switch on a counterfactual code fix rather than take
  // away a bug's precondition (docs/signatures.md "Counterfactual ground truth"): a violation
  // that persists under one of them refutes the bug as a version fix does.
  virtual std::vector<std::string> counterfactual_fix_fields() const { return {}; }
  // The system's amplifiers (see Amplifier), in a stable order; none by default.
  virtual std::vector<Amplifier> amplifiers() const { return {}; }
  // The model parameters with a production value and its source (`wsim list`).
  virtual std::vector<ParameterInfo> parameters() const { return {}; }
  // False when a run needs something outside this binary that is not there: the `external`
  // system (serve/external_system.h) without its COMMAND. Its bundles are then read as recorded
  // (sim/report/recorded_run.h), never re-executed; run, replay, hunt and shrink refuse them
  // with an error naming what is missing (executable_error()).
  virtual bool executable() const { return true; }
  virtual std::string executable_error() const { return ""; }
};

// Registry of systems linked into the binary, in name order. The binaries register every system
// of model/ with register_all_systems() (model/all_systems/all_systems.h).
// REQUIRES (asserted): the system's fuzz target names are valid and unique over all systems.
void register_system(std::unique_ptr<System> system);
const System* find_system(const std::string& name);
std::vector<const System*> systems();

// Every registered system's fuzz targets, `system` filled in, in name order. The reference stays
// valid until the next register_system().
const std::vector<FuzzTarget>& registered_fuzz_targets();

// The role `system` declares for `actor` (matched by the part of its name before the first '/'),
// or nullopt for an actor it does not declare (a Kubernetes or harness actor).
// The report's lanes (sim/run/lanes.h LaneMap) are built from the same declarations.
std::optional<ActorRole> actor_role(const System& system, std::string_view actor);

}  // namespace wsim::run
