// What ran as an external reconciler, recorded in the scenario of its runs and bundles
// (proto::ExternalConfig command / workdir / digest): `wsim explain` prints it, and
// `wsim replay BUNDLE -- COMMAND` warns when the COMMAND given is not the one recorded.
//
// The digest is FNV-1a 64 over the argv (each argument with its length), the working
// directory, and for every argument naming a regular file (relative to the working directory)
// its bytes (at most kDigestFileBytesMax of each); argv[0] found through PATH counts by its
// resolved path and size only (interpreters are large and not what changes). [invented]
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "serve/external_system.h"
#include "sim/proto/scenario.pb.h"

namespace wsim::serve {

inline constexpr std::size_t kDigestFileBytesMax = 16u << 20;

// "fnv1a64:0x<16 hex digits>" of `argv` run in `workdir` (see above).
std::string command_digest(const std::vector<std::string>& argv, const std::string& workdir);

// The current working directory, or "" when it cannot be read.
std::string current_workdir();

// Sets scenario.external's command, workdir (the current one) and digest for `argv`, and the
// clock it runs on (external.vclock, read back by recorded_vclock_mode).
// REQUIRES: scenario has an external config.
void record_command(proto::Scenario& scenario, const std::vector<std::string>& argv,
                    VclockMode vclock);

// "external process: ARGV (shell-quoted)\n  workdir: W\n  digest: D\n  clock: MODE\n", or a line
// saying none was recorded.
std::string describe_recorded_command(const proto::ExternalConfig& config);

// Empty when `argv` (run in the current directory) has the digest recorded in `config`, else
// a warning naming both (also when nothing was recorded).
std::string compare_with_recorded(const proto::ExternalConfig& config,
                                  const std::vector<std::string>& argv);

}  // namespace wsim::serve
