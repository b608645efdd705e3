// Registers every system under test of model/ with the run layer's registry
// (sim/run/system.h): the `wsim` CLI, every fuzz/ target and the tests that need the real
// systems call it, so the list of systems exists in one place — the model/<system>/ folders that
// call wsim_add_system() in their CMakeLists.txt (model/all_systems/CMakeLists.txt generates the
// definition).
//
// Single-threaded; idempotent (a system registered twice keeps its first registration), so tests
// may call it from every test case.
#pragma once

namespace wsim {

void register_all_systems();

}  // namespace wsim
