// Durations and seed ranges as people type them on the command line: "500ms", "60s", "10m",
// "2h", "1m30s"; seeds "7" or "0..199" (both ends inclusive).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/core/time.h"

namespace wsim::run {

// The longest duration accepted anywhere (virtual phases, hunt budgets): 30 days.
inline constexpr DurationMs kMaxDurationMs = 30 * 24 * kHourMs;

// Parses a duration with units (ms, s, m, h; several parts allowed: "1h30m"). A bare number is an
// error (the unit is never guessed). Returns false and sets `error` on malformed or too large
// input.
bool parse_duration_ms(std::string_view text, DurationMs& duration_ms, std::string& error);

// "250ms", "12.345s", "2m03.456s", "1h02m03.456s": compact and exact to the millisecond.
std::string format_duration_ms(DurationMs duration_ms);

// Parses an unsigned 64-bit decimal integer (no sign, no spaces). Returns false on malformed
// input or overflow.
bool parse_u64(std::string_view text, std::uint64_t& value);

// Parses "N" or "A..B" (A <= B, both inclusive). `count_max` caps B - A + 1.
bool parse_seed_range(std::string_view text, std::uint64_t& first, std::uint64_t& last,
                      std::uint64_t count_max, std::string& error);

// "0x0123456789abcdef" (always 16 hex digits) and back.
std::string format_hash(std::uint64_t hash);
bool parse_hash(std::string_view text, std::uint64_t& hash);

}  // namespace wsim::run
