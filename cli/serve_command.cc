// `wsim serve` and `wsim replay BUNDLE --serve` (serve_command.h): flag parsing, the live world
// (virtual time following the wall clock, allowed here: cli/ is outside the deterministic world),
// the replayed world, and the external-reconciler modes handed to serve/external_command.h. Stops
// on SIGINT/SIGTERM (a flag set by the handler) or --exit-after.
#include "cli/serve_command.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "cli/subcommand.h"
#include "serve/external_command.h"
#include "serve/replay_world.h"
#include "serve/server.h"
#include "serve/world.h"
#include "sim/core/assert.h"
#include "sim/core/choice.h"
#include "sim/core/sim.h"
#include "sim/kube/cluster.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"
#include "sim/run/shell_quote.h"
#include "sim/run/verdict.h"

namespace wsim::cli {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

std::int64_t wall_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void print_usage_hint(std::ostream& out, int port, bool read_only) {
  const std::string server = "http://" + std::string(serve::kLoopback) + ":" + std::to_string(port);
  out << "serving the Kubernetes API on " << server << (read_only ? " (read-only)" : "") << "\n"
      << "  kubectl --kubeconfig /dev/null --server " << server << " get ns,pods,deploy,cm -A\n"
      << "  kubectl --kubeconfig /dev/null --server " << server << " get workspaces -A -o yaml\n"
      << "stop with Ctrl-C\n";
  out.flush();
}

// Serves `world` until a signal or the deadline; `pump` (may be empty) runs every 50 ms.
int serve_until_stopped(serve::World& world, serve::ServerOptions options,
                        const ServeSettings& settings, const std::function<void()>& pump,
                        std::ostream& out, std::ostream& err) {
  std::optional<std::int64_t> deadline_ms;
  if (!settings.exit_after.empty()) {
    DurationMs ms = 0;
    std::string error;
    if (!run::parse_duration_ms(settings.exit_after, ms, error)) {
      err << "wsim serve: --exit-after: " << error << "\n";
      return run::kExitUsage;
    }
    deadline_ms = wall_now_ms() + ms;
  }
  options.port = settings.port;
  serve::Server server(world, options);
  std::string error;
  const int port = server.bind(error);
  if (port < 0) {
    err << "wsim serve: " << error << "\n";
    return run::kExitUsage;
  }
  if (!settings.port_file.empty()) std::ofstream(settings.port_file) << port << "\n";
  print_usage_hint(out, port, world.read_only());
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::thread http([&server] { server.run(); });
  while (g_stop == 0 && (!deadline_ms || wall_now_ms() < *deadline_ms)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (pump) pump();
  }
  server.stop();
  http.join();
  out << "served " << server.requests_served() << " requests\n";
  return run::kExitPass;
}

int serve_replay(const std::string& bundle, const ServeSettings& settings, std::ostream& out,
                 std::ostream& err) {
  serve::Moment moment;
  if (!settings.at.empty()) {
    DurationMs ms = 0;
    std::string error;
    if (!run::parse_duration_ms(settings.at, ms, error)) {
      err << "wsim replay: --at: " << error << "\n";
      return run::kExitUsage;
    }
    moment.at_ms = ms;
  }
  if (settings.at_event >= 0) moment.at_event = static_cast<std::uint64_t>(settings.at_event);
  serve::ReplayRecording recording;
  std::string error;
  if (!serve::record_replay(bundle, recording, error)) {
    err << "wsim replay: " << error << "\n";
    return run::kExitUsage;
  }
  if (!recording.has_api_server) {
    err << "wsim replay: the run of " << bundle << " has no Kubernetes API to serve\n";
    return run::kExitUsage;
  }
  TimeMs at_ms = 0;
  std::unique_ptr<serve::World> world = serve::world_at(recording, moment, 100000, at_ms);
  out << "replayed " << bundle << ": " << recording.verdict << ", "
      << (recording.fingerprint_matches ? "fingerprint matches the bundle"
                                        : "WARNING: fingerprint differs from the bundle "
                                          "(the code changed since it was written)")
      << "; " << recording.changes.size() << " API changes, " << recording.trace_events
      << " trace events, run ends at " << run::format_duration_ms(recording.end_ms) << "\n"
      << "serving the world at " << run::format_duration_ms(at_ms)
      << (moment.at_event ? " (trace event " + std::to_string(*moment.at_event) + ")" : "")
      << ", resourceVersion " << world->resource_version() << "\n";
  serve::ServerOptions options;
  options.epoch_wall_ms = wall_now_ms() - at_ms;  // AGE = age at the moment served.
  return serve_until_stopped(*world, options, settings, {}, out, err);
}

int serve_live(const ServeSettings& settings, std::ostream& out, std::ostream& err) {
  Sim sim(ChoiceSource::from_seed(settings.seed));
  kube::ClusterOptions cluster_options;
  cluster_options.nodes = settings.nodes;
  cluster_options.api.default_fault_rules = false;  // Interactive: no injected API faults.
  kube::Cluster cluster(sim, cluster_options);
  cluster.start();
  serve::World world(sim, cluster.api(), 10000);
  serve::ServerOptions options;
  const std::int64_t start_wall_ms = wall_now_ms();
  options.epoch_wall_ms = start_wall_ms;
  // Virtual time follows the wall clock: controllers and kubelets act as in a real cluster.
  auto pump = [&world, start_wall_ms] {
    const TimeMs target_ms = wall_now_ms() - start_wall_ms;
    const TimeMs now_ms = world.now_ms();
    if (target_ms > now_ms) world.advance(target_ms - now_ms);
  };
  out << "wsim serve: live cluster, seed " << settings.seed << ", " << settings.nodes
      << " nodes, namespace default\n";
  return serve_until_stopped(world, options, settings, pump, out, err);
}

}  // namespace

