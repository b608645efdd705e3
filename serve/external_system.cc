// The "external" system (external_system.h, serve/README.md "Lockstep"): ExternalRun builds the
// Cluster and its users or workload; attach() starts the front-end (its HTTP server on a thread of
// its own) and the process, after which every request is a simulation task (world.h invariant 4).
// Fault points and invariants are listed in external_system.h.
#include "serve/external_system.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <ostream>
#include <set>
#include <thread>

#include "serve/api_invariants.h"
#include "serve/external_process.h"
#include "serve/external_workload.h"
#include "serve/readiness.h"
#include "serve/server.h"
#include "serve/virtual_clock.h"
#include "serve/world.h"
#include "sim/core/assert.h"
#include "sim/core/task.h"
#include "sim/kube/cluster.h"

namespace wsim::serve {
namespace {

constexpr const char* kSystem = "external";
constexpr std::size_t kHistoryEvents = 10000;
constexpr int kNumberedInvariants = 8;  // external.S1..S8, L1..L8 listed for expectations.

ExternalSettings& settings() {
  static ExternalSettings value;
  return value;
}

struct ExternalFaults {
  FaultId conflict = 0;
  FaultId error5xx = 0;
  FaultId lost_response = 0;
  FaultId watch_expire = 0;
  FaultId watch_delay = 0;
};

class ExternalRun : public run::SystemRun {
 public:
  ExternalRun(Sim& sim, const proto::Scenario& scenario, std::vector<ApiInvariant> invariants);
  ~ExternalRun() override;

  void start() override;
  bool perform(const proto::ScriptedEvent& event, std::string& error) override;
  std::optional<run::Violation> check_safety() override;
  void heal() override { healed_ = true; }
  std::vector<run::Violation> check_liveness() override;
  std::string describe_state() const override;
  kube::ApiServer* api_server() override { return &cluster_->api(); }
  std::vector<std::pair<std::string, std::string>> swarm_parameters() const override;

 private:
  void attach();
  void detach();
  void sync();
  void start_virtual_clock();
  void arm_clock_alarm();
  // No byte waits unread on the front-end's connections, at either end (a readiness look).
  bool queues_empty();
  Task<void> serve_request(RequestTicket* ticket);
  int decide(RequestTicket& ticket, ChoiceStream& stream, std::string& fault);
  Task<void> user(int index);
  Task<void> wake(DurationMs delay_ms);
  void arm_deadline();
  kube::Object workspace(const std::string& name) const;

