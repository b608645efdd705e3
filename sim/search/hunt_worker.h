// The worker process of a hunt (hunt.h) and the line format it speaks to the parent.
//
// A worker runs its share of the seeds with recording and trace storage off and writes, per run,
// one line per probe the run reached, "P <hits> <name>", then
//   R <local index> <seed> then per finding (run_findings): <exit code> <invariant> <label>
// and, when it stops normally, "E". Probes travel per run so that a worker killed in a long run
// (the stop's grace period, hunt_pool.h) loses only that run's hits, not its whole tally (a
// 1,000-workspace hunt used to report "0 probes reached"). Tokens never contain blanks
// (token()). SIGTERM is honoured between runs; SIGINT is ignored (the parent decides).
// Single-threaded: the worker is a forked process, not a thread (STYLE.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/run/driver.h"
#include "sim/run/verdict.h"
#include "sim/search/hunt.h"

namespace wsim::run {

// What one run found: its masked (known) safety violations, then the violation that decided
// its verdict (or its harness error). `known` is a KnownBug::name, "NEW" or "-" (no labels).
struct RunFinding {
  Verdict verdict = Verdict::kPass;
  std::string invariant;
  std::string known;
};

// The findings of `result`; with `unmasked`, each is labelled (KnownBug::name or "NEW").
std::vector<RunFinding> run_findings(const RunResult& result, bool unmasked);

// `text` with blanks replaced by '_' ("-" when empty): one whitespace-free token of a line.
std::string wire_token(std::string_view text);

// The verdict an exit code stands for (codes other than pass/safety/liveness: harness error).
Verdict verdict_of_code(int code);

// Writes every byte of `bytes` to `fd` (retrying on EINTR); false on a write error.
bool write_all(int fd, std::string_view bytes);

// The worker: runs the shard-local run indices first_index, first_index + stride, ... of
// `options` (shard_run_index; within the run budget), writes to `fd`, and exits the process.
// REQUIRES: stride >= 1; called in a freshly forked child with SIGTERM blocked.
[[noreturn]] void worker_main(const HuntOptions& options, int fd, std::uint64_t first_index,
                              std::uint64_t stride);

}  // namespace wsim::run
