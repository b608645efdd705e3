// The hunt's printed report (hunt_report.h): the findings table with labels and realism, and the
// one-line-per-target summary table.
#include "sim/search/hunt_report.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "sim/core/assert.h"
#include "sim/run/verdict.h"
#include "sim/triage/labelled_realism.h"

namespace wsim::run {

namespace {

bool is_known(const Finding& finding) { return finding.labelled && !finding.known.empty(); }

// The summary's "found" column: the first finding that is not known, and how many known ones.
std::string summary_found(const HuntResult& result) {
  std::vector<const Finding*> unknown;
  std::size_t known = 0;
  for (const Finding& f : result.findings) {
    if (is_known(f)) {
      ++known;
    } else {
      unknown.push_back(&f);
    }
  }
  WSIM_ASSERT_EQ(known + unknown.size(), result.findings.size());
  std::string found = known > 0 ? "nothing NEW" : "nothing";
  if (!unknown.empty()) {
    const Finding& f = *unknown.front();
    found = std::string(f.labelled ? "NEW " : "") + verdict_name(f.verdict) + " " + f.invariant +
            " (seed " + std::to_string(f.seed) + ")" + (f.bundle.empty() ? "" : " " + f.bundle);
    if (unknown.size() > 1) found += " and " + std::to_string(unknown.size() - 1) + " more";
  }
  if (known > 0) found += "; " + std::to_string(known) + " known (table above)";
  return found;
}

}  // namespace

std::string finding_realism(const Finding& finding) {
  if (finding.realism) return realism_short(*finding.realism);
  return own_production_seed(finding) ? "realistic" : "-";
}

std::string finding_label(const Finding& finding) {
  if (!finding.labelled) return "-";
  return finding.known.empty() ? "NEW" : "known: " + finding.known;
}

namespace {

// One row per finding: verdict, invariant, runs, first seed, label, realism, bundle.
void print_finding_rows(std::ostream& out, const std::vector<const Finding*>& rows) {
  WSIM_ASSERT(!rows.empty());
  // The invariant column fits the longest id (gitpod.no_silent_loss) plus two spaces.
  std::size_t w_invariant = 16;
  std::size_t w_known = 7;  // "known" and two spaces, also when every label is empty.
  std::size_t w_realism = 9;
  for (const Finding* f : rows) {
    w_invariant = std::max(w_invariant, f->invariant.size() + 2);
    w_known = std::max(w_known, finding_label(*f).size() + 2);
    w_realism = std::max(w_realism, finding_realism(*f).size() + 2);
  }
  const int w = static_cast<int>(w_invariant);
  const int wk = static_cast<int>(w_known);
  const int wr = static_cast<int>(w_realism);
  out << "  " << std::left << std::setw(20) << "verdict" << std::setw(w) << "invariant"
      << std::setw(8) << "runs" << std::setw(12) << "first seed" << std::setw(wk) << "known"
      << std::setw(wr) << "realism"
      << "bundle\n";
  for (const Finding* f : rows) {
    WSIM_ASSERT_LE(f->invariant.size() + 2, w_invariant);  // The column fits every id.
    out << "  " << std::left << std::setw(20) << verdict_name(f->verdict) << std::setw(w)
        << f->invariant << std::setw(8) << f->count << std::setw(12) << f->seed << std::setw(wk)
        << finding_label(*f) << std::setw(wr) << finding_realism(*f)
        << (f->bundle.empty() ? "-" : f->bundle) << "\n";
  }
}

// The known findings of one bug id (labelled_realism.h bug_id_of), folded into one line.
struct KnownBugRow {
  std::string bug;
  std::vector<const Finding*> findings;  // In the table's order (realistic first, hunt.h).
};

std::vector<KnownBugRow> known_rows_by_bug(const std::vector<const Finding*>& known_findings,
                                           const std::vector<KnownBug>* known) {
  std::vector<KnownBugRow> rows;
  std::map<std::string, std::size_t> row_of_bug;
  for (const Finding* f : known_findings) {
    WSIM_ASSERT(is_known(*f));
    const std::string bug = known != nullptr ? bug_id_of(*known, f->known) : f->known;
    const auto [it, added] = row_of_bug.emplace(bug, rows.size());
    if (added) rows.push_back(KnownBugRow{bug, {}});
    rows[it->second].findings.push_back(f);
  }
  WSIM_ASSERT_EQ(rows.size(), row_of_bug.size());
  return rows;
}

// "S4, S5, S7": the distinct values of `field` over the row's findings, in first-seen order;
// "-" (a realism not checked: only the first findings are re-run) only when it is the only one.
template <typename Field>
std::string distinct_joined(const KnownBugRow& row, Field field) {
  WSIM_ASSERT(!row.findings.empty());  // known_rows_by_bug makes no empty row.
  std::vector<std::string> values;
  for (const Finding* f : row.findings) {
    const std::string value = field(*f);
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  if (values.size() > 1) values.erase(std::remove(values.begin(), values.end(), "-"), values.end());
  WSIM_ASSERT(!values.empty());
  std::string joined;
  for (const std::string& value : values) joined += (joined.empty() ? "" : ", ") + value;
  return joined;
}

// One line per known bug: its violations (failing runs summed over its kinds; a run that broke
// two invariants counts twice), the smallest seed, the invariants, the realism and an example
// bundle (that of the smallest seed). `wsim hunt --verbose` prints every kind in full.
void print_known_bug_rows(std::ostream& out, const std::vector<KnownBugRow>& rows) {
  WSIM_ASSERT(!rows.empty());
  std::size_t w_bug = 11;
  std::size_t w_invariants = 12;
  std::size_t w_realism = 9;
  for (const KnownBugRow& row : rows) {
    w_bug = std::max(w_bug, row.bug.size() + 2);
    w_invariants =
        std::max(w_invariants,
                 distinct_joined(row, [](const Finding& f) { return f.invariant; }).size() + 2);
    w_realism = std::max(w_realism, distinct_joined(row, finding_realism).size() + 2);
  }
  out << "  " << std::left << std::setw(static_cast<int>(w_bug)) << "known bug" << std::setw(12)
      << "violations" << std::setw(12) << "first seed" << std::setw(static_cast<int>(w_invariants))
      << "invariants" << std::setw(static_cast<int>(w_realism)) << "realism"
      << "bundle\n";
  for (const KnownBugRow& row : rows) {
    std::uint64_t violations = 0;
    const Finding* first = row.findings.front();
    for (const Finding* f : row.findings) {
      violations += f->count;
      if (f->seed < first->seed) first = f;
    }
    out << "  " << std::left << std::setw(static_cast<int>(w_bug)) << row.bug << std::setw(12)
        << violations << std::setw(12) << first->seed << std::setw(static_cast<int>(w_invariants))
        << distinct_joined(row, [](const Finding& f) { return f.invariant; })
        << std::setw(static_cast<int>(w_realism)) << distinct_joined(row, finding_realism)
        << (first->bundle.empty() ? "-" : first->bundle) << "\n";
  }
}

}  // namespace

void print_findings(std::ostream& out, const HuntResult& result, bool verbose,
                    const std::vector<KnownBug>* known) {
  if (result.findings.empty()) {
    out << "findings: none\n";
    return;
  }
  std::vector<const Finding*> unknown_findings;
  std::vector<const Finding*> known_findings;
  for (const Finding& f : result.findings) {
    (is_known(f) && !verbose ? known_findings : unknown_findings).push_back(&f);
  }
  WSIM_ASSERT_EQ(unknown_findings.size() + known_findings.size(), result.findings.size());
  // issue #30: realistic findings first (hunt.h order_by_realism), each with its realism.
  out << "findings:\n";
  if (!unknown_findings.empty()) print_finding_rows(out, unknown_findings);
  // issue #31: known bugs one line each, whatever number of kinds (invariant, label) they broke.
  const std::vector<KnownBugRow> bugs = known_rows_by_bug(known_findings, known);
  if (!bugs.empty()) print_known_bug_rows(out, bugs);
  // The why of a `needs` (and of a NEW finding): a known bug's `realistic` is in its row, its
  // why in the summary JSON, verdict.json and `wsim explain` (--verbose prints it here too). A
  // folded bug tells the why of its first `needs` row only (the rows of one bug differ in the
  // seeds their whys cite; --verbose prints each).
  std::vector<std::string> told;
  for (const Finding& f : result.findings) {
    if (!f.realism || f.realism->why.empty()) continue;
    if (!f.realism->realistic || verbose || !is_known(f)) {
      const std::string subject = is_known(f) && !verbose && known != nullptr
                                      ? "known bug " + bug_id_of(*known, f.known)
                                      : finding_label(f) + " " + f.invariant;
      if (std::find(told.begin(), told.end(), subject) != told.end()) continue;
      told.push_back(subject);
      out << "  realism of " << subject << ": " << realism_text(*f.realism) << "\n";
    }
  }
  for (const Finding& f : result.findings) {
    if (!f.signature.empty() && (verbose || !is_known(f)))
      out << "  signature of " << finding_label(f) << ": " << f.signature << "\n";
  }
}

std::string hunt_rate(const HuntResult& result) {
  if (result.seconds <= 0) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(0) << static_cast<double>(result.runs) / result.seconds;
  return out.str();
}

void print_hunt_table(std::ostream& out, const std::vector<HuntTarget>& rows) {
  out << "\nsummary:\n";
  std::size_t w_system = 6;
  std::size_t w_config = 8;
  for (const HuntTarget& row : rows) {
    w_system = std::max(w_system, row.system.size());
    w_config = std::max(w_config, std::min<std::size_t>(row.versions.size(), 60));
  }
  out << "  " << std::left << std::setw(static_cast<int>(w_system)) << "system"
      << "  " << std::setw(static_cast<int>(w_config)) << "versions"
      << "  " << std::right << std::setw(9) << "runs" << std::setw(9) << "runs/s"
      << "  found\n";
  for (const HuntTarget& row : rows) {
    std::string found = summary_found(row.result);
    std::string config = row.versions.size() > 60 ? row.versions.substr(0, 59) + "~" : row.versions;
    WSIM_ASSERT_LE(config.size(), 60u);
    out << "  " << std::left << std::setw(static_cast<int>(w_system)) << row.system << "  "
        << std::setw(static_cast<int>(w_config)) << config << "  " << std::right << std::setw(9)
        << row.result.runs << std::setw(9) << hunt_rate(row.result) << "  " << found << "\n";
  }
}

}  // namespace wsim::run
