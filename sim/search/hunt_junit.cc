// The hunt as JUnit XML (hunt_junit.h): one testcase per target, a failure per finding that fails
// the hunt, the known ones in its output.
#include "sim/search/hunt_junit.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/core/assert.h"
#include "sim/report/report.h"
#include "sim/run/verdict.h"
#include "sim/search/hunt_report.h"

namespace wsim::run {

namespace {

// Does this finding fail the hunt (HuntResult::exit_code's rule)?
bool fails(const HuntResult& result, const Finding& finding) {
  return !result.unmasked || !finding.labelled || finding.known.empty();
}

std::string finding_title(const Finding& finding) {
  return std::string(verdict_name(finding.verdict)) + " " + finding.invariant + " (" +
         finding_label(finding) + ", " + finding_realism(finding) + "), first seed " +
         std::to_string(finding.seed) + ", " + std::to_string(finding.count) +
         (finding.count == 1 ? " run" : " runs");
}

std::string finding_text(const HuntTarget& target, const Finding& finding) {
  std::ostringstream text;
  text << finding_title(finding) << "\n";
  if (!finding.object.empty()) text << "object: " << finding.object << "\n";
  if (!finding.message.empty()) text << "message: " << finding.message << "\n";
  if (!finding.signature.empty()) text << "signature: " << finding.signature << "\n";
  if (finding.realism) text << "realism: " << realism_text(*finding.realism) << "\n";
  text << "reproduce with:\n";
  if (!finding.bundle.empty()) text << "  scripts/wsim replay " << finding.bundle << "\n";
  text << "  " << target.repro << " --seed " << finding.seed << finding.amplifier_flags << "\n";
  return text.str();
}

void write_testcase(std::ostream& xml, const HuntTarget& target) {
  const HuntResult& result = target.result;
  char seconds[32];
  const int written = std::snprintf(seconds, sizeof seconds, "%.3f", result.seconds);
  WSIM_ASSERT_GT(written, 0);
  WSIM_ASSERT_LT(written, static_cast<int>(sizeof seconds));
  xml << "    <testcase classname=\"wsim.hunt." << xml_escape(target.system) << "\" name=\""
      << xml_escape(target.versions.empty() ? target.system : target.versions) << "\" time=\""
      << seconds << "\">\n";
  std::string known;
  for (const Finding& finding : result.findings) {
    if (!fails(result, finding)) {
      known += finding_text(target, finding);
      continue;
    }
    xml << "      <failure type=\"" << verdict_name(finding.verdict) << "\" message=\""
        << xml_escape(finding_title(finding)) << "\">" << xml_escape(finding_text(target, finding))
        << "</failure>\n";
  }
  xml << "      <system-out>"
      << xml_escape(std::to_string(result.runs) + " runs, " + std::to_string(result.failures) +
                    " failing\n" + known)
      << "</system-out>\n";
  xml << "    </testcase>\n";
}

}  // namespace

std::string xml_escape(const std::string& text) {
  // The markup characters as for HTML (report.h); XML 1.0 also forbids most control characters.
  std::string out = html_escape(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') c = '?';
  }
  WSIM_ASSERT_GE(out.size(), text.size());  // Escaping only lengthens.
  return out;
}

std::string hunt_junit_xml(const HuntSummary& summary) {
  std::size_t failures = 0;
  std::size_t findings = 0;
  double seconds = 0;
  for (const HuntTarget& target : summary.targets) {
    seconds += target.result.seconds;
    findings += target.result.findings.size();
    for (const Finding& finding : target.result.findings) {
      if (fails(target.result, finding)) ++failures;
    }
  }
  WSIM_ASSERT_LE(failures, findings);
  char time[32];
  std::snprintf(time, sizeof time, "%.3f", seconds);
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites>\n"
      << "  <testsuite name=\"wsim hunt\" tests=\"" << summary.targets.size() << "\" failures=\""
      << failures << "\" errors=\"0\" time=\"" << time << "\">\n";
  for (const HuntTarget& target : summary.targets) write_testcase(xml, target);
  xml << "  </testsuite>\n</testsuites>\n";
  return xml.str();
}

bool write_junit_file(const std::string& path, const HuntSummary& summary, std::string& error) {
  WSIM_ASSERT(!path.empty());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << hunt_junit_xml(summary);
  if (!out.flush()) {
    error = path + ": cannot write";
    return false;
  }
  return true;
}

}  // namespace wsim::run
