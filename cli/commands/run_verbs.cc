// The run verbs (commands.h): `wsim run` (one run, its expectation, bundle, realism check and repro
// command), `wsim replay` of a bundle or scenario, `wsim fingerprint` and `wsim list`. Exit codes
// are sim/run/verdict.h's; the verb wiring (flags) is in run.cc, replay.cc, fingerprint.cc,
// list.cc.
#include "cli/commands/commands.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include <google/protobuf/descriptor.h>

#include "sim/core/assert.h"
#include "sim/core/sim.h"
#include "sim/report/bundle_write.h"
#include "sim/run/amplifiers.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/run/expect.h"
#include "sim/triage/corpus_bugs.h"
#include "sim/triage/labelled_realism.h"

namespace wsim::run {

namespace pb = google::protobuf;

namespace {

void print_repro(std::ostream& out, const std::string& bundle, const std::string& command,
                 std::uint64_t seed) {
  out << "reproduce with:\n";
  if (!bundle.empty()) out << "  scripts/wsim replay " << shell_quote(bundle) << "\n";
  out << "  " << command << " --seed " << seed << "\n";
}

std::string finding_kind(const RunResult& result) {
  if (result.violation) return result.violation->invariant_id;
  return "";
}

// After a run from the command line: expectation, bundle, repro command. Returns the exit code.
int finish_run(const LoadedScenario& loaded, const RunResult& result, bool ignore_expect,
               const std::string& out_dir, bool force_bundle, const std::string& repro,
               std::ostream& out, std::ostream& err, bool bundle_always = false) {
  int code = exit_code(result.verdict);
  bool expected = false;
  if (!ignore_expect) {
    const ExpectationCheck check =
        check_expectation(loaded.scenario, *loaded.system, result.verdict, finding_kind(result));
    if (check.applies) {
      out << check.message << "\n";
      expected = check.met;
      code = expectation_exit_code(check, result.verdict);
    }
  }
  std::string bundle;
  if (bundle_always || (result.verdict != Verdict::kPass && (force_bundle || code != kExitPass))) {
    std::string error;
    if (write_bundle(out_dir, *loaded.system, loaded.scenario, result, bundle, error)) {
      out << "bundle " << bundle << "\n";
    } else {
      err << "wsim: cannot write the failure bundle: " << error << "\n";
    }
  }
  if (code != kExitPass || (result.verdict != Verdict::kPass && !expected)) {
    print_repro(out, bundle, repro, loaded.scenario.seed());
  }
  return code;
}

std::string ratio_text(Ratio ratio) {
  return std::to_string(ratio.num) + "/" + std::to_string(ratio.den);
}

}  // namespace

namespace {

// issue #30 item 3: a failing run is checked with its amplifiers at production (realism.h: at
// most a few quiet re-runs, none when it amplified nothing; re-runs told apart by the corpus's
// labels, labelled_realism.h) and says which it needs.
void check_run_realism(const LoadedScenario& loaded, std::uint64_t events_max,
                       const std::vector<KnownBug>& known, RunResult& result, std::ostream& out) {
  if (result.verdict != Verdict::kSafety && result.verdict != Verdict::kLiveness) return;
  if (!result.violation) return;
  result.realism = labelled_realism(*loaded.system, loaded.scenario, result, known, events_max);
  out << "realism: " << realism_text(*result.realism) << "\n";
}

}  // namespace

int cmd_run(const RunCommand& command, std::ostream& out, std::ostream& err) {
  LoadedScenario loaded;
  std::string error;
  if (!build_scenario(command.flags, loaded, error)) {
    err << "wsim run: " << error << "\n";
    return kExitUsage;
  }
  RunOptions options;
  options.record_choices = true;
  options.keep_trace = true;
  options.log = &out;
  options.events_max = command.flags.events_max;
  RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  // Labelled before the realism check, whose re-runs compare labels; printed after it.
  std::vector<KnownBug> known;
  const bool labels_loaded =
      label_with_corpus(*loaded.system, loaded.scenario, command.known_dir, result, error, &known);
  check_run_realism(loaded, options.events_max, known, result, out);
  if (!labels_loaded) {
    err << "wsim run: cannot label the finding: " << error << "\n";
  } else if (result.labelled) {
    out << (result.known.empty() ? "NEW" : "known: " + result.known) << " (signature "
        << result.signature->text() << ")\n";
  }
  const int code =
      finish_run(loaded, result, command.ignore_expect, command.out_dir, command.out_dir_given,
                 repro_command(command.flags), out, err, command.bundle_always);
  if (command.print_hash) {
    out << loaded.scenario.seed() << " " << format_hash(result.fingerprint) << "\n";
  }
  return code;
}

namespace {

// `wsim replay BUNDLE_DIR`: the bundle re-executed from its choice record, compared.
int replay_bundle_dir(const ReplayCommand& command, std::ostream& out, std::ostream& err) {
  Bundle bundle;
  std::string error;
  if (!read_bundle(command.path, bundle, error) || !validate_scenario(bundle.scenario, error)) {
    err << "wsim replay: " << error << "\n";
    return kExitUsage;
  }
  if (!bundle.scenario.system->executable()) {
    err << "wsim replay: " << command.path << ": " << bundle.scenario.system->executable_error()
        << "\n";
    return kExitUsage;
  }
  RunOptions options;
  options.tape = tape_of(bundle.record);
  options.log = &out;
  options.events_max = command.events_max;
  const RunResult result = execute_run(*bundle.scenario.system, bundle.scenario.scenario, options);
  if (result.fingerprint != bundle.fingerprint || result.trace_hash != bundle.trace_hash) {
    out << "NONDETERMINISM: the replay's fingerprint " << format_hash(result.fingerprint)
        << " (trace hash " << format_hash(result.trace_hash) << ") differs from the bundle's "
        << format_hash(bundle.fingerprint) << " (trace hash " << format_hash(bundle.trace_hash)
        << ").\n"
        << "Either the simulation is nondeterministic, or the code changed since the bundle "
           "was written (then run its scenario instead:\n  scripts/wsim run --scenario "
        << shell_quote((std::filesystem::path(command.path) / "scenario.textproto").string())
        << ")\n";
    return kExitNondeterminism;
  }
  out << "replayed exactly: fingerprint " << format_hash(result.fingerprint) << ", "
      << verdict_name(result.verdict);
  if (result.violation) out << " " << result.violation->invariant_id;
  if (!bundle.verdict.empty() && bundle.verdict != verdict_name(result.verdict)) {
    out << " (the bundle recorded " << bundle.verdict
        << ": the invariants changed since it was written)";
  }
  out << "\n";
  return exit_code(result.verdict);
}

}  // namespace

int cmd_replay(const ReplayCommand& command, std::ostream& out, std::ostream& err) {
  std::error_code ec;
  if (std::filesystem::is_directory(command.path, ec)) return replay_bundle_dir(command, out, err);

  // A scenario file: run it from its seed with recording, replay the record, compare.
  ScenarioFlags flags;
  flags.scenario_file = command.path;
  flags.events_max = command.events_max;
  LoadedScenario loaded;
  std::string error;
  if (!build_scenario(flags, loaded, error)) {
    err << "wsim replay: " << error << "\n";
    return kExitUsage;
  }
  RunOptions options;
  options.record_choices = true;
  options.keep_trace = true;
  options.log = &out;
  options.events_max = command.events_max;
  const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  RunOptions again;
  again.tape = tape_of(result.record);
  again.events_max = command.events_max;
  const RunResult replayed = execute_run(*loaded.system, loaded.scenario, again);
  if (replayed.fingerprint != result.fingerprint) {
    out << "NONDETERMINISM: replaying the run's own choice record gave fingerprint "
        << format_hash(replayed.fingerprint) << ", the run gave " << format_hash(result.fingerprint)
        << "\n";
    return kExitNondeterminism;
  }
  out << "replayed its choice record: same fingerprint " << format_hash(result.fingerprint) << "\n";
  return finish_run(loaded, result, command.ignore_expect, command.out_dir, false,
                    repro_command(flags), out, err);
}

int cmd_fingerprint(const FingerprintCommand& command, std::ostream& out, std::ostream& err) {
  LoadedScenario loaded;
  std::string error;
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  if (!parse_seed_range(command.seeds, first, last, 1'000'000, error) ||
      !build_scenario(command.flags, loaded, error)) {
    err << "wsim fingerprint: " << error << "\n";
    return kExitUsage;
  }
  RunOptions options;
  options.events_max = command.flags.events_max;
  for (std::uint64_t seed = first;; ++seed) {
    loaded.scenario.set_seed(seed);
    const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
    out << seed << " " << format_hash(result.fingerprint) << "\n";
    if (seed == last) break;
  }
  return kExitPass;
}

int cmd_list(std::ostream& out, std::ostream& err) {
  const std::vector<const System*> all = systems();
  if (all.empty()) {
    out << "no systems are linked into this binary\n";
    return kExitPass;
  }
  for (const System* system : all) {
    LoadedScenario loaded;
    std::string error;
    if (!scenario_for_system(system->name(), loaded, error) || !validate_scenario(loaded, error)) {
      err << "wsim list: " << system->name() << ": " << error << "\n";
      return kExitUsage;
    }
    out << system->name() << " — " << system->description() << "\n";
    out << "  defaults: " << describe_config(loaded.scenario, *system) << "\n";
    out << "  phases: fault " << format_duration_ms(system->default_fault_phase_ms()) << ", settle "
        << format_duration_ms(system->default_settle_ms()) << "\n";
    out << "  versions (command-line flags):\n";
    for (const VersionAxis& axis : system->axes()) {
      std::string flag = axis.field;
      std::replace(flag.begin(), flag.end(), '_', '-');
      out << "    --" << std::left << std::setw(16) << flag;
      if (axis.provenance.empty()) {
        for (std::size_t i = 0; i < axis.values.size(); ++i) {
          out << (i ? ", " : "") << axis.values[i]
              << (axis.values[i] == axis.latest ? " (latest)" : "");
        }
        out << "\n";
        continue;
      }
      WSIM_ASSERT_EQ(axis.provenance.size(), axis.values.size());
      out << "\n";
      for (std::size_t i = 0; i < axis.values.size(); ++i) {
        out << "        " << std::left << std::setw(20)
            << (axis.values[i] + (axis.values[i] == axis.latest ? " (latest)" : ""))
            << axis.provenance[i] << "\n";
      }
    }
    out << render_parameters_and_amplifiers(*system);
    out << "  invariants:\n";
    const std::vector<InvariantInfo> invariants = system->invariants();
    std::size_t id_width = 12;
    for (const InvariantInfo& info : invariants) id_width = std::max(id_width, info.id.size());
    for (const InvariantInfo& info : invariants) {
      out << "    " << std::left << std::setw(static_cast<int>(id_width)) << info.id << " "
          << (info.kind == InvariantKind::kSafety ? "safety  " : "liveness") << "  "
          << info.description;
      if (!info.reference.empty()) out << "  [" << info.reference << "]";
      out << "\n";
    }
    out << "  scripted actions (events { actor: ... action: ... target: ... }):\n";
    for (const ActionInfo& action : system->actions()) {
      out << "    " << std::left << std::setw(10) << action.actor << " " << std::setw(20)
          << action.action << " " << action.help << "\n";
    }
    Sim dummy(ChoiceSource::from_seed(0));
    std::unique_ptr<SystemRun> run = system->create(dummy, loaded.scenario);
    std::map<std::string, FaultId> faults;
    for (std::size_t i = 0; i < dummy.faults().size(); ++i) {
      faults.emplace(dummy.faults().point(static_cast<FaultId>(i)).name, static_cast<FaultId>(i));
    }
    std::size_t width = 0;
    for (const auto& [name, id] : faults) width = std::max(width, name.size());
    out << "  fault points — amplifiers of possible events (enabled per run with the first ratio, "
           "then fire per evaluation):\n";
    for (const auto& [name, id] : faults) {
      const FaultPoint& point = dummy.faults().point(id);
      out << "    " << std::left << std::setw(static_cast<int>(width)) << name << "  "
          << std::setw(8) << ratio_text(point.enable) << std::setw(9) << ratio_text(point.fire)
          << point.description << "\n";
    }
    width = 0;
    const std::vector<Probe> probes = dummy.probes().sorted();
    for (const Probe& probe : probes) width = std::max(width, probe.name.size());
    out << "  probes:\n";
    for (const Probe& probe : probes) {
      out << "    " << std::left << std::setw(static_cast<int>(width)) << probe.name << "  "
          << probe.description << "\n";
    }
    out << "\n";
  }
  out << "exit codes: 0 pass, 1 usage or harness error, 2 safety violation, 3 liveness "
         "violation, 4 nondeterminism, 5 expected violation did not happen\n";
  return kExitPass;
}

}  // namespace wsim::run
