// Shared fixture for the fake API server's conformance tests (api_*_test.cc, informer_test.cc,
// inventory_test.cc): one Sim + ApiServer, object builders, and run() to drive a client
// coroutine to completion on the event loop.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/client.h"
#include "sim/kube/object.h"

namespace wsim::kube::testing {

inline Object make_namespace(const std::string& name) {
  Object o;
  o.kind = "Namespace";
  o.meta.name = name;
  return o;
}

inline Object make_object(const std::string& kind, const std::string& ns, const std::string& name) {
  Object o;
  o.kind = kind;
  o.meta.namespace_ = ns;
  o.meta.name = name;
  return o;
}

inline Object make_configmap(const std::string& ns, const std::string& name, Fields data = {}) {
  Object o = make_object("ConfigMap", ns, name);
  o.data = std::move(data);
  return o;
}

inline Object make_deployment(const std::string& ns, const std::string& name,
                              const std::string& replicas = "1") {
  Object o = make_object("Deployment", ns, name);
  o.spec["replicas"] = replicas;
  return o;
}

inline Object make_pod(const std::string& ns, const std::string& name,
                       const std::string& node = "") {
  Object o = make_object("Pod", ns, name);
  if (!node.empty()) o.spec["nodeName"] = node;
  return o;
}

template <typename T>
Task<void> capture(Task<T> task, std::optional<T>* out) {
  out->emplace(co_await std::move(task));
}

class KubeTest : public ::testing::Test {
 protected:
  explicit KubeTest(ApiServerOptions options = {}, std::uint64_t seed = 1)
      : sim(ChoiceSource::from_seed(seed)), api(sim, options) {}

  // Runs `task` as an actor until it finishes (or `limit_ms` of virtual time passes) and
  // returns its result.
  template <typename T>
  T run(Task<T> task, DurationMs limit_ms = 10 * kMinuteMs) {
    std::optional<T> out;
    sim.loop().spawn("test", capture(std::move(task), &out));
    const TimeMs until = sim.now_ms() + limit_ms;
    while (!out && sim.loop().pending_events() > 0 && !sim.loop().stop_requested()) {
      if (!sim.loop().step()) break;
      if (sim.now_ms() > until) break;
    }
    EXPECT_TRUE(out.has_value()) << "the client task did not finish";
    if (!out) return T{};
    return std::move(*out);
  }

  // Advances virtual time, running every event due.
  void advance(DurationMs delay_ms) { sim.loop().run_until(sim.now_ms() + delay_ms); }

  // Creates through the server (no latency, no faults) and expects success.
  Object must_create(Object object) {
    auto result = api.server_create(std::move(object), "test");
    EXPECT_TRUE(result.ok()) << result.status.message;
    return result.value;
  }

  const Object* peek(const std::string& kind, const std::string& ns, const std::string& name) {
    return api.peek(ObjectRef{kind, ns, name});
  }

  Sim sim;
  ApiServer api;
};

}  // namespace wsim::kube::testing
