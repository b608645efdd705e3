// verdict.json of a failure bundle: the run's verdict as a wsim.proto.VerdictRecord message
// (sim/proto/verdict.proto), written and read with protobuf's JSON utilities, so the field names,
// escaping and number formats are protobuf's JSON mapping and need no hand-written scanner.
//
// The file lists the fields in field-number order (fingerprint and trace_hash first), with
// empty strings and zeros printed, and map entries (config, swarm) sorted by key: the same run
// writes the same bytes. 64-bit integers (seed, events, virtual_time_ms, ...) are JSON strings.
#pragma once

#include <string>

#include "sim/proto/verdict.pb.h"
#include "sim/run/driver.h"
#include "sim/run/system.h"

namespace wsim::run {

// The record of `result`, a run of `scenario` on `system`.
proto::VerdictRecord verdict_record(const System& system, const proto::Scenario& scenario,
                                    const RunResult& result);

// The JSON text of `record` (protobuf's printer: one member per line, one-space indent), ending
// in a newline.
std::string verdict_json(const proto::VerdictRecord& record);

// Parses verdict.json text (unknown members are ignored, so older readers read newer files).
// Returns false with `error` naming `path` and the parser's complaint.
[[nodiscard]] bool parse_verdict_json(const std::string& json, const std::string& path,
                                      proto::VerdictRecord& record, std::string& error);

}  // namespace wsim::run
