// The "external" system: a scenario's world with a process outside wsim as the reconciler
// (`wsim serve --scenario FILE [--seed N] -- COMMAND...`, serve/README.md "Lockstep").
//
// The world is sim/kube's Cluster (namespace lifecycle, garbage collector, deployments,
// scheduler, kubelets and their swarm faults) plus users who create and delete Workspace
// objects (workspace.gitpod.io/v1) in the scenario's namespace — or, with a `workload` block,
// start, stop, restart and terminate objects of any kind (external_workload.h). The reconciler
// is the external process: it reaches the world through the REST front-end (server.h) in lockstep
// (world.h invariant 4) — each of its requests is a task of the simulation with a latency, the
// fault points below, and a trace event; its watches deliver changes at virtual instants (possibly
// delayed by a fault) and may expire (410). The invariants are the scenario's, over API state
// (api_invariants.h), plus external.S0: the process keeps running.
//
// Fault points of the external process's requests (declared per run, drawn by the swarm):
//   serve.conflict       409 Conflict for a write, not applied
//   serve.error5xx       500 or 503, not applied
//   serve.lost_response  a write applied, answered 504 Timeout (the client cannot tell)
//   serve.watch.expire   every open watch of the process ends with 410 Expired
//   serve.watch.delay    a change reaches the process's watches 0.2-5 s late (per kind in order)
//
// The HTTP server and the process start at the run's first safety check (never for the
// validation dry run), and stop when the run is destroyed. [invented]
//
// Without a COMMAND (and not waiting for a process started by hand) the system is registered
// but not executable: `wsim explain BUNDLE` and `wsim report BUNDLE` read its bundles as
// recorded, `wsim replay BUNDLE` says it needs `-- COMMAND`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/proto/scenario.pb.h"
#include "sim/run/system.h"

namespace wsim::serve {

// The clock of the external process (`--vclock`, docs/external.md "Timers on virtual time"):
//   kOff        the wall clock (no shim);
//   kNextEvent  the LD_PRELOAD shim (serve/virtual_clock.h, vclock/) when it was built: clocks
//               and timed waits on virtual time, a timer fires at the first event of the
//               simulation at or after its deadline (late, but the same instant in a replay);
//   kPrecise    the shim, and an event of the simulation at every deadline (on time; replays
//               of node are not exact: its GC-driven deadlines differ per run).
enum class VclockMode { kOff, kNextEvent, kPrecise };

// "off", "next-event", "precise".
const char* vclock_mode_name(VclockMode mode);
// The mode named `text` (one of the names above); false for any other text.
bool parse_vclock_mode(const std::string& text, VclockMode& mode);
// The mode recorded in an external scenario (external.vclock); a scenario or bundle written
// before wsim recorded it (an empty field) ran with the shim by default: kNextEvent.
// REQUIRES: the field is empty or a name above (the scenario was normalized).
VclockMode recorded_vclock_mode(const proto::ExternalConfig& config);

struct ExternalSettings {
  std::vector<std::string> command;  // The external process; empty = start none (see connect).
  // Without a command: wait for a process started by hand (`wsim serve --scenario` without
  // COMMAND). Neither a command nor connect: the system is not executable (System::executable):
  // its bundles are read as recorded (`wsim explain`), `wsim replay` asks for `-- COMMAND`.
  bool connect = false;
  std::string log_path;        // Its stdout/stderr; empty = /dev/null.
  int port = 0;                // 0 = any free port.
  std::string port_file;       // Written with the port once bound; empty = none.
  std::int64_t quiet_ms = 30;  // Lockstep quiet period (world.h LockstepOptions).
  // Fast lockstep: end a wait as soon as the process and the front-end are idle (readiness.h),
  // the quiet period as the fallback. False: the quiet period only (`--lockstep quiet`).
  bool ready_test = true;
  // The process's clocks and timed waits (`--vclock`; recorded as external.vclock).
  VclockMode vclock = VclockMode::kNextEvent;
  std::ostream* log = nullptr;  // Where to say what it serves; null = quiet.
};

// Registers the "external" system with `settings` (once per process; later calls replace the
// settings of the registered one). The `wsim` CLI registers it with no command for every verb
// that reads bundles or scenarios; `wsim serve` and `wsim hunt ... -- COMMAND` set the command.
void register_external_system(const ExternalSettings& settings);

}  // namespace wsim::serve
