// Durations, seed ranges and hashes as text (duration.h): parsing "1m30s" and "A..B" from flags
// and files, and the fixed formats the reports print.
#include "sim/run/duration.h"

#include <charconv>
#include <cstdio>
#include <system_error>

#include "sim/core/assert.h"

namespace wsim::run {

bool parse_u64(std::string_view text, std::uint64_t& value) {
  // Digits only: from_chars takes no sign, space or prefix for an unsigned type, and reports
  // overflow as result_out_of_range.
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t parsed = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (status != std::errc() || end != text.data() + text.size()) return false;
  value = parsed;
  return true;
}

bool parse_duration_ms(std::string_view text, DurationMs& duration_ms, std::string& error) {
  const std::string shown(text);
  if (text.empty()) {
    error = "empty duration (examples: 500ms, 60s, 10m, 2h, 1m30s)";
    return false;
  }
  DurationMs total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t digits_begin = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == digits_begin) {
      error = "duration '" + shown + "': expected a number at '" + std::string(text.substr(i)) +
              "' (examples: 500ms, 60s, 10m, 2h, 1m30s)";
      return false;
    }
    std::uint64_t number = 0;
    if (!parse_u64(text.substr(digits_begin, i - digits_begin), number) ||
        number > static_cast<std::uint64_t>(kMaxDurationMs)) {
      error = "duration '" + shown + "' is too large (at most 30 days)";
      return false;
    }
    const std::size_t unit_begin = i;
    while (i < text.size() && (text[i] < '0' || text[i] > '9')) ++i;
    const std::string_view unit = text.substr(unit_begin, i - unit_begin);
    DurationMs scale = 0;
    if (unit == "ms") {
      scale = 1;
    } else if (unit == "s") {
      scale = kSecondMs;
    } else if (unit == "m") {
      scale = kMinuteMs;
    } else if (unit == "h") {
      scale = kHourMs;
    } else if (unit.empty()) {
      error = "duration '" + shown + "' needs a unit: ms, s, m or h (e.g. 60s)";
      return false;
    } else {
      error =
          "duration '" + shown + "': unknown unit '" + std::string(unit) + "' (use ms, s, m or h)";
      return false;
    }
    WSIM_ASSERT_GT(scale, 0);  // Every unit accepted above has its scale.
    const auto part = static_cast<DurationMs>(number);
    if (part > (kMaxDurationMs - total) / scale) {
      error = "duration '" + shown + "' is too large (at most 30 days)";
      return false;
    }
    total += part * scale;
    WSIM_ASSERT_LE(total, kMaxDurationMs);  // The overflow check above keeps the bound.
  }
  WSIM_ASSERT_GE(total, 0);
  duration_ms = total;
  return true;
}

std::string format_duration_ms(DurationMs duration_ms) {
  char buffer[64];
  const bool negative = duration_ms < 0;
  const std::uint64_t ms = negative ? static_cast<std::uint64_t>(-(duration_ms + 1)) + 1
                                    : static_cast<std::uint64_t>(duration_ms);
  const char* sign = negative ? "-" : "";
  if (ms < 1000) {
    std::snprintf(buffer, sizeof buffer, "%s%llums", sign, static_cast<unsigned long long>(ms));
  } else if (ms < 60'000) {
    std::snprintf(buffer, sizeof buffer, "%s%llu.%03llus", sign,
                  static_cast<unsigned long long>(ms / 1000),
                  static_cast<unsigned long long>(ms % 1000));
  } else if (ms < 3'600'000) {
    std::snprintf(buffer, sizeof buffer, "%s%llum%02llu.%03llus", sign,
                  static_cast<unsigned long long>(ms / 60'000),
                  static_cast<unsigned long long>(ms / 1000 % 60),
                  static_cast<unsigned long long>(ms % 1000));
  } else {
    std::snprintf(buffer, sizeof buffer, "%s%lluh%02llum%02llu.%03llus", sign,
                  static_cast<unsigned long long>(ms / 3'600'000),
                  static_cast<unsigned long long>(ms / 60'000 % 60),
                  static_cast<unsigned long long>(ms / 1000 % 60),
                  static_cast<unsigned long long>(ms % 1000));
  }
  return buffer;
}

bool parse_seed_range(std::string_view text, std::uint64_t& first, std::uint64_t& last,
                      std::uint64_t count_max, std::string& error) {
  WSIM_ASSERT_GT(count_max, 0u);
  const std::size_t dots = text.find("..");
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  if (dots == std::string_view::npos) {
    if (!parse_u64(text, a)) {
      error = "seed range '" + std::string(text) + "': expected N or A..B";
      return false;
    }
    b = a;
  } else if (!parse_u64(text.substr(0, dots), a) || !parse_u64(text.substr(dots + 2), b)) {
    error = "seed range '" + std::string(text) + "': expected N or A..B";
    return false;
  }
  if (b < a) {
    error = "seed range '" + std::string(text) + "': the end is below the start";
    return false;
  }
  if (b - a >= count_max) {
    error = "seed range '" + std::string(text) + "' has more than " + std::to_string(count_max) +
            " seeds";
    return false;
  }
  first = a;
  last = b;
  WSIM_ASSERT_LE(first, last);
  WSIM_ASSERT_LT(last - first, count_max);  // At most count_max seeds.
  return true;
}

std::string format_hash(std::uint64_t hash) {
  char buffer[24];
  const int written =
      std::snprintf(buffer, sizeof buffer, "0x%016llx", static_cast<unsigned long long>(hash));
  WSIM_ASSERT_EQ(written, 18);  // Paired with parse_hash, which takes exactly 18 characters.
  return buffer;
}

bool parse_hash(std::string_view text, std::uint64_t& hash) {
  if (text.size() != 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  std::uint64_t v = 0;
  for (char c : text.substr(2)) {
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return false;
    }
    WSIM_ASSERT_LT(digit, 16);
    v = (v << 4) | static_cast<std::uint64_t>(digit);
  }
  hash = v;
  return true;
}

}  // namespace wsim::run
