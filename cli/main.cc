// wsim: the command line of the simulation harness (design.md §6).
//
//   wsim run     --scenario FILE | --system S [version flags] [--seed N] [--out DIR] ...
//   wsim replay  BUNDLE_DIR | SCENARIO_FILE
//   wsim hunt    [--system S] [version flags] [--time 60s | --runs N] [--jobs N] [--out DIR]
//   wsim list
//
// Version flags are the fields of the selected system's config message (scenario.proto), made
// from the registered systems by reflection: --agent A0a sets gitlab { agent: "A0a" }. --set
// FIELD=VALUE sets any scalar field (a config field, a scenario field, or a dotted path).
//
// Exit codes: 0 pass, 1 usage or harness error, 2 safety violation, 3 liveness violation,
// 4 nondeterminism, 5 an expected violation did not happen.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <google/protobuf/descriptor.h>

#include "cli/serve_command.h"
#include "cli/wallclock.h"
#include "sim/run/commands.h"
#include "sim/run/corpus.h"
#include "sim/run/corpus_bugs.h"
#include "sim/run/fuzz_targets.h"
#include "sim/run/shrink.h"
#include "sim/run/duration.h"
#include "sim/run/explain.h"
#include "sim/run/signature_bench.h"
#include "sim/run/verdict.h"

#ifdef WSIM_HAVE_TOY
#include "model/toy/register.h"
#endif
#ifdef WSIM_HAVE_GITLAB
#include "model/gitlab/register.h"
#endif
#ifdef WSIM_HAVE_GITPOD
#include "model/gitpod/register.h"
#endif

namespace {

namespace pb = google::protobuf;
using wsim::run::FieldOverride;
using wsim::run::ScenarioFlags;
using wsim::DurationMs;

void register_systems() {
#ifdef WSIM_HAVE_TOY
  wsim::toy::register_toy_system();
#endif
#ifdef WSIM_HAVE_GITLAB
  wsim::gitlab::register_gitlab_system();
#endif
#ifdef WSIM_HAVE_GITPOD
  wsim::gitpod::register_gitpod_system();
#endif
}

// Flags every scenario-selecting subcommand shares, plus one flag per config field of every
// registered system (--agent, --rails, --namespace-mode, --version, ...).
struct ScenarioOptions {
  std::string scenario;
  std::string bug;
  std::string system;
  std::vector<std::string> sets;
  std::string seed;
  std::string time_limit;
  std::string settle;
  std::uint64_t events_max = wsim::run::kDefaultEventsMax;
  // field name → (option, value)
  std::map<std::string, std::pair<CLI::Option*, std::string>> fields;
};

const std::set<std::string>& reserved_flags() {
  static const std::set<std::string> names = {
      "scenario", "bug", "system",    "set",        "seed",       "time-limit", "settle",
      "max-events", "out",     "ignore-expect", "print-hash", "time",     "runs",
      "jobs",     "seed-start", "keep-going", "seeds",      "help"};
  return names;
}

void add_scenario_options(CLI::App& app, ScenarioOptions& options, bool with_seed) {
  app.add_option("--scenario", options.scenario, "scenario file (text-format protobuf)");
  app.add_option("--bug", options.bug,
                 "a known bug of the corpus, FILE#N (expect block N of a regression file): its "
                 "versions with a random workload; hunt stops at that invariant");
  std::string names;
  for (const wsim::run::System* system : wsim::run::systems()) {
    names += (names.empty() ? "" : ", ") + system->name();
  }
  app.add_option("--system", options.system, "system under test (" + names + ")");
  if (with_seed) app.add_option("--seed", options.seed, "seed of the choice source");
  app.add_option("--time-limit", options.time_limit,
                 "virtual length of the fault phase, e.g. 10m (default: the system's)");
  app.add_option("--settle", options.settle,
                 "virtual settle time after healing, e.g. 30m (default: the system's)");
  app.add_option("--max-events", options.events_max,
                 "event budget of one run (a harness error beyond it)");
  app.add_option("--set", options.sets, "set any scalar field: FIELD=VALUE (repeatable)")
      ->type_size(1)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  // One flag per config field, shared between systems that have the same field name.
  std::map<std::string, std::string> help;
  for (const wsim::run::System* system : wsim::run::systems()) {
    wsim::run::LoadedScenario loaded;
    std::string error;
    if (!wsim::run::scenario_for_system(system->name(), loaded, error)) continue;
    const pb::Message* config = wsim::run::config_of(loaded.scenario, *system);
    std::map<std::string, const wsim::run::VersionAxis*> axes;
    const std::vector<wsim::run::VersionAxis> axis_list = system->axes();
    for (const auto& axis : axis_list) axes[axis.field] = &axis;
    const pb::Descriptor* descriptor = config->GetDescriptor();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const pb::FieldDescriptor* field = descriptor->field(i);
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
      std::string text = system->name() + "." + field->name();
      auto axis = axes.find(field->name());
      if (axis != axes.end()) {
        text += " (";
        for (std::size_t k = 0; k < axis->second->values.size(); ++k) {
          text += (k ? ", " : "") + axis->second->values[k];
        }
        text += ")";
      }
      std::string& entry = help[field->name()];
      entry += (entry.empty() ? "" : "; ") + text;
    }
  }
  for (const auto& [field, text] : help) {
    std::string flag = field;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (reserved_flags().count(flag)) continue;  // Reachable with --set FIELD=VALUE.
    auto& slot = options.fields[field];
    slot.first = app.add_option("--" + flag, slot.second, "config field " + text);
    slot.first->group("Version and config flags");
  }
}

