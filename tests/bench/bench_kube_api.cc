// Fake-API throughput (docs/architecture.md §9): operations per second through the full client path
// (latency draw, fault chain, RBAC, store, watch fan-out, response), and through the server-side
// path the built-in controllers use.
#include <benchmark/benchmark.h>

#include <string>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"
#include "sim/kube/cluster.h"

namespace wsim::kube {
namespace {

Object config_map(const std::string& ns, const std::string& name) {
  Object object;
  object.kind = "ConfigMap";
  object.meta.namespace_ = ns;
  object.meta.name = name;
  object.meta.labels["app"] = "bench";
  object.data["k"] = "v";
  return object;
}

// One actor does create → get → update → list → delete for `rounds` objects: 5 requests each.
Task<void> client_loop(Client client, int rounds, std::uint64_t& ops) {
  for (int i = 0; i < rounds; ++i) {
    const std::string name = "cm-" + std::to_string(i);
    Result<Object> created = co_await client.create(config_map("default", name));
    ObjectRef ref("ConfigMap", "default", name);
    Result<Object> got = co_await client.get(ref);
    got.value.data["k"] = "w";
    co_await client.update(got.value);
    co_await client.list("ConfigMap", "default");
    co_await client.remove(ref);
    ops += 5;
    benchmark::DoNotOptimize(created);
  }
}

void BM_ClientRequests(benchmark::State& state) {
  const int actors = static_cast<int>(state.range(0));
  std::uint64_t ops = 0;
  for (auto _ : state) {
    Sim sim(ChoiceSource::from_seed(1));
    sim.trace().set_keep_events(false);
    Cluster cluster(sim);
    cluster.start();
    for (int a = 0; a < actors; ++a) {
      sim.loop().spawn("client", client_loop(cluster.client("bench-" + std::to_string(a)), 200,
                                             ops));
    }
    sim.loop().run_until_idle(INT64_MAX);
  }
  state.counters["api_ops/s"] =
      benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ClientRequests)->Arg(1)->Arg(10)->Unit(benchmark::kMillisecond);

void BM_ServerSideWrites(benchmark::State& state) {
  std::uint64_t ops = 0;
  for (auto _ : state) {
    Sim sim(ChoiceSource::from_seed(1));
    sim.trace().set_keep_events(false);
    ApiServer server(sim);
    Object ns;
    ns.kind = "Namespace";
    ns.meta.name = "default";
    server.server_create(ns, "bench");
    for (int i = 0; i < 2000; ++i) {
      const std::string name = "cm-" + std::to_string(i);
      Result<Object> created = server.server_create(config_map("default", name), "bench");
      created.value.data["k"] = "w";
      server.server_update(created.value, Subresource::kMain, "bench");
      server.server_delete(ObjectRef("ConfigMap", "default", name), DeleteOptions{}, "bench");
      ops += 3;
    }
  }
  state.counters["server_ops/s"] =
      benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ServerSideWrites)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wsim::kube
