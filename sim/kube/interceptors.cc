// The fault interceptor chain of the fake API server (interceptor_chain.h; docs/architecture.md
// §3 "faults").
//
// Every client request passes the rules in insertion order; the first rule that matches, applies
// to the verb and fires decides the request's fate. Rules tied to a fault point fire through
// sim.faults().fires() (swarm enable, per-evaluation ratio, heal); scripted rules fire
// deterministically. After heal() nothing fires. A rule that does not fire consumes at most one
// choice, and choice 0 always means "does not fire".
#include <string>

#include "sim/kube/interceptor_chain.h"

namespace wsim::kube {

namespace {

// Whether `action` can happen to `request`. A Conflict needs a write the real API server can
// answer 409: an update (stale resourceVersion), a patch or delete carrying a precondition. A
// merge patch or a delete without a precondition never conflicts in Kubernetes, so a fault point
// must not invent one there; a rule that names the verb explicitly (a scripted "the next delete
// of Namespace X answers Conflict") still applies. Every other action can happen to any request,
// reads and watches included.
bool applicable(const InterceptorRule& rule, const Request& request) {
  WSIM_ASSERT_GE(rule.times, -1);
  if (rule.action != FaultAction::kConflict) return true;
  if (rule.match.verb && *rule.match.verb == request.verb) return true;
  switch (request.verb) {
    case Verb::kUpdate:
      return true;
    case Verb::kPatch:
      return request.patch.precondition_resource_version.has_value();
    case Verb::kDelete:
      return request.delete_options.precondition_uid.has_value() ||
             request.delete_options.precondition_resource_version.has_value();
    default:
      return false;
  }
}

bool matches(const RequestMatch& match, const std::string& identity, const Request& request) {
  // Requests reach the chain normalized (send()): a cluster-scoped kind has no namespace.
  WSIM_ASSERT(request.ref.namespace_.empty() || !is_cluster_scoped(request.ref.kind));
  if (match.verb && *match.verb != request.verb) return false;
  if (!match.kind.empty() && match.kind != request.ref.kind) return false;
  if (!match.namespace_.empty() && match.namespace_ != request.ref.namespace_) return false;
  if (!match.name.empty() && match.name != request.ref.name) return false;
  if (!match.identity.empty() && match.identity != identity) return false;
  return true;
}

std::string conflict_message(const Request& request) {
  return "Operation cannot be fulfilled on " + request.ref.kind + " \"" + request.ref.name +
         "\": the object has been modified; please apply your changes to the latest version "
         "and try again";
}

}  // namespace

const char* fault_action_name(FaultAction action) {
  switch (action) {
    case FaultAction::kConflict:
      return "conflict";
    case FaultAction::kError5xx:
      return "error5xx";
    case FaultAction::kInternalError:
      return "internal_error";
    case FaultAction::kServiceUnavailable:
      return "service_unavailable";
    case FaultAction::kThrottle:
      return "throttle";
    case FaultAction::kLoseRequest:
      return "lose_request";
    case FaultAction::kLoseResponse:
      return "lose_response";
  }
  WSIM_ASSERT_MSG(false, "fault_action_name: not a FaultAction: " << static_cast<int>(action));
  return "unknown";
}

void InterceptorChain::set_draws(InterceptorDraws draws) {
  WSIM_ASSERT(!draws_set_);  // Declared once, by the ApiServer's constructor.
  WSIM_ASSERT_EQ(down_until_ms_, -1);
  draws_ = std::move(draws);
  draws_set_ = true;
}

std::optional<InterceptorChain::Intercepted> InterceptorChain::intercept(
    const std::string& identity, const Request& request) {
  WSIM_ASSERT(draws_set_);
  if (sim_.faults().healed()) return std::nullopt;
  if (sim_.faults().has_pins()) {
    // Request pins count the requests that reach the server, one trace event each (client.cc),
    // so the N-th of a pin is the N-th such trace event (docs/shrinking.md §6).
    std::string object;
    sim_.faults().observe_request(
        FaultRequest{verb_name(request.verb), request_object(request, object), identity});
  }
  if (auto down = restart_outage()) return down;
  for (Rule& rule : rules_) {
    if (!fires(rule, identity, request)) continue;
    return outcome(rule, request);
  }
  return std::nullopt;
}

bool InterceptorChain::fires(Rule& rule, const std::string& identity, const Request& request) {
  const InterceptorRule& r = rule.rule;
  if (r.times >= 0 && rule.fired >= r.times) return false;
  if (!matches(r.match, identity, request) || !applicable(r, request)) return false;
  if (rule.fault && !sim_.faults().fires(*rule.fault, draws_.api_faults)) return false;
  ++rule.fired;
  if (r.times >= 0) WSIM_ASSERT_LE(rule.fired, r.times);  // A rule fires at most `times`.
  WSIM_ASSERT_GT(rule.fired, 0);
  return true;
}

InterceptorChain::Intercepted InterceptorChain::outcome(const Rule& rule, const Request& request) {
  WSIM_ASSERT_GT(rule.fired, 0);  // Only a rule that fired decides.
  const InterceptorRule& r = rule.rule;
  Intercepted out;
  out.action = r.action;
  out.detail = rule.fault ? "fault " + sim_.faults().point(*rule.fault).name
                          : "scripted fault #" + std::to_string(rule.id) + " (" +
                                fault_action_name(r.action) + ")";
  switch (r.action) {
    case FaultAction::kConflict:
      out.status =
          Status::Error(Code::kConflict, r.message.empty() ? conflict_message(request) : r.message);
      break;
    case FaultAction::kError5xx:
    case FaultAction::kInternalError:
    case FaultAction::kServiceUnavailable: {
      bool unavailable = r.action == FaultAction::kServiceUnavailable;
      if (r.action == FaultAction::kError5xx) unavailable = draws_.api_faults.below(2) == 1;
      out.status =
          unavailable
              ? Status::Error(Code::kServiceUnavailable,
                              r.message.empty() ? "the server is currently unable to handle the "
                                                  "request"
                                                : r.message)
              : Status::Error(Code::kInternalError,
                              r.message.empty() ? "Internal error occurred: etcdserver: request "
                                                  "timed out"
                                                : r.message);
      break;
    }
    case FaultAction::kThrottle:
      out.status =
          Status::Error(Code::kTooManyRequests,
                        r.message.empty() ? "the server has received too many requests and has "
                                            "asked us to try again later"
                                          : r.message);
      break;
    case FaultAction::kLoseRequest:
    case FaultAction::kLoseResponse:
      break;
  }
  // Error actions carry an error; the lost ones none (the client times out).
  const bool lost = r.action == FaultAction::kLoseRequest || r.action == FaultAction::kLoseResponse;
  WSIM_ASSERT_EQ(out.status.ok(), lost);
  return out;
}

void InterceptorChain::install_default_rules() {
  WSIM_ASSERT(rules_.empty());  // First in the chain: installed by the constructor, once.
  WSIM_ASSERT_EQ(next_rule_id_, 1u);
  struct Default {
    const char* fault;
    FaultAction action;
  };
  // Order matters only when several fire on one request: the first wins.
  static constexpr Default kDefaults[] = {
      {kFaultConflict, FaultAction::kConflict},
      {kFaultError5xx, FaultAction::kError5xx},
      {kFaultThrottle, FaultAction::kThrottle},
      {kFaultLostRequest, FaultAction::kLoseRequest},
      {kFaultLostResponse, FaultAction::kLoseResponse},
  };
  for (const Default& d : kDefaults) {
    InterceptorRule rule;
    rule.action = d.action;
    rule.fault = d.fault;
    Rule entry;
    entry.id = next_rule_id_++;
    FaultId id = 0;
    WSIM_ASSERT(sim_.faults().find(d.fault, id));
    entry.fault = id;
    entry.rule = std::move(rule);
    rules_.push_back(std::move(entry));
  }
  WSIM_ASSERT_EQ(rules_.size(), std::size(kDefaults));
}

InterceptorId InterceptorChain::add(InterceptorRule rule) {
  Rule entry;
  entry.id = next_rule_id_++;
  if (!rule.fault.empty()) {
    FaultId id = 0;
    WSIM_ASSERT_MSG(sim_.faults().find(rule.fault, id),
                    "interceptor rule names an undeclared fault point: " << rule.fault);
    sim_.faults().set_per_request(id);
    entry.fault = id;
  }
  entry.rule = std::move(rule);
  // Ids increase along the chain (invariant 3).
  if (!rules_.empty()) WSIM_ASSERT_LT(rules_.back().id, entry.id);
  rules_.push_back(std::move(entry));
  return rules_.back().id;
}

void InterceptorChain::remove(InterceptorId id) {
  WSIM_ASSERT_NE(id, 0u);
  WSIM_ASSERT_LT(id, next_rule_id_);  // Only ids this chain handed out.
  std::erase_if(rules_, [id](const Rule& rule) { return rule.id == id; });
}

void InterceptorChain::clear() { rules_.clear(); }

int InterceptorChain::fired(InterceptorId id) const {
  WSIM_ASSERT_NE(id, 0u);
  for (const Rule& rule : rules_) {
    if (rule.id == id) return rule.fired;
  }
  return 0;
}

}  // namespace wsim::kube
