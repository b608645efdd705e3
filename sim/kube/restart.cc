// kube.apiserver.restart: the API server goes away for a while (an upgrade, a crash, a
// control-plane node replaced) [invented: the fault, its odds and its 5–60 s length].
//
// What a client sees follows client-go (tools/cache/reflector.go, v0.32.0): its watch connection
// drops, the re-watch fails while the server is down, and the new server's watch cache starts
// at the current resourceVersion, so a re-watch from an older one is answered 410 Gone
// ("too old resource version"); either way the reflector relists after its backoff
// (informer.cc). We end every open watch with 410 at the restart, which is the same for the
// informers and simpler. While the server is down every request is answered 503 without being
// applied (a load balancer in front of a control plane with no healthy server), reads, lists
// and watches included. The server-side listeners of the built-in controllers are not clients
// here and keep running (sim/kube/README.md "Known limitations"). heal() ends an outage at once.
#include <string>

#include "sim/core/time.h"
#include "sim/kube/interceptor_chain.h"
#include "sim/kube/watch_hub.h"

namespace wsim::kube {

namespace {

constexpr DurationMs kDownMinMs = 5 * kSecondMs;
constexpr DurationMs kDownMaxMs = 60 * kSecondMs;

}  // namespace

std::optional<InterceptorChain::Intercepted> InterceptorChain::restart_outage() {
  const TimeMs now = sim_.now_ms();
  if (now >= down_until_ms_) {
    // Evaluated only while the server is up: one restart at a time.
    if (!sim_.faults().fires(draws_.restart_fault, draws_.restart)) return std::nullopt;
    const DurationMs down_ms = draws_.restart.range(kDownMinMs, kDownMaxMs);
    WSIM_ASSERT_GE(down_ms, kDownMinMs);
    WSIM_ASSERT_LE(down_ms, kDownMaxMs);
    down_until_ms_ = now + down_ms;
    sim_.record("kube-apiserver", "restart", "kube-apiserver", "down",
                std::string("fault ") + kFaultApiServerRestart + ": unavailable for " +
                    std::to_string(down_ms) + " ms, every watch ends with 410 Gone");
    watches_.expire_all("");
    WSIM_ASSERT_EQ(watches_.open_count(), 0u);  // Every watch ended with the server.
  }
  WSIM_ASSERT_LT(now, down_until_ms_);
  Intercepted out;
  out.action = FaultAction::kServiceUnavailable;
  out.status = Status::Error(Code::kServiceUnavailable,
                             "the server is currently unable to handle the request");
  out.detail = std::string("fault ") + kFaultApiServerRestart + " (server down)";
  return out;
}

}  // namespace wsim::kube
