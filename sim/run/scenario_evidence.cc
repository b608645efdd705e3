// Validating a corpus file's evidence: its `upstream` block and `needs` labels (scenario.proto
// Upstream, Need; docs/evidence.md). Called by scenario_validate.cc as one validation phase.
//
// A step names its repository, file, commit (7..40 lower-case hex digits), function and lines
// ("530" or "524-531", first <= last) and says what happens — or, in a DESIGN claim only, the
// https URL of a public design document and its section; a block has a claim and at least one
// step. A need names an amplifier the system declares (system.h Amplifier) and says why.
#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/descriptor.h>

#include "sim/core/sim.h"
#include "sim/run/amplifiers.h"
#include "sim/run/scenario_internal.h"

namespace wsim::run::scenario_internal {

namespace pb = google::protobuf;

namespace {

constexpr int kUpstreamStepsMax = 40;
constexpr int kNeedsMax = 16;
constexpr std::size_t kEvidenceTextBytesMax = 1024;

const pb::FieldDescriptor* field_of(const pb::Descriptor* descriptor, const char* name) {
  const pb::FieldDescriptor* field = descriptor->FindFieldByName(name);
  WSIM_ASSERT_MSG(field != nullptr, descriptor->name() << " has no field " << name);
  return field;
}

bool is_commit(const std::string& text) {
  if (text.size() < 7 || text.size() > 40) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// "530" or "524-531": positive line numbers, first <= last.
bool is_line_range(const std::string& text) {
  const std::size_t dash = text.find('-');
  const std::string first = text.substr(0, dash);
  const std::string last = dash == std::string::npos ? first : text.substr(dash + 1);
  auto number = [](const std::string& digits, std::uint64_t& out) {
    if (digits.empty() || digits.size() > 7 || digits[0] == '0') return false;
    out = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + static_cast<std::uint64_t>(c - '0');
    }
    WSIM_ASSERT_LT(out, 10'000'000u);  // At most 7 digits: no overflow.
    return true;
  };
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  return number(first, from) && number(last, to) && from <= to;
}

// A required text field of a step or a need: present and at most kEvidenceTextBytesMax bytes.
bool check_text(const LoadedScenario& loaded, const FieldPath& path, const std::string& value,
                std::string& error) {
  WSIM_ASSERT(!path.empty());  // A text is located by its field.
  if (value.empty()) {
    error = locate(loaded, path, "is required");
    return false;
  }
  if (value.size() > kEvidenceTextBytesMax) {
    error = locate(loaded, path,
                   "value is " + std::to_string(value.size()) + " bytes; the limit is " +
                       std::to_string(kEvidenceTextBytesMax));
    return false;
  }
  return true;
}

bool validate_step(const LoadedScenario& loaded, const FieldPath& step_path,
                   const proto::UpstreamStep& step, bool design, std::string& error) {
  WSIM_ASSERT_EQ(step_path.size(), 2u);  // upstream.steps[i].
  const pb::Descriptor* d = proto::UpstreamStep::descriptor();
  auto at = [&](const char* name) {
    FieldPath path = step_path;
    path.emplace_back(field_of(d, name), -1);
    return path;
  };
  if (!step.url().empty()) {  // A design document: only in a DESIGN claim.
    if (!design) {
      error = locate(loaded, at("url"),
                     "a REAL claim cites code (repo, file, commit, lines), not a document");
      return false;
    }
    if (step.url().rfind("https://", 0) != 0 || step.url().size() > kEvidenceTextBytesMax) {
      error = locate(loaded, at("url"), "'" + step.url().substr(0, 80) + "' is not an https URL");
      return false;
    }
    return check_text(loaded, at("says"), step.says(), error) &&
           check_text(loaded, at("function"), step.function(), error);
  }
  if (!check_text(loaded, at("says"), step.says(), error) ||
      !check_text(loaded, at("repo"), step.repo(), error) ||
      !check_text(loaded, at("file"), step.file(), error) ||
      !check_text(loaded, at("function"), step.function(), error) ||
      !check_text(loaded, at("lines"), step.lines(), error)) {
    return false;
  }
  if (step.repo().find('/') == std::string::npos) {
    error = locate(loaded, at("repo"), "'" + step.repo() + "' is not OWNER/NAME");
    return false;
  }
  if (!is_commit(step.commit())) {
    error = locate(loaded, at("commit"),
                   "'" + step.commit().substr(0, 60) +
                       "' is not a commit (7..40 lower-case hex digits, the commit the lines "
                       "were read at)");
    return false;
  }
  if (!is_line_range(step.lines())) {
    error = locate(loaded, at("lines"),
                   "'" + step.lines().substr(0, 60) +
                       "' is not a line or a range (\"530\", "
                       "\"524-531\")");
    return false;
  }
  return true;
}

bool validate_upstream(const LoadedScenario& loaded, std::string& error) {
  const proto::Scenario& scenario = loaded.scenario;
  if (!scenario.has_upstream()) return true;
  const proto::Upstream& upstream = scenario.upstream();
  const pb::FieldDescriptor* upstream_field = field_of(proto::Scenario::descriptor(), "upstream");
  const pb::Descriptor* d = proto::Upstream::descriptor();
  if (upstream.claim() == proto::Upstream::CLAIM_UNSPECIFIED) {
    error = locate(loaded, {{upstream_field, -1}, {field_of(d, "claim"), -1}},
                   "is required: REAL (released code) or DESIGN (a design document)");
    return false;
  }
  if (!check_text(loaded, {{upstream_field, -1}, {field_of(d, "read_on"), -1}}, upstream.read_on(),
                  error)) {
    return false;
  }
  const pb::FieldDescriptor* steps_field = field_of(d, "steps");
  if (upstream.steps_size() == 0 || upstream.steps_size() > kUpstreamStepsMax) {
    error = locate(loaded, {{upstream_field, -1}, {steps_field, -1}},
                   "has " + std::to_string(upstream.steps_size()) + " steps; need 1.." +
                       std::to_string(kUpstreamStepsMax));
    return false;
  }
  for (int i = 0; i < upstream.steps_size(); ++i) {
    if (!validate_step(loaded, {{upstream_field, -1}, {steps_field, i}}, upstream.steps(i),
                       upstream.claim() == proto::Upstream::DESIGN, error)) {
      return false;
    }
  }
  return true;
}

bool validate_needs(const LoadedScenario& loaded, const System& system, std::string& error) {
  const proto::Scenario& scenario = loaded.scenario;
  const pb::FieldDescriptor* needs_field = field_of(proto::Scenario::descriptor(), "needs");
  const pb::Descriptor* d = proto::Need::descriptor();
  if (scenario.needs_size() > kNeedsMax) {
    error = locate(loaded, {{needs_field, kNeedsMax}},
                   "more than " + std::to_string(kNeedsMax) + " needs");
    return false;
  }
  for (int i = 0; i < scenario.needs_size(); ++i) {
    const proto::Need& need = scenario.needs(i);
    const FieldPath amplifier_path = {{needs_field, i}, {field_of(d, "amplifier"), -1}};
    if (!check_text(loaded, amplifier_path, need.amplifier(), error) ||
        !check_text(loaded, {{needs_field, i}, {field_of(d, "why"), -1}}, need.why(), error)) {
      return false;
    }
    if (!find_amplifier(system, need.amplifier())) {
      std::string declared;
      for (const Amplifier& amplifier : system.amplifiers()) {
        declared += (declared.empty() ? "" : ", ") + amplifier.name;
      }
      error = locate(loaded, amplifier_path,
                     "'" + need.amplifier().substr(0, 80) + "' is not an amplifier of " +
                         system.name() + " (declared: " + (declared.empty() ? "none" : declared) +
                         "; `wsim list`)");
      return false;
    }
  }
  return true;
}

}  // namespace

bool validate_evidence(const LoadedScenario& loaded, const System& system, std::string& error) {
  WSIM_ASSERT(loaded.system == &system);  // A phase of validate_scenario (selected first).
  const std::string& invented = loaded.scenario.invented();
  if (invented.size() > kEvidenceTextBytesMax) {
    error = locate(loaded, {{field_of(proto::Scenario::descriptor(), "invented"), -1}},
                   "value is " + std::to_string(invented.size()) + " bytes; the limit is " +
                       std::to_string(kEvidenceTextBytesMax));
    return false;
  }
  return validate_upstream(loaded, error) && validate_needs(loaded, system, error);
}

}  // namespace wsim::run::scenario_internal
