// Not a port: version names and parsing (versions.h).
#include "model/gitpod/versions.h"

#include <array>
#include <utility>

#include "sim/core/assert.h"

namespace wsim::gitpod {
namespace {

constexpr std::array<std::pair<std::string_view, ManagerEra>, 4> kEras = {{
    {"mk1-plis-direct", ManagerEra::kMk1PlisDirect},
    {"mk1-plis", ManagerEra::kMk1Plis},
    {"mk1-finalizer", ManagerEra::kMk1Finalizer},
    {"mk2", ManagerEra::kMk2},
}};

constexpr std::array<std::pair<std::string_view, Fix>, 7> kFixes = {{
    {"16622", Fix::k16622},
    {"16997", Fix::k16997},
    {"17599", Fix::k17599},
    {"19411", Fix::k19411},
    {"20243", Fix::k20243},
    {"20372", Fix::k20372},
    {"20382", Fix::k20382},
}};

}  // namespace

std::string_view era_name(ManagerEra era) {
  for (const auto& [name, value] : kEras) {
    if (value == era) return name;
  }
  WSIM_ASSERT_MSG(false, "unknown era " << static_cast<int>(era));
  return "?";
}

std::optional<ManagerEra> parse_era(std::string_view text) {
  for (const auto& [name, value] : kEras) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::optional<Fix> parse_fix(std::string_view text) {
  if (!text.empty() && text.front() == '#') text.remove_prefix(1);
  for (const auto& [name, value] : kFixes) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::string_view fix_name(Fix fix) {
  for (const auto& [name, value] : kFixes) {
    if (value == fix) return name;
  }
  WSIM_ASSERT_MSG(false, "unknown fix " << static_cast<std::uint32_t>(fix));
  return "?";
}

std::vector<Fix> all_fixes() {
  std::vector<Fix> out;
  for (const auto& entry : kFixes) out.push_back(entry.second);
  WSIM_ASSERT_EQ(out.size(), 7u);
  return out;
}

std::string describe(const Versions& versions) {
  std::string out(era_name(versions.era));
  if (!versions.mk2()) return out;
  WSIM_ASSERT_EQ(versions.fixes & ~kAllFixes, 0u);  // Only known fixes are switched on.
  for (Fix fix : all_fixes()) {
    if (versions.has(fix)) {
      out += " +";
      out += fix_name(fix);
    }
  }
  return out;
}

}  // namespace wsim::gitpod
