// verdict.json (verdict_json.h): a run's result as a VerdictRecord, printed as deterministic JSON
// and parsed back.
#include "sim/run/verdict_json.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver_util.h>

#include <memory>

#include "sim/core/assert.h"
#include "sim/run/duration.h"
#include "sim/run/scenario.h"

namespace wsim::run {

namespace pb = google::protobuf;

namespace {

// Every field of the system's config message, by name (config_value spells each one).
void add_config(const System& system, const proto::Scenario& scenario,
                proto::VerdictRecord& record) {
  const pb::Message* config = config_of(scenario, system);
  if (config == nullptr) return;
  const pb::Descriptor* descriptor = config->GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    std::string value;
    if (!config_value(scenario, system, descriptor->field(i)->name(), value)) continue;
    (*record.mutable_config())[descriptor->field(i)->name()] = value;
  }
  WSIM_ASSERT_LE(record.config_size(), descriptor->field_count());
}

void add_violations(const RunResult& result, proto::VerdictRecord& record) {
  for (const MaskedViolation& masked : result.masked) {
    proto::MaskedViolationRecord* entry = record.add_masked();
    entry->set_invariant(masked.violation.invariant_id);
    entry->set_object(masked.violation.object);
    entry->set_known(masked.known);
  }
  for (const Violation& violation : result.liveness) {
    proto::ViolationRecord* entry = record.add_liveness();
    entry->set_invariant(violation.invariant_id);
    entry->set_object(violation.object);
    entry->set_message(violation.message);
  }
  WSIM_ASSERT_EQ(static_cast<std::size_t>(record.masked_size()), result.masked.size());
}

// issue #30 item 3: the realism of a violation, as checked by the caller or, unchecked, from the
// scenario's amplifiers alone.
void add_realism(const System& system, const proto::Scenario& scenario, const RunResult& result,
                 proto::VerdictRecord& record) {
  if (result.verdict != Verdict::kSafety && result.verdict != Verdict::kLiveness) return;
  const Realism realism = result.realism ? *result.realism : unchecked_realism(scenario, system);
  proto::RealismRecord* out = record.mutable_realism();
  out->set_label(realism_label(realism));
  for (const std::string& name : realism.amplifiers) out->add_amplifiers(name);
  out->set_why(realism.why);
  WSIM_ASSERT_EQ(out->label() == "realistic", out->amplifiers().empty());
}

}  // namespace

proto::VerdictRecord verdict_record(const System& system, const proto::Scenario& scenario,
                                    const RunResult& result) {
  proto::VerdictRecord record;
  record.set_fingerprint(format_hash(result.fingerprint));
  record.set_trace_hash(format_hash(result.trace_hash));
  record.set_verdict(verdict_name(result.verdict));
  record.set_exit_code(exit_code(result.verdict));
  if (result.violation) {
    record.set_invariant(result.violation->invariant_id);
    record.set_object(result.violation->object);
  }
  record.set_message(result.violation ? result.violation->message : result.harness_error);
  // issue #12: the signature and label ("known" is a corpus FILE#N, "NEW", or empty when the run
  // was not compared with the corpus).
  if (result.signature) record.set_signature(result.signature->text());
  if (result.labelled) record.set_known(result.known.empty() ? "NEW" : result.known);
  record.set_system(system.name());
  add_config(system, scenario, record);
  record.set_seed(result.seed);
  record.set_events(result.events);
  record.set_trace_events(result.trace_events);
  record.set_choices(result.choices);
  record.set_virtual_time_ms(result.end_ms);
  record.set_virtual_time(format_duration_ms(result.end_ms));
  record.set_phase(std::string(run_phase_name(result.phase)));
  for (const auto& [name, value] : result.swarm) (*record.mutable_swarm())[name] = value;
  add_violations(result, record);
  record.set_state(result.state);
  add_realism(system, scenario, result, record);
  // The swarm's names are unique (fault points, incidents, scheduler, the system's parameters):
  // a repeated name would silently drop a line of the map.
  WSIM_ASSERT_EQ(static_cast<std::size_t>(record.swarm_size()), result.swarm.size());
  WSIM_ASSERT(!record.system().empty());
  return record;
}

std::string verdict_json(const proto::VerdictRecord& record) {
  // Deterministic serialization sorts map entries; the JSON is converted from those bytes, so
  // the same record always prints the same text (a map's own iteration order is unspecified).
  std::string binary;
  {
    pb::io::StringOutputStream stream(&binary);
    pb::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    WSIM_ASSERT(record.SerializeToCodedStream(&coded));
  }
  const std::unique_ptr<pb::util::TypeResolver> resolver(pb::util::NewTypeResolverForDescriptorPool(
      "type.googleapis.com", pb::DescriptorPool::generated_pool()));
  pb::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = pb::util::BinaryToJsonString(
      resolver.get(), "type.googleapis.com/" + record.GetDescriptor()->full_name(), binary, &json,
      options);
  WSIM_ASSERT_MSG(status.ok(), "verdict record to JSON: " << status.ToString());
  WSIM_ASSERT(!json.empty());
  return json.back() == '\n' ? json : json + "\n";
}

bool parse_verdict_json(const std::string& json, const std::string& path,
                        proto::VerdictRecord& record, std::string& error) {
  WSIM_ASSERT(!path.empty());  // Errors name the file.
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  record.Clear();
  const auto status = pb::util::JsonStringToMessage(json, &record, options);
  if (!status.ok()) {
    error = path + ": not a verdict record: " + std::string(status.message());
    return false;
  }
  return true;
}

}  // namespace wsim::run