void add_vclock_option(CLI::App& app, std::string& value, const std::string& default_help) {
  app.add_option("--vclock", value,
                 "with COMMAND: the process's clocks and timers. next-event (default" +
                     default_help +
                     "): virtual time through the LD_PRELOAD shim, a timer fires at the first "
                     "event at or after its deadline; precise: also an event at every deadline "
                     "(on time, replays less exact); off: the wall clock. Recorded in the "
                     "bundle (docs/external.md)")
      ->check(CLI::IsMember({"off", "next-event", "precise"}));
}

bool set_vclock(const CLI::App& app, const std::string& value, serve::ExternalSettings& settings) {
  const bool known = serve::parse_vclock_mode(value, settings.vclock);
  WSIM_ASSERT_MSG(known, "--vclock " << value);  // The option's check refused anything else.
  return app.count("--vclock") > 0;
}

bool refuses_external_replay(const std::string& path, std::ostream& err) {
  run::LoadedScenario loaded;
  std::string ignored;
  if (!run::load_scenario_file(path + "/scenario.textproto", loaded, ignored) ||
      !loaded.scenario.has_external()) {
    return false;
  }
  const proto::ExternalConfig& config = loaded.scenario.external();
  err << "wsim replay: " << path << " is the run of an external process: the replay re-drives "
      << "it with the bundle's choices and needs that process again, after --:\n  wsim replay "
      << run::shell_quote(path) << " --";
  for (const std::string& arg : config.command()) err << " " << run::shell_quote(arg);
  if (config.command().empty()) err << " COMMAND...";
  err << "\n";
  if (!config.workdir().empty()) err << "(recorded in " << config.workdir() << ")\n";
  err << "wsim explain " << run::shell_quote(path) << " tells the recorded run without it\n";
  return true;
}

