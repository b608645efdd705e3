// Scenario files come from other people's machines (docs/architecture.md §10): any input must end
// in a clear error or a valid scenario — never a crash, a hang or an unbounded allocation. The
// input is scenario text; the same bytes also go through decode_choice_record (choices.bin). Valid
// scenarios are validated (which dry-runs their scripted events) but not run.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "model/all_systems/all_systems.h"
#include "sim/core/choice.h"
#include "sim/run/scenario.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  wsim::register_all_systems();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  {
    std::vector<wsim::Choice> record;
    std::string error;
    if (!wsim::decode_choice_record(text, record, error) && error.empty()) {
      std::fprintf(stderr, "decode_choice_record failed without an error message\n");
      std::abort();
    }
  }
  wsim::run::LoadedScenario loaded;
  std::string error;
  if (!wsim::run::parse_scenario(text, "fuzz-input", loaded, error)) {
    if (error.empty()) {
      std::fprintf(stderr, "parse_scenario failed without an error message\n");
      std::abort();
    }
    return 0;
  }
  // Keep validation cheap: the dry run of scripted events builds a whole system per scenario.
  if (loaded.scenario.events_size() > 64) return 0;
  if (!wsim::run::validate_scenario(loaded, error)) {
    if (error.empty()) {
      std::fprintf(stderr, "validate_scenario failed without an error message\n");
      std::abort();
    }
    return 0;
  }
  if (loaded.system == nullptr) {
    std::fprintf(stderr, "validate_scenario succeeded without selecting a system\n");
    std::abort();
  }
  return 0;
}
