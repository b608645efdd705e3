// The harness self-test system ("selftest", proto::SelftestConfig): a few ticker actors on the
// event loop, no model, no Kubernetes. It scripts exact verdicts so the run layer's tests can pin
// phases, verdicts, bundles and exit codes without depending on a real system.
//
//   version ok      passes;
//   version unsafe  violates selftest.S1 at the first tick after violate_after_ms;
//   version stuck   fails liveness selftest.L1 (and L2) at the end;
//   version twice   violates selftest.S1 once (first tick after violate_after_ms), then
//                   selftest.S2 once (first tick after 2 × violate_after_ms): two different bugs
//                   in one run (going past a known one, issue #12);
//   version crash   aborts on an assertion after three ticks (a harness bug).
// Fault point selftest.glitch (enable 1/2, fire 1/10) records a "glitch" on a tick; probes
// selftest.glitch (reached when a glitch fires) and selftest.never (never reached).
// Scripted actions: `user tick ticker-N` (one extra tick), `user fail x` (perform fails: a harness
// error at run time).
#pragma once

namespace wsim::selftest {

void register_selftest_system();

}  // namespace wsim::selftest
