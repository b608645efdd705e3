#include "sim/run/signature_bench.h"

#include <map>
#include <set>
#include <vector>

#include "sim/core/assert.h"
#include "sim/run/corpus_bugs.h"
#include "sim/run/driver.h"
#include "sim/run/verdict.h"

namespace wsim::run {

namespace {

struct BugRow {
  CorpusBug bug;
  std::string name;                 // KnownBug::name: "PATH#N".
  std::string group;                // hunting key + invariant.
  std::vector<std::string> labels;  // One per instance: a KnownBug::name, or "" (NEW).
  std::uint64_t runs = 0;
};

// The first `instances` violations of the bug's invariant from its hunting scenario.
bool hunt_instances(const BenchSignaturesCommand& command, const std::vector<KnownBug>& known,
                    BugRow& row, std::string& error) {
  LoadedScenario loaded;
  if (!corpus_bug_scenario(row.bug, loaded, error)) return false;
  row.group = hunting_key(loaded.scenario) + " " + row.bug.invariant;
  for (std::uint64_t seed = 0; seed < command.runs_max; ++seed) {
    if (static_cast<int>(row.labels.size()) >= command.instances) break;
    loaded.scenario.set_seed(seed);
    ++row.runs;
    const RunResult fast = execute_run(*loaded.system, loaded.scenario, RunOptions{});
    if (!fast.violation || fast.violation->invariant_id != row.bug.invariant) continue;
    RunOptions options;
    options.keep_trace = true;
    options.known = &known;
    const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
    WSIM_ASSERT(result.labelled);
    row.labels.push_back(result.known);
  }
  return true;
}

std::string percent(std::size_t num, std::size_t den) {
  if (den == 0) return "-";
  return std::to_string((num * 100 + den / 2) / den) + " %";
}

}  // namespace

int cmd_bench_signatures(const BenchSignaturesCommand& command, std::ostream& out,
                         std::ostream& err) {
  std::vector<CorpusBug> bugs;
  std::vector<KnownBug> known;
  std::string error;
  if (!corpus_bugs(command.corpus_dir, bugs, error) ||
      !known_bugs(command.corpus_dir, "", known, error)) {
    err << "wsim bench-signatures: " << error << "\n";
    return kExitUsage;
  }
  std::vector<BugRow> rows;
  for (const CorpusBug& bug : bugs) {
    BugRow row{bug, bug.path + "#" + std::to_string(bug.expect_index), "", {}, 0};
    if (!command.only.empty() && bug.name.find(command.only) == std::string::npos) continue;
    if (!hunt_instances(command, known, row, error)) {
      err << "wsim bench-signatures: " << bug.name << ": " << error << "\n";
      return kExitUsage;
    }
    err << "bench-signatures: " << bug.name << ": " << row.labels.size() << " instances in "
        << row.runs << " runs\n";
    rows.push_back(std::move(row));
  }
  // Which group each known bug is in (the group of its own hunt).
  std::map<std::string, std::string> group_of;
  for (const BugRow& row : rows) group_of[row.name] = row.group;
  out << "| bug | invariant | instances | recall (strict) | recall (group) | labelled it | "
         "precision | other labels |\n|---|---|---|---|---|---|---|---|\n";
  std::size_t total = 0, strict = 0, grouped = 0, labelled_total = 0, labelled_right = 0;
  for (const BugRow& row : rows) {
    std::size_t self = 0, in_group = 0;
    std::map<std::string, int> others;
    for (const std::string& label : row.labels) {
      if (label == row.name) ++self;
      const auto g = group_of.find(label);
      if (label == row.name || (g != group_of.end() && g->second == row.group)) {
        ++in_group;
      } else {
        ++others[label.empty() ? "NEW" : label.substr(label.rfind('/') + 1)];
      }
    }
    std::size_t carrying = 0, right = 0;
    for (const BugRow& other : rows) {
      for (const std::string& label : other.labels) {
        if (label != row.name) continue;
        ++carrying;
        if (other.group == row.group) ++right;
      }
    }
    std::string other_text;
    for (const auto& [label, count] : others) {
      other_text += (other_text.empty() ? "" : ", ") + label + " ×" + std::to_string(count);
    }
    out << "| " << row.bug.name << " | " << row.bug.invariant << " | " << row.labels.size() << " | "
        << percent(self, row.labels.size()) << " | " << percent(in_group, row.labels.size())
        << " | " << carrying << " | " << percent(right, carrying) << " | "
        << (other_text.empty() ? "-" : other_text) << " |\n";
    total += row.labels.size();
    strict += self;
    grouped += in_group;
    labelled_total += carrying;
    labelled_right += right;
  }
  out << "\ntotal: " << total << " instances of " << rows.size() << " bugs; recall "
      << percent(strict, total) << " strict, " << percent(grouped, total) << " by group; precision "
      << percent(labelled_right, labelled_total) << " (" << labelled_right << " of "
      << labelled_total << " labels)\n";
  return kExitPass;
}

}  // namespace wsim::run