  Sim& sim_;
  proto::ExternalConfig config_;
  std::vector<ApiInvariant> invariants_;
  std::unique_ptr<kube::Cluster> cluster_;
  std::unique_ptr<ApiMonitor> monitor_;
  std::unique_ptr<ExternalWorkload> workload_;  // Null: the default Workspace users (user()).
  TimeMs armed_ms_ = -1;                        // When the deadline wake-up is due.
  ExternalFaults faults_;
  bool scripted_only_ = false;
  bool healed_ = false;
  bool attached_ = false;
  bool process_failed_ = false;
  std::string process_exit_;
  int port_ = 0;
  std::unique_ptr<World> world_;
  std::unique_ptr<Server> server_;
  std::thread http_;
  ExternalProcess process_;
  // The process's clocks and timed waits (serve/virtual_clock.h); inactive without the shim.
  VirtualClock clock_;
  bool clock_alarms_on_ = false;   // --vclock precise (arm_clock_alarm).
  std::set<TimeMs> clock_alarms_;  // Virtual instants with an event scheduled for a deadline.
};

ExternalRun::ExternalRun(Sim& sim, const proto::Scenario& scenario,
                         std::vector<ApiInvariant> invariants)
    : sim_(sim),
      config_(scenario.external()),
      invariants_(std::move(invariants)),
      scripted_only_(scenario.scripted_only()) {
  kube::ClusterOptions options;
  options.nodes = static_cast<int>(config_.nodes());
  if (config_.namespace_() != "default") options.namespaces.push_back(config_.namespace_());
  cluster_ = std::make_unique<kube::Cluster>(sim_, options);
  monitor_ = std::make_unique<ApiMonitor>(invariants_, cluster_->api());
  if (config_.has_workload()) {
    std::string error;
    WSIM_ASSERT_MSG(ExternalWorkload::serve_kind(config_.workload(), error), error);
    workload_ = std::make_unique<ExternalWorkload>(sim_, *cluster_, config_, healed_);
  }
  Faults& faults = sim_.faults();
  faults_.conflict = faults.declare("serve.conflict",
                                    "the external process's write is answered 409 Conflict, "
                                    "not applied",
                                    Ratio{1, 2}, Ratio{1, 10});
  faults_.error5xx = faults.declare(
      "serve.error5xx", "the external process's request is answered 500/503, not applied",
      Ratio{1, 2}, Ratio{1, 20});
  faults_.lost_response = faults.declare(
      "serve.lost_response", "the external process's write is applied and answered 504 Timeout",
      Ratio{1, 2}, Ratio{1, 10});
  faults_.watch_expire = faults.declare("serve.watch.expire",
                                        "every watch of the external process ends with 410 Expired",
                                        Ratio{1, 3}, Ratio{1, 30});
  faults_.watch_delay = faults.declare(
      "serve.watch.delay", "a change reaches the external process's watches 0.2-5 s late",
      Ratio{1, 2}, Ratio{1, 4});
}

ExternalRun::~ExternalRun() { detach(); }

kube::Object ExternalRun::workspace(const std::string& name) const {
  kube::Object object;
  object.kind = "Workspace";
  object.meta.namespace_ = config_.namespace_();
  object.meta.name = name;
  object.spec["image"] = "ide:latest";
  return object;
}

void ExternalRun::start() {
  cluster_->start();
  if (scripted_only_) return;
  if (workload_ != nullptr) {
    workload_->start();
    return;
  }
  for (std::uint32_t i = 0; i < config_.workspaces(); ++i) {
    sim_.loop().spawn("user/ws-" + std::to_string(i), user(static_cast<int>(i)));
  }
}

// A user: creates their workspace, later deletes it, and so on, until heal.
Task<void> ExternalRun::user(int index) {
  const std::string name = "ws-" + std::to_string(index);
  kube::Client client = cluster_->client("user/" + name);
  ChoiceStream stream = sim_.stream("external.user-" + std::to_string(index));
  while (!healed_) {
    co_await sim_.loop().sleep(stream.range(config_.think_min_ms(), config_.think_max_ms()));
    if (healed_) break;
    const kube::Object* current =
        cluster_->api().peek(kube::ObjectRef{"Workspace", config_.namespace_(), name});
    if (current == nullptr) {
      co_await client.create(workspace(name));
    } else if (!current->meta.deletion_ms && stream.below(2) == 1) {
      co_await client.remove(kube::ObjectRef{"Workspace", config_.namespace_(), name});
    }
  }
}

bool ExternalRun::perform(const proto::ScriptedEvent& event, std::string& error) {
  if (workload_ != nullptr && event.actor() == "user") {
    return workload_->perform(event.action(), event.target(), error);
  }
  const kube::ObjectRef ws{"Workspace", config_.namespace_(), event.target()};
  if (event.actor() == "user" && event.action() == "create_workspace") {
    cluster_->create(workspace(event.target()));
    return true;
  }
  if (event.actor() == "user" && event.action() == "delete_workspace") {
    cluster_->remove(ws);
    return true;
  }
  if (event.actor() == "kubectl" && event.action() == "delete_namespace") {
    cluster_->remove(kube::ObjectRef{"Namespace", "", event.target()});
    return true;
  }
  error = "unknown action '" + event.actor() + " " + event.action() +
          "' (external: user create_workspace|delete_workspace NAME, kubectl delete_namespace "
          "NAME)";
  return false;
}

bool ExternalRun::queues_empty() {
  switch (server_->unread_bytes()) {
    case Unread::kNone:
      return true;
    case Unread::kSome:
      return false;
    case Unread::kUnknown:
      break;
  }
  return loopback_queues_empty(port_);
}

// The run's first safety check: the front-end and the process start; the world goes lockstep.
void ExternalRun::attach() {
  attached_ = true;
  world_ = std::make_unique<World>(sim_, cluster_->api(), kHistoryEvents);
  LockstepOptions options;
  options.quiet_ms = settings().quiet_ms;
  options.ready_watches = config_.ready_watches();
  ChoiceStream delay_stream = sim_.stream("serve.watch");
  options.delivery_delay = [this, delay_stream](const kube::Object&) mutable -> DurationMs {
    if (!sim_.faults().fires(faults_.watch_delay, delay_stream)) return 0;
    return delay_stream.range(200, 5000);
  };
  options.stop_waiting = [this] {
    return !settings().command.empty() && !process_.running(process_exit_);
  };
  // One walk of the process tree per look: busy, asleep (its digest) and, with the readiness
  // test, its mark. The front-end counts as the process: a request read but not yet parked
  // for the simulation (a pool thread waiting for a CPU under load), or bytes unread on the
  // port's connections, is work in progress, as a thread of the process on a CPU is — without
  // it, the quiet period and sync()'s skip took a process waiting for its answer, with its
  // request still in the HTTP layer, for a quiet one (the kubectl and node examples'
  // external.L3 at load 14-16). The connections are asked of the kernel one by one
  // (socket_queues.h, ~20 us each); /proc/net/tcp (4.5-7 ms a read: it walks the host's socket
  // table) only when the kernel cannot answer that way.
  options.look = [this](std::size_t parked, bool mark_wanted) {
    ProcessLook out;
    if (settings().command.empty()) return out;
    const bool ready_test = mark_wanted && settings().ready_test;
    std::uint64_t rounds = 0;
    const bool http_idle = server_->http_idle(parked, rounds);
    const TreeLook tree = process_.look(ready_test ? settings().quiet_ms : 0);
    out.busy = tree.busy || !http_idle || !queues_empty();
    if (tree.asleep) out.asleep = tree.digest;
    if (ready_test && !out.busy && tree.asleep && !tree.timer_due) {
      out.ready = tree.digest * 1000003u + rounds;
    }
    return out;
  };
  options.timer_pending = [this] { return clock_.next_deadline_ms().has_value(); };
  ServerOptions server_options;
  server_options.port = settings().port;
  server_options.epoch_wall_ms = 0;
  server_ = std::make_unique<Server>(*world_, server_options);
  std::string error;
  const int port = server_->bind(error);
  WSIM_ASSERT_MSG(port > 0, "wsim serve: " + error);
  port_ = port;
  world_->enter_lockstep(std::move(options));
  http_ = std::thread([this] { server_->run(); });
  const std::string url = "http://" + std::string(kLoopback) + ":" + std::to_string(port);
  if (!settings().port_file.empty()) std::ofstream(settings().port_file) << port << "\n";
  if (settings().log != nullptr) *settings().log << "external: serving " << url << "\n";
  start_virtual_clock();
  if (!settings().command.empty() &&
      !process_.start(settings().command, url, settings().log_path, error)) {
    process_failed_ = true;
    process_exit_ = error;
  }
}

void ExternalRun::detach() {
  if (!attached_) return;
  attached_ = false;
  process_.stop();
  world_->leave_lockstep();
  server_->stop();
  if (http_.joinable()) http_.join();
  if (settings().log != nullptr) {
    const LockstepStats& stats = world_->stats();
    *settings().log << "external: " << stats.requests << " requests, " << stats.watches_opened
                    << " watches, " << stats.syncs << " lockstep waits (" << stats.wait_ms
                    << " ms of wall time, " << stats.ready << " ended by the readiness test, "
                    << stats.timeouts << " hit the bound, " << stats.rechecks << " of "
                    << stats.looks << " skips refused: the process had run; " << stats.start_wait_ms
                    << " ms until the process was ready)\n";
    *settings().log << "external: lockstep waits after the start: " << stats.settle_us / 1000
                    << " ms until settled and idle, " << stats.idle_us / 1000
                    << " ms from then to their end, " << stats.polls << " looks\n";
    if (clock_.active()) {
      *settings().log << "external: virtual clock: " << clock_.waits()
                      << " timed waits of the process on virtual time, " << clock_.wakes()
                      << " woken at their deadline\n";
    }
  }
  server_.reset();
  world_.reset();
}

// The process's clocks on virtual time (issue #33 item 3) when the shim is there and not
// turned off (--vclock off: the wall clock, as before the shim). --vclock precise: also an
// event of the simulation at every deadline (arm_clock_alarm). A flag, not the environment:
// the mode is recorded in the bundle and a replay uses it (external.vclock).
void ExternalRun::start_virtual_clock() {
  if (settings().command.empty() || settings().vclock == VclockMode::kOff) return;
  clock_alarms_on_ = settings().vclock == VclockMode::kPrecise;
  const std::string shim = vclock_shim_path();
  std::string error;
  if (shim.empty() || !clock_.create(error)) {
    if (settings().log != nullptr) {
      *settings().log << "external: the process runs on the wall clock ("
                      << (shim.empty() ? "no libwsim_vclock.so" : error) << ")\n";
    }
    return;
  }
  process_.use_virtual_clock(clock_.fd(), shim);
}

// --vclock precise only: an event at the earliest deadline of the process's timed waits, so
// that virtual time stops there and the sync after it wakes the thread (one event per instant).
// Not the default: node's own threads wait for deadlines that depend on its garbage collector
// (V8's delayed tasks), and an event for one of those in one run and not in its replay changes
// the schedule hash, so the replay is not exact although the process made the same requests.
// By default a thread whose deadline came is woken at the first event of the simulation at or
// after it: its timer fires late in virtual time, but at the same instant in every replay.
void ExternalRun::arm_clock_alarm() {
  if (!clock_alarms_on_) return;
  const std::optional<TimeMs> due = clock_.next_deadline_ms();
  if (!due) return;
  const TimeMs now = sim_.now_ms();
  clock_alarms_.erase(clock_alarms_.begin(), clock_alarms_.upper_bound(now));
  if (*due <= now) return;  // Woken at the next sync.
  if (!clock_alarms_.insert(*due).second) return;
  sim_.loop().schedule(*due - now, [] {});
}

void ExternalRun::sync() {
  if (clock_.active()) {
    clock_.publish(sim_.now_ms());
    // A thread whose deadline came runs now: a wait for it alone (answers and changes of this
    // instant held back, World::hold_deliveries), then the usual one.
    if (clock_.wake_due() > 0) {
      world_->hold_deliveries(true);
      world_->mark_dirty();
      for (RequestTicket* ticket : world_->sync()) {
        sim_.loop().spawn(ticket->actor, serve_request(ticket));
      }
      world_->hold_deliveries(false);
      world_->mark_dirty();
    }
  }
  for (RequestTicket* ticket : world_->sync()) {
    sim_.loop().spawn(ticket->actor, serve_request(ticket));
  }
  if (clock_.active()) arm_clock_alarm();
}

// The fault a request meets, if any: answers it (fail) or serves it (execute). Returns the code.
int ExternalRun::decide(RequestTicket& ticket, ChoiceStream& stream, std::string& fault) {
  Faults& faults = sim_.faults();
  const bool write = ticket.method != "GET";
  if (faults.fires(faults_.watch_expire, stream)) {
    world_->expire_watches();
    sim_.record(ticket.actor, "watch-expired", "*", "410 Expired", "serve.watch.expire");
  }
  if (write && faults.fires(faults_.conflict, stream)) {
    fault = "serve.conflict";
    return ticket.fail(409);
  }
  if (faults.fires(faults_.error5xx, stream)) {
    fault = "serve.error5xx";
    return ticket.fail(stream.below(2) == 0 ? 500 : 503);
  }
  const int code = ticket.execute();
  if (write && code < 300 && faults.fires(faults_.lost_response, stream)) {
    fault = "serve.lost_response (applied: " + ticket.result() + ")";
    return ticket.fail(504);
  }
  return code;
}

Task<void> ExternalRun::serve_request(RequestTicket* ticket) {
  ChoiceStream stream = sim_.stream("serve.requests");
  co_await sim_.loop().sleep(stream.range(1, 20));
  std::string fault;
  decide(*ticket, stream, fault);
  sim_.record(ticket->actor, ticket->verb, ticket->object, ticket->result(), fault);
  co_await sim_.loop().sleep(stream.range(1, 20));
  world_->complete(*ticket);
}

std::optional<run::Violation> ExternalRun::check_safety() {
  if (!attached_) attach();
  if (!process_failed_ && !settings().command.empty() && !process_.running(process_exit_)) {
    process_failed_ = true;
  }
  if (process_failed_) {
    return run::Violation{
        "external.S0", "external process", "the external process " + process_exit_, {}};
  }
  sync();
  std::optional<run::Violation> found = monitor_->check_safety(sim_.loop().now_ms());
  if (!found) arm_deadline();
  return found;
}

// An "eventually within" deadline is missed at an instant where nothing else may happen: a
// wake-up then makes the check see it (api_invariants.h ApiMonitor).
void ExternalRun::arm_deadline() {
  const std::optional<TimeMs> due = monitor_->next_deadline_ms();
  const TimeMs now_ms = sim_.loop().now_ms();
  if (!due || (armed_ms_ > now_ms && armed_ms_ <= *due)) return;
  WSIM_ASSERT_GT(*due, now_ms);
  armed_ms_ = *due;
  sim_.loop().spawn("external/deadline", wake(*due - now_ms));
}

Task<void> ExternalRun::wake(DurationMs delay_ms) { co_await sim_.loop().sleep(delay_ms); }

std::vector<run::Violation> ExternalRun::check_liveness() { return monitor_->check_liveness(); }

std::string ExternalRun::describe_state() const {
  std::string out;
  std::vector<std::string> kinds = {"Workspace", "Namespace", "Pod"};
  if (workload_ != nullptr && config_.workload().kind() != "Workspace") {
    kinds.insert(kinds.begin(), config_.workload().kind());
  }
  for (const std::string& kind : kinds) {
    for (const kube::Object* object : cluster_->api().peek_list(kind, "")) {
      if (kind == "Namespace" && object->meta.labels.empty()) continue;
      out += kube::ObjectRef::of(*object).to_string() +
             (object->meta.deletion_ms ? " (deleting)" : "") + "\n";
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ExternalRun::swarm_parameters() const {
  if (workload_ != nullptr) {
    return {{"external.controller", config_.controller()},
            {"external.workload",
             config_.workload().kind() + " x" + std::to_string(config_.workload().objects())}};
  }
  return {{"external.controller", config_.controller()},
          {"external.workspaces", std::to_string(config_.workspaces())}};
}

class ExternalSystem : public run::System {
 public:
  std::string name() const override { return kSystem; }
  std::string description() const override {
    return "external: a process outside wsim as the reconciler, over the Kubernetes REST API "
           "in lockstep virtual time (wsim serve --scenario; serve/README.md)";
  }
  std::vector<run::VersionAxis> axes() const override { return {}; }
  std::vector<run::InvariantInfo> invariants() const override;
  std::vector<run::ActionInfo> actions() const override {
    return {{"user", "create_workspace", "create Workspace <target> in the scenario's namespace"},
            {"user", "delete_workspace", "delete Workspace <target>"},
            {"user", "start", "workload: create <target> (or start it when stopped)"},
            {"user", "stop", "workload: set <target>'s stop field to the stop value"},
            {"user", "restart", "workload: stop and start <target> (or delete and create)"},
            {"user", "terminate", "workload: delete <target>"},
            {"kubectl", "delete_namespace", "delete namespace <target>"}};
  }
  DurationMs default_fault_phase_ms() const override { return 2 * kMinuteMs; }
  DurationMs default_settle_ms() const override { return 2 * kMinuteMs; }
  bool normalize(proto::Scenario& scenario, std::string& error) const override;
  bool executable() const override { return !settings().command.empty() || settings().connect; }
  std::string executable_error() const override {
    return "the external system's runs need their process: give it after `--`, e.g. wsim replay "
           "BUNDLE -- COMMAND, wsim hunt --scenario FILE -- COMMAND (wsim explain shows the "
           "COMMAND recorded)";
  }
  std::unique_ptr<run::SystemRun> create(Sim& sim, const proto::Scenario& scenario) const override {
    std::vector<ApiInvariant> invariants;
    std::string error;
    const std::vector<std::string> texts(scenario.external().invariants().begin(),
                                         scenario.external().invariants().end());
    WSIM_ASSERT_MSG(parse_api_invariants(texts, invariants, error), error);
    return std::make_unique<ExternalRun>(sim, scenario, std::move(invariants));
  }
};

std::vector<run::InvariantInfo> ExternalSystem::invariants() const {
  std::vector<run::InvariantInfo> out = {{"external.S0", run::InvariantKind::kSafety,
                                          "the external process keeps running",
                                          "serve/external_system.h"}};
  for (int i = 1; i <= kNumberedInvariants; ++i) {
    out.push_back({"external.S" + std::to_string(i), run::InvariantKind::kSafety,
                   "the scenario's " + std::to_string(i) +
                       ". safety rule ('always:', 'eventually within', 'history:')",
                   "serve/api_invariants.h"});
  }
  for (int i = 1; i <= kNumberedInvariants; ++i) {
    out.push_back({"external.L" + std::to_string(i), run::InvariantKind::kLiveness,
                   "the scenario's " + std::to_string(i) + ". 'eventually:' invariant",
                   "serve/api_invariants.h"});
  }
  return out;
}

bool ExternalSystem::normalize(proto::Scenario& scenario, std::string& error) const {
  proto::ExternalConfig* config = scenario.mutable_external();
  if (config->workspaces() == 0) config->set_workspaces(2);
  if (config->namespace_().empty()) config->set_namespace_("default");
  if (config->nodes() == 0) config->set_nodes(1);
  if (config->think_min_ms() == 0) config->set_think_min_ms(2 * kSecondMs);
  if (config->think_max_ms() == 0) config->set_think_max_ms(20 * kSecondMs);
  if (config->ready_watches() == 0) config->set_ready_watches(1);
  if (config->workspaces() > 16 || config->nodes() > 8) {
    error = "workspaces (1..16) or nodes (1..8) out of range";
    return false;
  }
  if (config->think_min_ms() < 1 || config->think_max_ms() < config->think_min_ms()) {
    error = "think_min_ms must be at least 1 and at most think_max_ms";
    return false;
  }
  if (config->has_workload() && !ExternalWorkload::normalize_workload(*config, error)) return false;
  VclockMode mode = VclockMode::kNextEvent;
  if (!config->vclock().empty() && !parse_vclock_mode(config->vclock(), mode)) {
    error = "vclock '" + config->vclock() + "': expected off, next-event or precise";
    return false;
  }
  std::vector<ApiInvariant> parsed;
  const std::vector<std::string> texts(config->invariants().begin(), config->invariants().end());
  if (!parse_api_invariants(texts, parsed, error)) return false;
  int safety = 0;
  for (const ApiInvariant& inv : parsed) safety += inv.always ? 1 : 0;
  if (safety > kNumberedInvariants ||
      static_cast<int>(parsed.size()) - safety > kNumberedInvariants) {
    error = "at most 8 'always:' and 8 'eventually:' invariants";
    return false;
  }
  return true;
}

}  // namespace

const char* vclock_mode_name(VclockMode mode) {
  switch (mode) {
    case VclockMode::kOff:
      return "off";
    case VclockMode::kNextEvent:
      return "next-event";
    case VclockMode::kPrecise:
      return "precise";
  }
  WSIM_ASSERT_MSG(false, "unknown VclockMode " << static_cast<int>(mode));
  return "";
}

bool parse_vclock_mode(const std::string& text, VclockMode& mode) {
  for (const VclockMode candidate :
       {VclockMode::kOff, VclockMode::kNextEvent, VclockMode::kPrecise}) {
    if (text == vclock_mode_name(candidate)) {
      mode = candidate;
      return true;
    }
  }
  return false;
}

VclockMode recorded_vclock_mode(const proto::ExternalConfig& config) {
  VclockMode mode = VclockMode::kNextEvent;
  if (config.vclock().empty()) return mode;
  const bool known = parse_vclock_mode(config.vclock(), mode);
  WSIM_ASSERT_MSG(known, "external.vclock '" << config.vclock() << "' (not normalized)");
  return mode;
}

void register_external_system(const ExternalSettings& value) {
  settings() = value;
  if (run::find_system(kSystem) == nullptr) {
    run::register_system(std::make_unique<ExternalSystem>());
  }
}

}  // namespace wsim::serve
