// `wsim bench-signatures` (hidden; scripts/bench-signatures, docs/signatures.md): how well finding
// signatures (signature.h) name the corpus's bugs.
//
// For every corpus bug (corpus_bugs.h) it hunts up to `instances` violations of the bug's
// invariant from its hunting scenario (seeds 0, 1, ..., at most `runs_max` runs; each run first
// without the trace, re-run with it when it violates that invariant) and labels each instance with
// match_known over the whole corpus. Bugs hunted by the same scenario for the same invariant,
// and the expectations of one corpus file (one bug on several versions) or of files with one
// `bug` id (one bug pinned by several files), are one GROUP: a hunt cannot tell which of them it
// found, so a label anywhere in the group is right.
//   recall(B)    = instances of B's hunt labelled B (strict) / in B's group (group);
//   precision(B) = instances labelled B that come from a hunt of B's group / all labelled B;
//   NEW when left out(B) = instances of B's hunt labelled NEW against the corpus without B's
//                  group: how a bug the corpus does not know fares (the rest are masked).
// Counterfactual ground truth (docs/signatures.md): "every violation of B's invariant in B's hunt
// is B" is false where the versions have several bugs of one invariant. Where the corpus gives a
// bug a fix switch (corpus_bugs.h FixSwitch: a PASS block of its file, a fix its fixes list
// lacks; checked on its own script), each instance is replayed with the same seed and swarm and
// the switch on:
//   - with its hunt's bug B's switch (one that spares the label's script when the label is
//     another bug): gone → the instance is B; persists → it is not B (a B label is wrong, another
//     label unknown and left out);
//   - with its label L's switch, when L is another bug (one that spares B's script): gone → the
//     label is right;
//   - without evidence (no switch applies, or the replay stopped at another safety violation
//     first) the current ground truth holds.
// Recall, precision and NEW when left out against it are printed beside the current figures,
// with two controls: the candidates that do not fix B's script (placebos), and a switch of a
// third bug of the same invariant that spares both scripts; both should rarely make a violation
// vanish.
// Output: a Markdown table, one row per bug, then the totals, then the counterfactual table and
// totals, then the totals of each component of the match rule (MatchOptions) on and off under
// both groupings (by hunt only, and by hunt or file). Single process; deterministic.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace wsim::run {

struct BenchSignaturesCommand {
  std::string corpus_dir = "corpus/regressions";
  int instances = 10;
  std::uint64_t runs_max = 400;
  std::string only;   // Substring of the bug names to bench; empty = all.
  bool dump = false;  // Print each instance's signature and counterfactual outcomes to `err`.
};
int cmd_bench_signatures(const BenchSignaturesCommand& command, std::ostream& out,
                         std::ostream& err);

}  // namespace wsim::run
