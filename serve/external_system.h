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

#include "sim/run/system.h"

namespace wsim::serve {

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
  // The process's clocks and timed waits on virtual time through the LD_PRELOAD shim
  // (serve/virtual_clock.h, vclock/) when it was built; WSIM_VCLOCK=0 in wsim's environment
  // turns it off too. False: the wall clock.
  bool virtual_clock = true;
  std::ostream* log = nullptr;  // Where to say what it serves; null = quiet.
};

// Registers the "external" system with `settings` (once per process; later calls replace the
// settings of the registered one). The `wsim` CLI registers it with no command for every verb
// that reads bundles or scenarios; `wsim serve` and `wsim hunt ... -- COMMAND` set the command.
void register_external_system(const ExternalSettings& settings);

}  // namespace wsim::serve
