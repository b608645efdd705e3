#include "sim/core/trace.h"

namespace wsim {

void Trace::mix(std::string_view bytes) {
  for (unsigned char c : bytes) {
    hash_ ^= c;
    hash_ *= 0x100000001b3ULL;
  }
  hash_ ^= 0xff;  // Field separator, so ("ab","c") and ("a","bc") differ.
  hash_ *= 0x100000001b3ULL;
}

void Trace::mix(std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    hash_ ^= (value >> (8 * i)) & 0xff;
    hash_ *= 0x100000001b3ULL;
  }
}

void Trace::record(TraceEvent event) {
  mix(static_cast<std::uint64_t>(event.time_ms));
  mix(event.actor);
  mix(event.verb);
  mix(event.object);
  mix(event.result);
  mix(event.detail);
  ++count_;
  if (keep_events_) events_.push_back(std::move(event));
}

void Trace::record(TimeMs time_ms, std::string actor, std::string verb, std::string object,
                   std::string result, std::string detail) {
  record(TraceEvent{time_ms, std::move(actor), std::move(verb), std::move(object),
                    std::move(result), std::move(detail)});
}

}  // namespace wsim