ServeCli::ServeCli(CLI::App& app, CLI::App& replay) {
  serve_ = app.add_subcommand("serve",
                              "a live fake Kubernetes cluster behind the Kubernetes REST "
                              "API on 127.0.0.1 (kubectl --server http://127.0.0.1:P)");
  // 1..65535: a port the kernel would truncate (65536 -> 0 = any) is refused, not rebound.
  serve_->add_option("--port", settings_.port, "TCP port on 127.0.0.1 (default: any free port)")
      ->check(CLI::Range(1, 65535));
  serve_->add_option("--nodes", settings_.nodes, "nodes of the cluster (default 2)");
  serve_->add_option("--seed", settings_.seed, "seed of the cluster's choices (default 0)");
  serve_->add_option("--scenario", settings_.scenario,
                     "run this `external { ... }` scenario with COMMAND (after --) as the "
                     "reconciler, in lockstep virtual time");
  serve_->add_option("--replay", settings_.replay_bundle,
                     "replay a bundle of `wsim serve --scenario` with COMMAND (after --)");
  serve_->add_option("--out", settings_.out_dir,
                     "--scenario: write the bundle here, always; --replay: a diverged replay's "
                     "bundle (DIR/diverged)");
  serve_->add_option("--external-log", settings_.external_log,
                     "with --scenario/--replay: COMMAND's output (default: discarded)");
  serve_->add_option("--quiet-ms", settings_.quiet_ms,
                     "lockstep: wall-clock ms without activity before virtual time moves "
                     "(default 30)");
  serve_->add_option("command", settings_.command, "the external process (after --)");
  for (CLI::App* command : {serve_, &replay}) {
    command
        ->add_option("--lockstep", settings_.lockstep,
                     "with COMMAND: ready (default): virtual time moves as soon as the process "
                     "and the front-end are idle (/proc), the quiet period as fallback; quiet: "
                     "the quiet period only")
        ->check(CLI::IsMember({"ready", "quiet"}));
    add_vclock_option(
        *command, settings_.vclock,
        command == serve_ ? "; with --replay: the bundle's" : "; a replay: the bundle's");
  }
  for (CLI::App* command : {serve_, &replay}) {
    command->add_option("--port-file", settings_.port_file, "write the bound port to FILE");
    command->add_option("--exit-after", settings_.exit_after,
                        "stop serving after this wall-clock time, e.g. 30s");
  }
  replay.add_flag("--serve", settings_.replay_serve,
                  "serve the replayed world read-only over the Kubernetes REST API");
  replay.add_option("--at", settings_.at, "with --serve: the virtual time to serve, e.g. 1h29m47s");
  replay.add_option(
      "--at-event", settings_.at_event,
      "with --serve: serve the world right after trace event N (its \"i\" in trace.jsonl)");
  replay.add_option("--port", settings_.port, "with --serve: TCP port (default: any free)")
      ->check(CLI::Range(1, 65535));
  replay.add_option("--external-log", settings_.external_log,
                    "with -- COMMAND: COMMAND's output (default: discarded)");
  replay.add_option("--quiet-ms", settings_.quiet_ms,
                    "with -- COMMAND: the lockstep quiet period (default 30)");
  replay_ = &replay;
  replay.add_option("command", replay_command_,
                    "an external run's bundle: its process again (after --), re-driven by the "
                    "bundle's choices; exit 4 if the trace differs");
}

bool ServeCli::selected() const {
  return *serve_ || settings_.replay_serve || !replay_command_.empty();
}

int ServeCli::run(const std::string& bundle, std::ostream& out, std::ostream& err) {
  if (settings_.replay_serve) return serve_replay(bundle, settings_, out, err);
  if (!*serve_ && !replay_command_.empty()) {
    serve::ExternalCommand command;
    command.replay_bundle = bundle;
    CLI::Option* out_option = replay_->get_option("--out");
    if (out_option->count() > 0) command.out_dir = out_option->as<std::string>();
    command.settings.command = replay_command_;
    command.settings.log_path = settings_.external_log;
    command.settings.quiet_ms = settings_.quiet_ms;
    command.settings.ready_test = settings_.lockstep == "ready";
    command.settings.log = &out;
    command.vclock_given = set_vclock(*replay_, settings_.vclock, command.settings);
    return serve::run_external(command, out, err);
  }
  if (!settings_.scenario.empty() || !settings_.replay_bundle.empty()) {
    serve::ExternalCommand command;
    command.scenario_file = settings_.scenario;
    command.replay_bundle = settings_.replay_bundle;
    if (serve_->count("--seed") > 0) command.seed = settings_.seed;
    command.out_dir = settings_.out_dir;
    command.out_dir_given = serve_->count("--out") > 0;
    command.settings.command = settings_.command;
    command.settings.connect = settings_.command.empty();
    command.settings.log_path = settings_.external_log;
    command.settings.port = settings_.port;
    command.settings.port_file = settings_.port_file;
    command.settings.quiet_ms = settings_.quiet_ms;
    command.settings.ready_test = settings_.lockstep == "ready";
    command.settings.log = &out;
    command.vclock_given = set_vclock(*serve_, settings_.vclock, command.settings);
    return serve::run_external(command, out, err);
  }
  if (!settings_.command.empty()) {
    err << "wsim serve: a COMMAND runs only with --scenario FILE or --replay BUNDLE\n";
    return run::kExitUsage;
  }
  return serve_live(settings_, out, err);
}

Subcommand add_serve_command(CLI::App& app, Subcommand& replay) {
  auto serve = std::make_shared<ServeCli>(app, *replay.app);
  std::function<int()> replay_run = std::move(replay.run);
  CLI::App* replay_app = replay.app;
  replay.run = [serve, replay_run, replay_app] {
    if (!serve->selected()) {
      const std::string path = replay_app->get_option("path")->as<std::string>();
      if (refuses_external_replay(path, std::cerr)) return run::kExitUsage;
      return replay_run();
    }
    return serve->run(replay_app->get_option("path")->as<std::string>(), std::cout, std::cerr);
  };
  return {serve->serve_app(), [serve] { return serve->run("", std::cout, std::cerr); }};
}

}  // namespace wsim::cli
