// `wsim merge SUMMARY.json...` (commands.h): the shard summaries of one hunt as one findings and
// probe table, exiting as the whole hunt would (sim/search/hunt_merge.h).
#include "cli/commands/commands.h"
#include "sim/search/hunt_junit.h"
#include "sim/search/hunt_merge.h"
#include "sim/search/hunt_report.h"

namespace wsim::run {

int cmd_merge(const MergeCommand& command, std::ostream& out, std::ostream& err) {
  std::vector<HuntSummary> parts(command.summaries.size());
  std::string error;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!read_summary_file(command.summaries[i], parts[i], error)) {
      err << "wsim merge: " << error << "\n";
      return kExitUsage;
    }
  }
  HuntSummary merged;
  if (!merge_summaries(parts, command.summaries, merged, error)) {
    err << "wsim merge: " << error << "\n";
    return kExitUsage;
  }
  for (const HuntTarget& target : merged.targets) {
    out << target.system << " (" << target.versions << "): " << target.result.runs << " runs in "
        << merged.merged_shards << " shards, every seed below "
        << merged.seed_start + target.result.complete_below << " run, " << target.result.failures
        << (target.result.failures == 1 ? " failing run" : " failing runs") << "\n";
    print_findings(out, target.result);
    out << render_probe_coverage(target.result.probes) << "\n";
  }
  if (merged.targets.size() > 1) print_hunt_table(out, merged.targets);
  if (!command.summary_path.empty() && !write_summary_file(command.summary_path, merged, error)) {
    err << "wsim merge: --summary " << error << "\n";
    return kExitUsage;
  }
  if (!command.junit_path.empty() && !write_junit_file(command.junit_path, merged, error)) {
    err << "wsim merge: --junit " << error << "\n";
    return kExitUsage;
  }
  return merged.exit_code();
}

}  // namespace wsim::run
