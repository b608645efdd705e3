// Not a port: the names of the versions and modelling switches (versions.h) [invented].
#include "model/gitlab/versions.h"

#include <array>
#include <utility>

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

template <typename Enum, std::size_t N>
std::optional<Enum> lookup(const std::array<std::pair<std::string_view, Enum>, N>& table,
                           std::string_view text) {
  for (const auto& [name, value] : table) {
    if (name == text) return value;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<std::string_view, AgentVersion>, 5> kAgents = {{
    {"A0a", AgentVersion::kA0a},
    {"A0b", AgentVersion::kA0b},
    {"A1", AgentVersion::kA1},
    {"A2", AgentVersion::kA2},
    {"A3", AgentVersion::kA3},
}};
constexpr std::array<std::pair<std::string_view, RailsVersion>, 4> kRails = {{
    {"R0", RailsVersion::kR0},
    {"R1", RailsVersion::kR1},
    {"R2", RailsVersion::kR2},
    {"R3", RailsVersion::kR3},
}};
constexpr std::array<std::pair<std::string_view, NamespaceMode>, 2> kModes = {{
    {"unique", NamespaceMode::kUnique},
    {"shared", NamespaceMode::kShared},
}};
constexpr std::array<std::pair<std::string_view, A3Termination>, 6> kA3Terminations = {{
    {"plan", A3Termination::kPlan},
    {"inventory_delete", A3Termination::kInventoryDelete},
    {"destroy_by_apply", A3Termination::kDestroyByApply},
    {"deployment_absence", A3Termination::kDeploymentAbsence},
    {"namespace_delete", A3Termination::kNamespaceDelete},
    {"inventory_first", A3Termination::kInventoryFirst},
}};

}  // namespace

std::vector<std::string> a3_termination_names() {
  std::vector<std::string> out;
  for (const auto& [name, value] : kA3Terminations) out.emplace_back(name);
  // The default first (versions.h): the axis lists it as the latest value (system.cc).
  WSIM_ASSERT(kA3Terminations.front().second == Versions{}.a3_termination);
  return out;
}

std::string_view agent_name(AgentVersion version) {
  for (const auto& [name, value] : kAgents) {
    if (value == version) return name;
  }
  WSIM_ASSERT_MSG(false, "agent version " << static_cast<int>(version) << " has no name");
  return "?";
}

std::string_view rails_name(RailsVersion version) {
  for (const auto& [name, value] : kRails) {
    if (value == version) return name;
  }
  WSIM_ASSERT_MSG(false, "rails version " << static_cast<int>(version) << " has no name");
  return "?";
}

std::string_view mode_name(NamespaceMode mode) {
  WSIM_ASSERT(mode == NamespaceMode::kShared || mode == NamespaceMode::kUnique);
  return mode == NamespaceMode::kShared ? "shared" : "unique";
}

std::optional<AgentVersion> parse_agent(std::string_view text) { return lookup(kAgents, text); }
std::optional<RailsVersion> parse_rails(std::string_view text) { return lookup(kRails, text); }
std::optional<NamespaceMode> parse_mode(std::string_view text) { return lookup(kModes, text); }

std::optional<SyncedFlagRule> parse_synced_flag(std::string_view text) {
  constexpr std::array<std::pair<std::string_view, SyncedFlagRule>, 2> kTable = {{
      {"after_exchange", SyncedFlagRule::kAfterExchange},
      {"on_repeated_set", SyncedFlagRule::kOnRepeatedSet},
  }};
  return lookup(kTable, text);
}

std::optional<A3Termination> parse_a3_termination(std::string_view text) {
  return lookup(kA3Terminations, text);
}

std::optional<MissingInventoryRule> parse_missing_inventory(std::string_view text) {
  constexpr std::array<std::pair<std::string_view, MissingInventoryRule>, 2> kTable = {{
      {"terminated", MissingInventoryRule::kTerminated},
      {"terminating_forever", MissingInventoryRule::kTerminatingForever},
  }};
  return lookup(kTable, text);
}

std::string describe(const Versions& versions) {
  std::string out(agent_name(versions.agent));
  out += '+';
  out += rails_name(versions.rails);
  out += ' ';
  out += mode_name(versions.mode);
  return out;
}

}  // namespace wsim::gitlab
