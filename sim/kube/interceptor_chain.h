// InterceptorChain: the fault interceptor chain in front of the fake API server
// (docs/architecture.md §3 "faults"), with the kube.apiserver.restart outage (restart.cc).
// sim/kube internal: the ApiServer (api_server_impl.h) owns one and asks it about every client
// request before the request is applied; server_* calls never pass it.
//
// Single-threaded, runs on the event loop.
//
// Invariants (asserted):
//  1. Rules are evaluated in insertion order; the first that matches, applies and fires decides.
//  2. A rule fires at most `times` times (when limited); nothing fires after heal().
//  3. Rule ids are unique and increase; the default rules come first, installed once.
//  4. At most one outage at a time: a restart is drawn only while the server is up.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/core/fault.h"
#include "sim/core/sim.h"
#include "sim/kube/api_request.h"

namespace wsim::kube {

class WatchHub;

// The choice streams and fault points of the chain, declared by the ApiServer in its fixed order
// (api_server.cc).
struct InterceptorDraws {
  ChoiceStream api_faults;  // "kube.api.faults"
  ChoiceStream restart;     // "kube.apiserver.restart"
  FaultId restart_fault = 0;
};

class InterceptorChain {
 public:
  // What the chain decided for one request.
  struct Intercepted {
    FaultAction action;
    Status status;       // For error actions.
    std::string detail;  // For the trace: which rule / fault point.
  };

  // `watches` is ended (410) when the server restarts.
  InterceptorChain(Sim& sim, WatchHub& watches) : sim_(sim), watches_(watches) {}
  InterceptorChain(const InterceptorChain&) = delete;
  InterceptorChain& operator=(const InterceptorChain&) = delete;
  // REQUIRES: called once, before any request (the ApiServer's constructor).
  void set_draws(InterceptorDraws draws);

  // The fate of `request` from `identity`, or nullopt: it passes to the server.
  std::optional<Intercepted> intercept(const std::string& identity, const Request& request);
  // One rule per kube.api.* fault point, matching every request. REQUIRES: the chain is empty.
  void install_default_rules();
  InterceptorId add(InterceptorRule rule);
  void remove(InterceptorId id);
  void clear();
  int fired(InterceptorId id) const;

 private:
  struct Rule {
    InterceptorId id = 0;
    InterceptorRule rule;
    std::optional<FaultId> fault;
    int fired = 0;
  };

  // Whether `rule` fires on `request` (draws its fault point when it has one).
  bool fires(Rule& rule, const std::string& identity, const Request& request);
  // The response a fired rule gives (Status and trace detail).
  Intercepted outcome(const Rule& rule, const Request& request);
  // kube.apiserver.restart (restart.cc): while the server is down every request answers 503.
  std::optional<Intercepted> restart_outage();

  Sim& sim_;
  WatchHub& watches_;
  InterceptorDraws draws_;
  bool draws_set_ = false;
  std::vector<Rule> rules_;
  InterceptorId next_rule_id_ = 1;
  TimeMs down_until_ms_ = -1;  // The current outage ends here; -1 = none yet.
};

}  // namespace wsim::kube
