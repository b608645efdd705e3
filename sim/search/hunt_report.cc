// The hunt's printed report (hunt_report.h): the findings table with labels and realism, and the
// one-line-per-target summary table.
#include "sim/search/hunt_report.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "sim/core/assert.h"
#include "sim/run/verdict.h"

namespace wsim::run {

namespace {

// The summary's "found" column: the first finding that is not known, and how many known ones.
std::string summary_found(const HuntResult& result) {
  std::vector<const Finding*> unknown;
  std::size_t known = 0;
  for (const Finding& f : result.findings) {
    if (f.labelled && !f.known.empty()) {
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

void print_findings(std::ostream& out, const HuntResult& result, bool verbose) {
  if (result.findings.empty()) {
    out << "findings: none\n";
    return;
  }
  // The invariant column fits the longest id (gitpod.no_silent_loss) plus two spaces.
  std::size_t w_invariant = 16;
  for (const Finding& f : result.findings) {
    w_invariant = std::max(w_invariant, f.invariant.size() + 2);
  }
  const int w = static_cast<int>(w_invariant);
  std::size_t w_known = 7;  // "known" and two spaces, also when every label is empty.
  for (const Finding& f : result.findings) w_known = std::max(w_known, finding_label(f).size() + 2);
  const int wk = static_cast<int>(w_known);
  std::size_t w_realism = 9;
  for (const Finding& f : result.findings) {
    w_realism = std::max(w_realism, finding_realism(f).size() + 2);
  }
  const int wr = static_cast<int>(w_realism);
  // issue #30: realistic findings first (hunt.h order_by_realism), each with its realism.
  out << "findings:\n";
  out << "  " << std::left << std::setw(20) << "verdict" << std::setw(w) << "invariant"
      << std::setw(8) << "runs" << std::setw(12) << "first seed" << std::setw(wk) << "known"
      << std::setw(wr) << "realism"
      << "bundle\n";
  for (const Finding& f : result.findings) {
    WSIM_ASSERT_LE(f.invariant.size() + 2, w_invariant);  // The column fits every id.
    out << "  " << std::left << std::setw(20) << verdict_name(f.verdict) << std::setw(w)
        << f.invariant << std::setw(8) << f.count << std::setw(12) << f.seed << std::setw(wk)
        << finding_label(f) << std::setw(wr) << finding_realism(f)
        << (f.bundle.empty() ? "-" : f.bundle) << "\n";
  }
  // The why of a `needs` (and of a NEW finding): a known bug's `realistic` is in its row, its
  // why in the summary JSON, verdict.json and `wsim explain` (--verbose prints it here too).
  for (const Finding& f : result.findings) {
    if (!f.realism || f.realism->why.empty()) continue;
    const bool known = f.labelled && !f.known.empty();
    if (!f.realism->realistic || verbose || !known) {
      out << "  realism of " << finding_label(f) << " " << f.invariant << ": "
          << realism_text(*f.realism) << "\n";
    }
  }
  for (const Finding& f : result.findings) {
    const bool known = f.labelled && !f.known.empty();
    if (!f.signature.empty() && (verbose || !known))
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
