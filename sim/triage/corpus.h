// The regression corpus (docs/architecture.md §7): corpus/regressions/<system>/<name>.textproto,
// one readable scenario per known failure with its expected verdicts (`expect { when {...} }`),
// replayed by ctest (tests/run/corpus_replay_test.cc and the per-system corpus tests).
//
// `wsim corpus add BUNDLE [--name SLUG]` turns a failure bundle into such a file:
//   1. the bundle's scenario is re-run FROM ITS SEED (a corpus file has no choice record): it must
//      fail with the bundle's invariant. Bundles that only reproduce through their choices.bin
//      (a libFuzzer input, a shrunk bundle) are refused with a hint: write the scripted
//      scenario from the bundle's external events (shrink.txt, trace.txt) by hand.
//   2. expectations: the failure for the bundle's versions (every version axis in `when`), and
//      whatever the same scenario gives on the latest versions (normally PASS: the fix).
//   3. the file corpus/regressions/<system>/<invariant>-s<seed>-<slug>.textproto is written
//      atomically (temporary file, fsync, rename) and never overwrites an existing one.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace wsim::run {

struct CorpusAddCommand {
  std::string bundle;
  std::string name;                               // Slug; default "regression".
  std::string corpus_dir = "corpus/regressions";  // --corpus DIR
};

int cmd_corpus_add(const CorpusAddCommand& command, std::ostream& out, std::ostream& err);

// "L1-s3-limbo": the file stem for a failure (invariant without the system prefix, the seed and
// the slug), only [A-Za-z0-9_-].
std::string corpus_stem(const std::string& invariant, std::uint64_t seed, const std::string& slug);

}  // namespace wsim::run
