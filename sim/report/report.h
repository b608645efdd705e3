// Readable and machine-readable reports of one run (docs/architecture.md §8): the VOPR-style text
// trace, JSONL (one object per trace event), verdict.json and a self-contained HTML timeline.
#pragma once

#include <string>
#include <string_view>

#include "sim/core/time.h"
#include "sim/proto/scenario.pb.h"
#include "sim/run/driver.h"
#include "sim/run/system.h"

namespace wsim::run {

// A JSON string literal (with the quotes). Control characters are \u-escaped; bytes that are not
// valid UTF-8 are escaped as \u00XX, so the output is always valid JSON.
std::string json_string(std::string_view text);
// Text with &, <, >, " and ' replaced by entities.
std::string html_escape(std::string_view text);

// trace.txt: a header (verdict, seed, config), then one aligned line per event — time, actor,
// verb, object, result, detail — with the culprit event marked ">>" and the violation "!!".
std::string render_trace_text(const System& system, const proto::Scenario& scenario,
                              const RunResult& result);
// trace.jsonl: one JSON object per trace event:
//   {"i":0,"time_ms":12,"actor":"...","verb":"...","object":"...","result":"...","detail":"..."}
// with "mark":"culprit" / "mark":"violation" on the marked events.
std::string render_trace_jsonl(const RunResult& result);
// verdict.json (see bundle.h for the fields).
std::string render_verdict_json(const System& system, const proto::Scenario& scenario,
                                const RunResult& result);
// timeline.html: see timeline_html.h.

// Virtual time as trace columns show it: "1h02m03.456s", "2m03.456s", "3.456s".
std::string format_trace_time(TimeMs ms);

}  // namespace wsim::run
