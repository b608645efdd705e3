// `wsim serve` and `wsim replay BUNDLE --serve`: the Kubernetes REST front-end (serve/) from the
// command line. Kept out of main.cc: main.cc builds a ServeCli (which adds the `serve`
// subcommand and replay's --serve options) and calls run() when it was selected.
//
//   wsim serve [--port P] [--nodes N] [--seed S] [--exit-after 30s] [--port-file F]
//       a live, writable fake cluster (sim/kube Cluster: namespace lifecycle, garbage collector,
//       deployments, scheduler, kubelets) whose virtual time follows the wall clock;
//   wsim replay BUNDLE --serve [--at 1h29m47s | --at-event N] [--port P]
//       the bundle's run replayed to that moment, served read-only;
//   wsim serve --scenario FILE [--seed N] [--out DIR] [-- COMMAND...]
//   wsim serve --replay BUNDLE [-- COMMAND...]   (also: wsim replay BUNDLE -- COMMAND...)
//       a scenario's world with COMMAND as the reconciler in lockstep (serve/external_command.h).
//
// Both print the kubectl command to use and serve until SIGINT/SIGTERM (or --exit-after).
// Threading: run() owns the server thread and the virtual-time pump.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "serve/external_system.h"

namespace wsim::cli {

struct ServeSettings {
  int port = 0;
  std::string port_file;   // Written with the bound port once listening.
  std::string exit_after;  // Wall-clock duration, e.g. "30s"; empty = until a signal.
  // Live world.
  int nodes = 2;
  std::uint64_t seed = 0;
  // Replay.
  bool replay_serve = false;
  std::string at;
  std::int64_t at_event = -1;
  // An external reconciler in lockstep (serve/external_command.h).
  std::string scenario;
  std::string replay_bundle;
  std::string out_dir = "wsim-out";
  std::vector<std::string> command;
  std::string external_log;
  std::int64_t quiet_ms = 30;
  std::string lockstep = "ready";     // ready: readiness test, quiet period as fallback; quiet.
  std::string vclock = "next-event";  // --vclock; a replay's default is the bundle's.
};

// Adds `--vclock off|next-event|precise` (the external process's clock, docs/external.md "Timers
// on virtual time") to `app`, parsed into `value`; `default_help` ends its help text.
void add_vclock_option(CLI::App& app, std::string& value, const std::string& default_help);

// Sets settings.vclock from `value` (checked by the option). True when `app` was given --vclock.
bool set_vclock(const CLI::App& app, const std::string& value, serve::ExternalSettings& settings);

// `wsim replay BUNDLE` without `-- COMMAND` of an external run's bundle: says on `err` how to
// replay it (the COMMAND recorded) and returns true; false for any other path.
bool refuses_external_replay(const std::string& path, std::ostream& err);

class ServeCli {
 public:
  // Adds `serve` to `app` and --serve, --at, --at-event, --port to `replay`.
  ServeCli(CLI::App& app, CLI::App& replay);
  // True when `wsim serve` or `wsim replay --serve` was given.
  bool selected() const;
  // The `serve` subcommand (owned by the parent CLI::App).
  CLI::App* serve_app() const { return serve_; }
  // Runs the selected form; `bundle` is replay's path argument. Returns an exit code.
  int run(const std::string& bundle, std::ostream& out, std::ostream& err);

 private:
  CLI::App* serve_ = nullptr;
  ServeSettings settings_;
  std::vector<std::string> replay_command_;  // `wsim replay BUNDLE -- COMMAND`.
  CLI::App* replay_ = nullptr;               // Owned by the parent CLI::App.
};

}  // namespace wsim::cli
