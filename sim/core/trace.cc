// Trace (trace.h): the run's event hash (FNV-1a over every field, with separators) and the kept
// events.
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

namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

}  // namespace

void Trace::mix_byte(std::uint8_t value) {
  hash_ ^= value;
  hash_ *= kFnvPrime;
}

// mix() folds into a local and stores once: through a char pointer the compiler must assume every
// byte read may alias hash_, so mix_byte() per byte reloaded and stored it each time. Same
// FNV-1a steps, same hash (docs/performance.md §8).
void Trace::mix(std::string_view bytes) {
  std::uint64_t hash = hash_;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= kFnvPrime;
  }
  hash ^= 0xff;  // Field separator, so ("ab","c") and ("a","bc") differ.
  hash *= kFnvPrime;
  hash_ = hash;
}

void Trace::mix(std::uint64_t value) {
  std::uint64_t hash = hash_;
  for (int i = 0; i < 8; ++i) {
    hash ^= (value >> (8 * i)) & 0xff;
    hash *= kFnvPrime;
  }
  hash_ = hash;
}

void Trace::mix_event(TimeMs time_ms, std::string_view actor, std::string_view verb,
                      std::string_view object, std::string_view result, std::string_view detail,
                      TraceKind kind, const std::vector<std::string>& faults) {
  WSIM_ASSERT_GE(time_ms, 0);
  WSIM_ASSERT_LE(static_cast<int>(kind), static_cast<int>(TraceKind::kViolation));
  mix(static_cast<std::uint64_t>(time_ms));
  mix(actor);
  mix(verb);
  mix(object);
  mix(result);
  mix(detail);
  mix_byte(static_cast<std::uint8_t>(kind));
  mix(static_cast<std::uint64_t>(faults.size()));
  for (const std::string& name : faults) mix(name);
  ++count_;
}

void Trace::record(TraceEvent event) {
  mix_event(event.time_ms, event.actor, event.verb, event.object, event.result, event.detail,
            event.kind, event.faults);
  if (keep_events_) events_.push_back(std::move(event));
  WSIM_ASSERT_LE(events_.size(), count_);  // Kept events are hashed events (keeping may stop).
}

void Trace::record(TimeMs time_ms, std::string_view actor, std::string_view verb,
                   std::string_view object, std::string_view result, std::string_view detail,
                   TraceKind kind, std::vector<std::string> faults) {
  mix_event(time_ms, actor, verb, object, result, detail, kind, faults);
  if (!keep_events_) return;
  TraceEvent event(time_ms, std::string(actor), std::string(verb), std::string(object),
                   std::string(result), std::string(detail), kind);
  event.faults = std::move(faults);
  events_.push_back(std::move(event));
  WSIM_ASSERT_LE(events_.size(), count_);
}

void Trace::record(TimeMs time_ms, std::string actor, std::string verb, std::string object,
                   std::string result, std::string detail) {
  record(TraceEvent{time_ms, std::move(actor), std::move(verb), std::move(object),
                    std::move(result), std::move(detail)});
}

}  // namespace wsim
