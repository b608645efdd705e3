// Merging sharded hunt summaries (hunt_merge.h): every shard once, the same hunt, findings
// deduplicated as the tally does with their smallest seed, realism and probes pooled.
#include "sim/search/hunt_merge.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <tuple>

#include "sim/core/assert.h"
#include "sim/run/verdict.h"
#include "sim/search/hunt_junit.h"
#include "sim/search/hunt_report.h"

namespace wsim::run {

namespace {

std::string shard_text(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

std::string optional_text(const std::optional<std::uint64_t>& value) {
  return value ? std::to_string(*value) : "null";
}

// The shards 0..N-1 each once; false with an error otherwise.
bool check_shards(const std::vector<HuntSummary>& parts, const std::vector<std::string>& files,
                  std::string& error) {
  WSIM_ASSERT(!parts.empty());
  WSIM_ASSERT_EQ(parts.size(), files.size());
  const std::uint64_t count = parts.front().shard.count;
  std::map<std::uint64_t, std::string> seen;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Shard& shard = parts[i].shard;
    if (shard.count != count) {
      error = files[i] + ": shard.count: " + std::to_string(shard.count) + ", but " + files[0] +
              " has " + std::to_string(count);
      return false;
    }
    auto [it, fresh] = seen.emplace(shard.index, files[i]);
    if (!fresh) {
      error = files[i] + ": shard.index: shard " + shard_text(shard) + " again (also " +
              it->second + ")";
      return false;
    }
  }
  for (std::uint64_t index = 0; index < count; ++index) {
    if (seen.count(index) == 0) {
      error =
          "shard " + shard_text(Shard{index, count}) + " is missing (give every shard's summary)";
      return false;
    }
  }
  WSIM_ASSERT_EQ(seen.size(), count);  // Each of 0..count-1 once.
  return true;
}

// Same seed start, budgets and version tuples as the first part; false with an error otherwise.
bool check_same_hunt(const HuntSummary& first, const HuntSummary& part, const std::string& file,
                     std::string& error) {
  WSIM_ASSERT(!file.empty());  // Errors name the file.
  const auto differs = [&](const std::string& field, const std::string& a, const std::string& b) {
    error = file + ": " + field + ": " + b + ", but the first summary has " + a;
    return false;
  };
  if (part.seed_start != first.seed_start) {
    return differs("seed_start", std::to_string(first.seed_start), std::to_string(part.seed_start));
  }
  if (part.runs_budget != first.runs_budget) {
    return differs("runs_budget", optional_text(first.runs_budget),
                   optional_text(part.runs_budget));
  }
  if (part.targets.size() != first.targets.size()) {
    return differs("targets", std::to_string(first.targets.size()) + " version tuples",
                   std::to_string(part.targets.size()) + " version tuples");
  }
  for (std::size_t t = 0; t < part.targets.size(); ++t) {
    const HuntTarget& a = first.targets[t];
    const HuntTarget& b = part.targets[t];
    const std::string field = "targets[" + std::to_string(t) + "]";
    if (a.system != b.system || a.versions != b.versions) {
      return differs(field, a.system + " " + a.versions, b.system + " " + b.versions);
    }
    if (a.result.unmasked != b.result.unmasked) {
      return differs(field + ".unmasked", a.result.unmasked ? "true" : "false",
                     b.result.unmasked ? "true" : "false");
    }
  }
  return true;
}

void add_signatures(std::vector<std::string>& into, const std::vector<std::string>& more) {
  for (const std::string& signature : more) {
    if (signature.empty()) continue;
    if (std::find(into.begin(), into.end(), signature) == into.end()) into.push_back(signature);
  }
}

// The verdict with fewer needed amplifiers (a realistic one needs none); `a` on a tie.
const std::optional<Realism>& less_needy(const std::optional<Realism>& a,
                                         const std::optional<Realism>& b) {
  if (!a) return b;
  if (!b) return a;
  return b->amplifiers.size() < a->amplifiers.size() ? b : a;
}

// One finding seen by two shards (issue #30); `into` is already the one of the smaller seed. The
// production runs add up; the amplifiers seen at production keep their smallest seed. A row
// labelled with a known bug is one bug: the verdict needing fewer amplifiers wins (realistic
// when either shard showed it realistic). A NEW or unlabelled row may hold several bugs: it keeps
// the verdict of its own (smallest) seed (hunt.h own_production_seed).
void merge_realism(Finding& into, const Finding& a, const Finding& b) {
  WSIM_ASSERT(into.seed == a.seed || into.seed == b.seed);
  into.production_runs = a.production_runs + b.production_runs;
  WSIM_ASSERT_GE(into.production_runs, a.production_runs);  // No wrap-around.
  into.production_seed = a.production_seed;
  if (b.production_seed && (!into.production_seed || *b.production_seed < *into.production_seed)) {
    into.production_seed = b.production_seed;
  }
  into.failed_without = a.failed_without;
  merge_failed_without(into.failed_without, b.failed_without);
  const bool names_a_bug = into.labelled && !into.known.empty();
  if (names_a_bug) into.realism = less_needy(a.realism, b.realism);
}

// Adds one shard's findings to `merged`, deduplicated as HuntTally does: by verdict, invariant
// and (going past known bugs) label.
void merge_findings(HuntTarget& merged, const HuntTarget& part,
                    std::map<std::tuple<int, std::string, std::string>, std::size_t>& index) {
  for (std::size_t i = 0; i < part.result.findings.size(); ++i) {
    const Finding& finding = part.result.findings[i];
    std::vector<std::string> signatures = {finding.signature};
    if (i < part.signatures.size()) add_signatures(signatures, part.signatures[i]);
    // A hunt that does not go past known bugs keys its findings without labels (its workers
    // have none; the re-run labels the first seed's): so does the merge.
    const std::string label = part.result.unmasked ? finding_label(finding) : "-";
    const auto key = std::make_tuple(static_cast<int>(finding.verdict), finding.invariant, label);
    auto it = index.find(key);
    if (it == index.end()) {
      index.emplace(key, merged.result.findings.size());
      merged.result.findings.push_back(finding);
      merged.signatures.emplace_back();
      add_signatures(merged.signatures.back(), signatures);
      continue;
    }
    WSIM_ASSERT_LT(it->second, merged.result.findings.size());
    Finding& into = merged.result.findings[it->second];
    const std::uint64_t count = into.count + finding.count;
    const Finding before = into;
    if (finding.seed < into.seed) into = finding;
    into.count = count;
    merge_realism(into, before, finding);
    WSIM_ASSERT_LE(into.seed, finding.seed);  // A merged row keeps its smallest seed.
    add_signatures(merged.signatures[it->second], signatures);
  }
  // The signature lists stay alongside the findings.
  WSIM_ASSERT_EQ(merged.signatures.size(), merged.result.findings.size());
}

// Findings realistic first, then in finding_order (hunt.h), their signature lists alongside.
void sort_findings(HuntTarget& target) {
  WSIM_ASSERT_EQ(target.signatures.size(), target.result.findings.size());
  std::vector<std::size_t> order(target.result.findings.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Finding& fa = target.result.findings[a];
    const Finding& fb = target.result.findings[b];
    if (realism_rank(fa) != realism_rank(fb)) return realism_rank(fa) < realism_rank(fb);
    return finding_order(fa, fb);
  });
  std::vector<Finding> findings;
  std::vector<std::vector<std::string>> signatures;
  for (const std::size_t i : order) {
    findings.push_back(std::move(target.result.findings[i]));
    signatures.push_back(std::move(target.signatures[i]));
  }
  target.result.findings = std::move(findings);
  target.signatures = std::move(signatures);
  WSIM_ASSERT_EQ(target.signatures.size(), target.result.findings.size());
}

HuntTarget merge_target(const std::vector<HuntSummary>& parts, std::size_t t) {
  WSIM_ASSERT_LT(t, parts.front().targets.size());
  HuntTarget merged = parts.front().targets[t];
  merged.result = HuntResult{};
  merged.signatures.clear();
  merged.result.unmasked = parts.front().targets[t].result.unmasked;
  merged.result.complete_below = parts.front().targets[t].result.complete_below;
  std::map<std::tuple<int, std::string, std::string>, std::size_t> index;
  std::map<std::string, Probe> probes;
  for (const HuntSummary& part : parts) {
    WSIM_ASSERT_LT(t, part.targets.size());  // check_same_hunt: the same targets.
    const HuntResult& result = part.targets[t].result;
    merged.result.runs += result.runs;
    merged.result.failures += result.failures;
    merged.result.seconds = std::max(merged.result.seconds, result.seconds);
    merged.result.deadline_reached = merged.result.deadline_reached || result.deadline_reached;
    merged.result.interrupted = merged.result.interrupted || result.interrupted;
    merged.result.complete_below = std::min(merged.result.complete_below, result.complete_below);
    merge_findings(merged, part.targets[t], index);
    for (const Probe& probe : result.probes) {
      Probe& into = probes[probe.name];
      into.name = probe.name;
      into.description = probe.description;
      into.hits += probe.hits;
    }
  }
  for (auto& [name, probe] : probes) merged.result.probes.push_back(std::move(probe));
  sort_findings(merged);
  return merged;
}

}  // namespace

bool merge_summaries(const std::vector<HuntSummary>& parts, const std::vector<std::string>& files,
                     HuntSummary& merged, std::string& error) {
  WSIM_ASSERT_EQ(parts.size(), files.size());
  if (parts.empty()) {
    error = "no summaries to merge";
    return false;
  }
  if (!check_shards(parts, files, error)) return false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (!check_same_hunt(parts.front(), parts[i], files[i], error)) return false;
  }
  merged = HuntSummary{};
  merged.merged_shards = 0;
  for (const HuntSummary& part : parts) merged.merged_shards += part.merged_shards;
  merged.seed_start = parts.front().seed_start;
  merged.runs_budget = parts.front().runs_budget;
  merged.time_budget_ms = parts.front().time_budget_ms;
  for (std::size_t t = 0; t < parts.front().targets.size(); ++t) {
    merged.targets.push_back(merge_target(parts, t));
  }
  WSIM_ASSERT_EQ(merged.targets.size(), parts.front().targets.size());
  return true;
}

}  // namespace wsim::run
