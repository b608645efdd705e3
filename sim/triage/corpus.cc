// `wsim corpus add` (corpus.h): a failure bundle turned into a corpus file with the expectations
// of its own and of the latest versions, written atomically under a name from its invariant.
#include "sim/triage/corpus.h"

#include <cstdint>
#include <filesystem>

#include "sim/core/assert.h"
#include "sim/run/atomic_write.h"
#include "sim/run/bundle.h"
#include "sim/run/driver.h"
#include "sim/run/expect.h"
#include "sim/run/scenario.h"
#include "sim/run/shell_quote.h"

namespace wsim::run {

namespace fs = std::filesystem;

namespace {

std::string slugify(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (ok) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  // A piece of a file name: no separator, no trailing dash.
  WSIM_ASSERT_EQ(out.find('/'), std::string::npos);
  if (!out.empty()) WSIM_ASSERT_NE(out.back(), '-');
  return out.substr(0, 60);
}

// Writes `text` to `path` atomically; fails if `path` exists (atomic_write.h).
bool write_new_file_atomically(const fs::path& path, const std::string& text, std::string& error) {
  WSIM_ASSERT(path.has_filename());
  std::error_code ec;
  if (fs::exists(path, ec)) {
    error = path.string() + " already exists (choose another --name)";
    return false;
  }
  return atomic_write_file(path, text, ExistingFile::kRefuse, error);
}

std::string invariant_of(const RunResult& result) {
  return result.violation ? result.violation->invariant_id : "";
}

// The expectation of the bundle's own versions: its verdict and invariant.
void add_failing_expectation(const System& system, const RunResult& result,
                             proto::Scenario& scenario) {
  WSIM_ASSERT(result.violation.has_value());
  proto::Expectation* failing = scenario.add_expect();
  for (const VersionAxis& axis : system.axes()) {
    std::string value;
    if (config_value(scenario, system, axis.field, value))
      (*failing->mutable_when())[axis.field] = value;
  }
  failing->set_verdict(to_proto(result.verdict));
  failing->set_invariant(invariant_of(result));
}

// The expectation of the latest versions, when they differ from the bundle's and their run
// passes or violates an invariant; returns a note for the file's header ("" when they agree).
std::string add_latest_expectation(const System& system, proto::Scenario& scenario) {
  WSIM_ASSERT_EQ(scenario.expect_size(), 1);  // The bundle's own (add_failing_expectation).
  LoadedScenario latest;
  latest.scenario = scenario;
  latest.scenario.clear_expect();
  latest.system = &system;
  bool latest_differs = false;
  proto::Expectation latest_expect;
  std::string error;
  for (const VersionAxis& axis : system.axes()) {
    std::string value;
    if (!config_value(scenario, system, axis.field, value) || value == axis.latest) continue;
    if (!set_field(latest, axis.field, axis.latest, "--" + axis.field, error)) continue;
    latest_differs = true;
    (*latest_expect.mutable_when())[axis.field] = axis.latest;
  }
  if (!latest_differs) return "";
  if (!validate_scenario(latest, error)) return "latest versions not checked: " + error;
  const RunResult fixed = execute_run(system, latest.scenario, RunOptions{});
  latest_expect.set_verdict(to_proto(fixed.verdict));
  if (fixed.violation) latest_expect.set_invariant(fixed.violation->invariant_id);
  if (fixed.verdict != Verdict::kPass && !fixed.violation) return "";
  *scenario.add_expect() = latest_expect;
  WSIM_ASSERT_EQ(scenario.expect_size(), 2);
  return std::string("latest versions: ") + verdict_name(fixed.verdict) +
         (fixed.violation ? " " + fixed.violation->invariant_id : "");
}

}  // namespace

std::string corpus_stem(const std::string& invariant, std::uint64_t seed, const std::string& slug) {
  std::string short_id =
      invariant.substr(invariant.find('.') == std::string::npos ? 0 : invariant.find('.') + 1);
  const std::string stem = slugify(short_id) + "-s" + std::to_string(seed) + "-" +
                           (slug.empty() ? std::string("regression") : slugify(slug));
  WSIM_ASSERT_EQ(stem.find('/'), std::string::npos);  // A file name in the system's folder.
  return stem;
}

int cmd_corpus_add(const CorpusAddCommand& command, std::ostream& out, std::ostream& err) {
  Bundle bundle;
  std::string error;
  if (!read_bundle(command.bundle, bundle, error) || !validate_scenario(bundle.scenario, error)) {
    err << "wsim corpus add: " << error << "\n";
    return kExitUsage;
  }
  WSIM_ASSERT(bundle.scenario.system != nullptr);  // validate_scenario selected it.
  const System& system = *bundle.scenario.system;
  proto::Scenario scenario = bundle.scenario.scenario;
  scenario.clear_expect();

  // 1. From the seed alone.
  const RunResult result = execute_run(system, scenario, RunOptions{});
  const std::string invariant = invariant_of(result);
  if (result.verdict != Verdict::kSafety && result.verdict != Verdict::kLiveness) {
    err << "wsim corpus add: " << command.bundle << ": its scenario run from seed "
        << scenario.seed() << " gives " << verdict_name(result.verdict)
        << ", so the failure only reproduces through the bundle's choices.bin (a fuzzer input "
           "or a shrunk bundle). A corpus file has no choice record: write a scripted scenario "
           "(scripted_only: true, events {...}) from the bundle's external events (shrink.txt, "
           "trace.txt) and add that file by hand.\n";
    return kExitUsage;
  }
  if (!bundle.invariant.empty() && bundle.invariant != invariant) {
    err << "wsim corpus add: " << command.bundle << ": run from its seed it violates " << invariant
        << ", the bundle recorded " << bundle.invariant
        << " (the bundle is from a choice record, or the code changed)\n";
    return kExitUsage;
  }

  // 2. Expectations: the bundle's versions fail; the latest versions give what they give.
  add_failing_expectation(system, result, scenario);
  WSIM_ASSERT_EQ(scenario.expect_size(), 1);
  const std::string latest_note = add_latest_expectation(system, scenario);

  const std::string slug = command.name.empty() ? std::string("regression") : command.name;
  if (scenario.name().empty() || scenario.name().rfind("fuzz-", 0) == 0) scenario.set_name(slug);
  if (scenario.description().empty()) {
    scenario.set_description("found by wsim (bundle " +
                             fs::path(command.bundle).lexically_normal().filename().string() +
                             "): " + (result.violation ? result.violation->message : ""));
  }

  // 3. The file.
  const fs::path dir = fs::path(command.corpus_dir) / system.name();
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path path = dir / (corpus_stem(invariant, scenario.seed(), slug) + ".textproto");
  std::string text = "# " + std::string(verdict_name(result.verdict)) + " " + invariant + " on " +
                     describe_versions(scenario, system) + ", seed " +
                     std::to_string(scenario.seed()) + "; added by `wsim corpus add " +
                     command.bundle + "`\n";
  if (result.violation)
    text += "# " + result.violation->object + ": " + result.violation->message + "\n";
  if (!latest_note.empty()) text += "# " + latest_note + "\n";
  text += scenario_to_text(scenario);
  if (!write_new_file_atomically(path, text, error)) {
    err << "wsim corpus add: " << error << "\n";
    return kExitUsage;
  }
  out << "added " << path.string() << "\n"
      << "  " << verdict_name(result.verdict) << " " << invariant << " on "
      << describe_versions(scenario, system) << "\n";
  if (!latest_note.empty()) out << "  " << latest_note << "\n";
  out << "ctest replays it (corpus_replay_test); check it with:\n  scripts/wsim run --scenario "
      << shell_quote(path.string()) << "\n";
  return kExitPass;
}

}  // namespace wsim::run