// Turns the parsed options into ScenarioFlags; false (with a message) on malformed values.
bool to_flags(const ScenarioOptions& options, ScenarioFlags& flags, std::string& error) {
  flags.scenario_file = options.scenario;
  flags.bug = options.bug;
  flags.system = options.system;
  flags.events_max = options.events_max;
  for (const auto& [field, slot] : options.fields) {
    if (slot.first->count() == 0) continue;
    std::string flag = field;
    std::replace(flag.begin(), flag.end(), '_', '-');
    flags.overrides.push_back(FieldOverride{field, slot.second, "--" + flag + " " + slot.second});
  }
  for (const std::string& set : options.sets) {
    const std::size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      error = "--set " + set + ": expected FIELD=VALUE";
      return false;
    }
    flags.overrides.push_back(
        FieldOverride{set.substr(0, eq), set.substr(eq + 1), "--set " + set});
  }
  if (!options.seed.empty()) {
    std::uint64_t seed = 0;
    if (!wsim::run::parse_u64(options.seed, seed)) {
      error = "--seed " + options.seed + ": expected an unsigned 64-bit integer";
      return false;
    }
    flags.seed = seed;
  }
  wsim::DurationMs ms = 0;
  if (!options.time_limit.empty()) {
    if (!wsim::run::parse_duration_ms(options.time_limit, ms, error)) {
      error = "--time-limit: " + error;
      return false;
    }
    flags.fault_phase_ms = ms;
  }
  if (!options.settle.empty()) {
    if (!wsim::run::parse_duration_ms(options.settle, ms, error)) {
      error = "--settle: " + error;
      return false;
    }
    flags.settle_ms = ms;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  register_systems();

  CLI::App app{"wsim: deterministic simulation and fuzz harness for workspace reconcilers"};
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 pass, 1 usage or harness error, 2 safety violation, 3 liveness violation,\n"
      "4 nondeterminism, 5 an expected violation did not happen.");

  // run
  CLI::App* run = app.add_subcommand("run", "one run of a scenario (or of a system's defaults)");
  ScenarioOptions run_options;
  wsim::run::RunCommand run_command;
  add_scenario_options(*run, run_options, true);
  CLI::Option* run_out =
      run->add_option("--out", run_command.out_dir, "where failure bundles go (default wsim-out)");
  run->add_flag("--ignore-expect", run_command.ignore_expect,
                "exit with the raw verdict, ignoring the scenario's expectations");
  run->add_option("--known", run_command.known_dir,
                  "label a failure known/NEW against this corpus (default corpus/regressions)");
  run->add_flag("--print-hash", run_command.print_hash,
                "print 'SEED FINGERPRINT' as the last line");

  // replay
  CLI::App* replay = app.add_subcommand("replay", "re-execute a failure bundle exactly, or a "
                                                  "scenario file twice (run, then its record)");
  wsim::run::ReplayCommand replay_command;
  replay->add_option("path", replay_command.path, "bundle directory or scenario file")
      ->required();
  replay->add_option("--out", replay_command.out_dir, "where failure bundles go");
  replay->add_flag("--ignore-expect", replay_command.ignore_expect,
                   "exit with the raw verdict, ignoring the scenario's expectations");
  replay->add_option("--max-events", replay_command.events_max, "event budget of one run");
  std::string replay_fuzz_target;
  replay->add_option("--fuzz-target", replay_fuzz_target,
                     "path is a raw libFuzzer input (crash-<sha1>) of this fuzz/ target: run it "
                     "and write a full bundle");

  wsim::cli::ServeCli serve_cli(app, *replay);  // `wsim serve`, `wsim replay --serve`

  // shrink
  CLI::App* shrink = app.add_subcommand(
      "shrink", "minimal failing run with the same invariant (choices and scripted events)");
  wsim::run::ShrinkCommand shrink_command;
  shrink->add_option("bundle", shrink_command.bundle, "failure bundle directory")->required();
  shrink->add_option("-o,--out", shrink_command.out, "shrunk bundle directory (default "
                                                     "BUNDLE-shrunk)");
  shrink->add_option("--max-runs", shrink_command.max_runs, "candidate runs (default 2000)");
  shrink->add_option("--max-events", shrink_command.events_max, "event budget of one run");
  shrink->add_option("--scripted-max-runs", shrink_command.scripted_max_runs,
                     "runs to verify and shrink the readable scripted form (default 300; 0 = "
                     "no scripted.textproto)");

  // fuzz-seeds (hidden): seed inputs of a fuzz target from passing seed runs.
  CLI::App* fuzz_seeds = app.add_subcommand("fuzz-seeds", "fuzzer inputs from passing seed runs");
  fuzz_seeds->group("");
  wsim::run::FuzzSeedsCommand fuzz_seeds_command;
  fuzz_seeds->add_option("--fuzz-target", fuzz_seeds_command.target, "fuzz target")->required();
  fuzz_seeds->add_option("--seeds", fuzz_seeds_command.seeds, "seed range A..B (default 0..19)");
  fuzz_seeds->add_option("--out", fuzz_seeds_command.out_dir, "output directory")->required();
  fuzz_seeds->add_option("--max-bytes", fuzz_seeds_command.max_bytes, "cut inputs (default 4096)");

  // corpus add
  CLI::App* corpus = app.add_subcommand("corpus", "the regression corpus (corpus/regressions)");
  corpus->require_subcommand(1);
  CLI::App* corpus_add = corpus->add_subcommand(
      "add", "turn a failure bundle into corpus/regressions/<system>/<id>-<slug>.textproto");
  wsim::run::CorpusAddCommand corpus_add_command;
  CLI::App* corpus_bugs = corpus->add_subcommand(
      "bugs", "list the known bugs of the corpus (every violating expect block) as --bug FILE#N");
  std::string corpus_bugs_dir = "corpus/regressions";
  corpus_bugs->add_option("dir", corpus_bugs_dir, "corpus directory (default corpus/regressions)");
  corpus_add->add_option("bundle", corpus_add_command.bundle, "failure bundle directory")
      ->required();
  corpus_add->add_option("--name", corpus_add_command.name, "slug of the file name");
  corpus_add->add_option("--corpus", corpus_add_command.corpus_dir,
                         "corpus directory (default corpus/regressions)");

  // hunt
  CLI::App* hunt = app.add_subcommand(
      "hunt", "swarm over seeds until a failure (with no arguments: every system, latest "
              "versions, 20s each)");
  ScenarioOptions hunt_options;
  wsim::run::HuntCommand hunt_command;
  add_scenario_options(*hunt, hunt_options, false);
  std::string hunt_time;
  hunt->add_option("--time", hunt_time, "wall-clock budget, e.g. 60s, 10m (default 20s)");
  std::uint64_t hunt_runs = 0;
  CLI::Option* runs_option = hunt->add_option("--runs", hunt_runs, "run budget");
  // Default: one worker process per online CPU.
  hunt_command.jobs = static_cast<int>(std::clamp(::sysconf(_SC_NPROCESSORS_ONLN), 1L, 64L));
  hunt->add_option("--jobs", hunt_command.jobs,
                   "parallel worker processes (default: one per CPU, here " +
                       std::to_string(hunt_command.jobs) + ")");
  hunt->add_option("--seed-start", hunt_command.seed_start, "first seed (default 0)");
  hunt->add_option("--out", hunt_command.out_dir, "where failure bundles go (default wsim-out)");
  hunt->add_flag("--keep-going", hunt_command.keep_going,
                 "do not stop at the first failure (one bundle per invariant)");
  hunt->add_option("--known", hunt_command.known_dir,
                   "go past the known bugs of this corpus (e.g. corpus/regressions): a table of "
                   "them, exit non-zero only for NEW findings (default with no arguments)");

  // explain
  CLI::App* explain = app.add_subcommand(
      "explain", "a short story of a failure bundle: the invariant, the events that matter, "
                 "the state before and after");
  wsim::run::ExplainCommand explain_command;
  explain->add_option("bundle", explain_command.bundle, "failure bundle directory")->required();
  explain->add_option("--html", explain_command.html, "also write the timeline diagram to FILE");
  explain->add_flag("--verbose", explain_command.verbose,
                    "append every event, unclipped, with its detail in full");
  explain->add_option("--known", explain_command.known_dir,
                      "label the failure known/NEW against this corpus (default "
                      "corpus/regressions)");
  explain->add_flag("--original", explain_command.original,
                    "explain the bundle itself even when BUNDLE-shrunk exists");

  // list
  CLI::App* list = app.add_subcommand("list", "systems, versions, invariants, actions, faults, "
                                              "probes");

  // fingerprint (hidden): the determinism check's workhorse.
  // bench-signatures (hidden): scripts/bench-signatures, docs/signatures.md.
  CLI::App* bench_signatures = app.add_subcommand(
      "bench-signatures", "recall and precision of finding signatures over the corpus bugs");
  bench_signatures->group("");
  wsim::run::BenchSignaturesCommand bench_signatures_command;
  bench_signatures->add_option("--corpus", bench_signatures_command.corpus_dir, "corpus directory");
  bench_signatures->add_option("--instances", bench_signatures_command.instances,
                               "violations hunted per bug (default 10)");
  bench_signatures->add_option("--runs-max", bench_signatures_command.runs_max,
                               "runs per bug at most (default 400)");
  bench_signatures->add_option("--only", bench_signatures_command.only, "bug names containing");
  bench_signatures->add_flag("--dump", bench_signatures_command.dump,
                             "print each instance's signature to stderr");

  CLI::App* fingerprint = app.add_subcommand("fingerprint", "print 'SEED FINGERPRINT' per seed");
  fingerprint->group("");
  ScenarioOptions fingerprint_options;
  wsim::run::FingerprintCommand fingerprint_command;
  add_scenario_options(*fingerprint, fingerprint_options, false);
  fingerprint->add_option("--seeds", fingerprint_command.seeds, "seed range A..B (default 0..199)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? wsim::run::kExitPass : wsim::run::kExitUsage;
  }

  std::string error;
  if (serve_cli.selected()) return serve_cli.run(replay_command.path, std::cout, std::cerr);
  if (*run) {
    if (!to_flags(run_options, run_command.flags, error)) {
      std::cerr << "wsim run: " << error << "\n";
      return wsim::run::kExitUsage;
    }
    run_command.out_dir_given = run_out->count() > 0;
    return wsim::run::cmd_run(run_command, std::cout, std::cerr);
  }
  if (*replay) {
    if (!replay_fuzz_target.empty()) {
      return wsim::run::cmd_replay_fuzz_input(replay_fuzz_target, replay_command, std::cout,
                                              std::cerr);
    }
    return wsim::run::cmd_replay(replay_command, std::cout, std::cerr);
  }
  if (*hunt) {
    if (!to_flags(hunt_options, hunt_command.flags, error)) {
      std::cerr << "wsim hunt: " << error << "\n";
      return wsim::run::kExitUsage;
    }
    if (!hunt_time.empty()) {
      wsim::DurationMs ms = 0;
      if (!wsim::run::parse_duration_ms(hunt_time, ms, error)) {
        std::cerr << "wsim hunt: --time: " << error << "\n";
        return wsim::run::kExitUsage;
      }
      hunt_command.time_ms = ms;
    }
    if (runs_option->count() > 0) hunt_command.runs = hunt_runs;
    hunt_command.make_clock = wsim::cli::make_hunt_clock;
    hunt_command.progress_tty = ::isatty(2) != 0;
    return wsim::run::cmd_hunt(hunt_command, std::cout, std::cerr);
  }
  if (*fuzz_seeds) return wsim::run::cmd_fuzz_seeds(fuzz_seeds_command, std::cout, std::cerr);
  if (*bench_signatures) {
    return wsim::run::cmd_bench_signatures(bench_signatures_command, std::cout, std::cerr);
  }
  if (*corpus_bugs) return wsim::run::cmd_corpus_bugs(corpus_bugs_dir, std::cout, std::cerr);
  if (*corpus_add) return wsim::run::cmd_corpus_add(corpus_add_command, std::cout, std::cerr);
  if (*shrink) return wsim::run::cmd_shrink(shrink_command, std::cout, std::cerr);
  if (*explain) return wsim::run::cmd_explain(explain_command, std::cout, std::cerr);
  if (*list) return wsim::run::cmd_list(std::cout, std::cerr);
  if (*fingerprint) {
    if (!to_flags(fingerprint_options, fingerprint_command.flags, error)) {
      std::cerr << "wsim fingerprint: " << error << "\n";
      return wsim::run::kExitUsage;
    }
    return wsim::run::cmd_fingerprint(fingerprint_command, std::cout, std::cerr);
  }
  return wsim::run::kExitUsage;
}
