#include "sim/core/trace.h"

#include "sim/core/assert.h"

namespace wsim {

std::string_view trace_kind_name(TraceKind kind) {
  switch (kind) {
    case TraceKind::kAction:
      return "action";
    case TraceKind::kScripted:
      return "scripted";
    case TraceKind::kViolation:
      return "violation";
  }
  WSIM_ASSERT(false);
  return "action";
}

void Trace::mix_byte(std::uint8_t value) {
  hash_ ^= value;
  hash_ *= 0x100000001b3ULL;
}

void Trace::mix(std::string_view bytes) {
  for (unsigned char c : bytes) mix_byte(c);
  mix_byte(0xff);  // Field separator, so ("ab","c") and ("a","bc") differ.
}

void Trace::mix(std::uint64_t value) {
  for (int i = 0; i < 8; ++i) mix_byte(static_cast<std::uint8_t>((value >> (8 * i)) & 0xff));
}

void Trace::record(TraceEvent event) {
  WSIM_ASSERT(event.time_ms >= 0);
  mix(static_cast<std::uint64_t>(event.time_ms));
  mix(event.actor);
  mix(event.verb);
  mix(event.object);
  mix(event.result);
  mix(event.detail);
  mix_byte(static_cast<std::uint8_t>(event.kind));
  mix(static_cast<std::uint64_t>(event.faults.size()));
  for (const std::string& name : event.faults) mix(name);
  ++count_;
  if (keep_events_) events_.push_back(std::move(event));
}

void Trace::record(TimeMs time_ms, std::string actor, std::string verb, std::string object,
                   std::string result, std::string detail) {
  record(TraceEvent{time_ms, std::move(actor), std::move(verb), std::move(object),
                    std::move(result), std::move(detail)});
}

}  // namespace wsim
