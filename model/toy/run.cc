// Not a port: the toy run (run.h) [invented].
#include "model/toy/run.h"

#include "sim/core/assert.h"
#include "sim/core/task.h"
#include "sim/run/world_oracles.h"

namespace wsim::toy {

namespace {

constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
constexpr int kDeployments = 3;
constexpr int kIncrementAttempts = 5;
constexpr DurationMs kKeeperResyncMs = 5 * kSecondMs;

// Parses a non-negative decimal count; false for anything else.
bool parse_count(const std::string& text, std::int64_t& count) {
  if (text.empty() || text.size() > 18) return false;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  count = value;
  return true;
}

kube::Object make_counter(const std::string& namespace_, const std::string& name) {
  kube::Object object;
  object.kind = "ConfigMap";
  object.meta.namespace_ = namespace_;
  object.meta.name = name;
  object.meta.labels[kManagedByLabel] = "toy";
  object.data["count"] = "0";
  return object;
}

kube::Object make_deployment(const std::string& namespace_, const std::string& name) {
  kube::Object object;
  object.kind = "Deployment";
  object.meta.namespace_ = namespace_;
  object.meta.name = name;
  object.meta.labels[kManagedByLabel] = "toy";
  object.spec["replicas"] = "1";
  object.spec["template.labels.app"] = name;
  return object;
}

}  // namespace

// ---- ToyRun --------------------------------------------------------------------------------

ToyRun::ToyRun(Sim& sim, ToyOptions options) : sim_(sim), options_(options) {
  kube::ClusterOptions cluster_options;
  cluster_options.nodes = 1;
  cluster_ = std::make_unique<kube::Cluster>(sim_, cluster_options);
  crash_fault_ = sim_.faults().declare(
      "toy.actor.crash", "an actor crashes between reading a counter and writing it back",
      Ratio{1, 4}, Ratio{1, 30});
  Probes& probes = sim_.probes();
  probe_conflict_retry_ =
      probes.declare("toy.conflict_retry", "an increment got 409 Conflict, re-read and retried");
  probe_stale_patch_ = probes.declare(
      "toy.stale_patch", "buggy: an increment answered Conflict wrote its stale count blindly");
  probe_create_forbidden_ = probes.declare(
      "toy.create_forbidden", "a create was refused in a Terminating namespace (Forbidden)");
  probe_namespace_recreated_ = probes.declare(
      "toy.namespace_recreated", "the keeper recreated a namespace that had been deleted");
  probe_namespace_deleted_with_counters_ = probes.declare(
      "toy.namespace_deleted_with_counters", "a namespace was deleted while holding counters");
  probe_increment_on_terminating_ = probes.declare(
      "toy.increment_in_terminating", "an increment succeeded while its namespace was Terminating");
  probe_actor_crash_ = probes.declare("toy.actor_crash", "an actor crashed mid-increment");
  probe_update_lost_response_ = probes.declare(
      "toy.update_timeout", "an increment's update timed out (applied or not: unknown)");

  // The workload mix of this run (swarm testing): choice 0 is the calmest mix.
  ChoiceStream mix = sim_.stream("toy.mix");
  static constexpr DurationMs kThinkMaxMs[] = {2000, 500, 100, 30};
  mix_.think_max_ms = kThinkMaxMs[mix.below(4)];
  mix_.increment = 20;
  mix_.relabel = static_cast<int>(mix.below(4));
  mix_.deployment = static_cast<int>(mix.below(5));
  mix_.delete_counter = static_cast<int>(mix.below(3));
  mix_.delete_namespace = static_cast<int>(mix.below(2));
}

ToyRun::~ToyRun() = default;

std::string ToyRun::namespace_name(int index) const { return "toy-" + std::to_string(index); }
std::string ToyRun::counter_name(int index) const { return "counter-" + std::to_string(index); }

bool ToyRun::valid_namespace(const std::string& name) const {
  for (int i = 0; i < options_.namespaces; ++i) {
    if (name == namespace_name(i)) return true;
  }
  return false;
}

bool ToyRun::valid_counter(const std::string& namespace_, const std::string& name) const {
  if (!valid_namespace(namespace_)) return false;
  for (int i = 0; i < options_.counters; ++i) {
    if (name == counter_name(i)) return true;
  }
  return false;
}

std::vector<std::pair<std::string, std::string>> ToyRun::swarm_parameters() const {
  return {
      {"toy.version", options_.buggy ? kVersionBuggy : kVersionT1},
      {"toy.think_max_ms", std::to_string(mix_.think_max_ms)},
      {"toy.mix", "increment=" + std::to_string(mix_.increment) +
                      " relabel=" + std::to_string(mix_.relabel) +
                      " deployment=" + std::to_string(mix_.deployment) +
                      " delete_counter=" + std::to_string(mix_.delete_counter) +
                      " delete_namespace=" + std::to_string(mix_.delete_namespace)},
  };
}

void ToyRun::start() {
  WSIM_ASSERT(!started_);
  started_ = true;
  cluster_->start();
  sim_.loop().spawn("toy/keeper", keeper());
  if (options_.scripted_only) return;
  for (int i = 0; i < options_.actors; ++i) {
    actors_.push_back(sim_.loop().spawn("toy/actor-" + std::to_string(i), actor(i)));
  }
}

ToyRun::Op ToyRun::pick(ChoiceStream& stream) const {
  const int weights[] = {mix_.increment, mix_.relabel, mix_.deployment, mix_.delete_counter,
                         mix_.delete_namespace};
  int total = 0;
  for (int w : weights) total += w;
  auto r = static_cast<int>(stream.below(static_cast<std::uint64_t>(total)));
  for (int i = 0; i < 5; ++i) {
    if (r < weights[i]) return static_cast<Op>(i);
    r -= weights[i];
  }
  return Op::kIncrement;
}

Task<void> ToyRun::actor(int index) {
  kube::Client client = cluster_->client("toy/actor-" + std::to_string(index));
  ChoiceStream stream = sim_.stream("toy.actor-" + std::to_string(index));
  while (!healed_) {
    co_await sim_.loop().sleep(stream.range(1, mix_.think_max_ms));
    if (healed_) break;
    const std::string ns = namespace_name(
        static_cast<int>(stream.below(static_cast<std::uint64_t>(options_.namespaces))));
    const std::string counter =
        counter_name(static_cast<int>(stream.below(static_cast<std::uint64_t>(options_.counters))));
    switch (pick(stream)) {
      case Op::kIncrement:
        co_await increment(client, ns, counter, stream);
        break;
      case Op::kRelabel:
        co_await relabel(client, ns, counter, stream);
        break;
      case Op::kDeployment:
        co_await deployment_op(client, ns, stream);
        break;
      case Op::kDeleteCounter:
        co_await client.remove(kube::ObjectRef{"ConfigMap", ns, counter});
        break;
      case Op::kDeleteNamespace: {
        bool has_counters = false;
        for (int i = 0; i < options_.counters; ++i) {
          has_counters = has_counters ||
                         cluster_->api().peek(kube::ObjectRef{"ConfigMap", ns, counter_name(i)});
        }
        sim_.probes().sometimes(has_counters, probe_namespace_deleted_with_counters_);
        co_await client.remove(kube::ObjectRef{"Namespace", "", ns});
        break;
      }
    }
  }
}

Task<void> ToyRun::increment(kube::Client client, std::string namespace_, std::string name,
                             ChoiceStream stream) {
  const kube::ObjectRef ref{"ConfigMap", namespace_, name};
  kube::Result<kube::Object> got = co_await client.get(ref);
  for (int attempt = 0; attempt < kIncrementAttempts; ++attempt) {
    if (!got.ok()) co_return;
    std::int64_t count = 0;
    if (!parse_count(got.value.data["count"], count)) co_return;
    if (sim_.faults().fires(crash_fault_, stream)) {
      // Intermediate state: the actor dies between its read and its write, and restarts later.
      sim_.probes().hit(probe_actor_crash_);
      sim_.record(client.identity(), "crash", ref.to_string(), "fault",
                  "toy.actor.crash: between get and update");
      co_await sim_.loop().sleep(stream.range(100, 2000));
      co_return;
    }
    kube::Object next = got.value;
    next.data["count"] = std::to_string(count + 1);
    const kube::Result<kube::Object> put = co_await client.update(next);
    if (put.ok()) {
      const kube::Object* ns = cluster_->api().peek(kube::ObjectRef{"Namespace", "", namespace_});
      sim_.probes().sometimes(ns != nullptr && ns->meta.deletion_ms.has_value(),
                              probe_increment_on_terminating_);
      co_return;
    }
    if (put.status.is(kube::Code::kTimeout)) {
      sim_.probes().hit(probe_update_lost_response_);
      co_return;
    }
    if (!put.status.is(kube::Code::kConflict)) co_return;
    if (options_.buggy) {
      // THE PLANTED BUG (version `buggy`, the canary): instead of re-reading, write the stale
      // count + 1 with a merge patch, which never conflicts. Two increments that landed since our
      // read are overwritten: the counter goes backwards (toy.S1).
      sim_.probes().hit(probe_stale_patch_);
      kube::MergePatch patch;
      patch.data["count"] = std::to_string(count + 1);
      co_await client.patch(ref, patch);
      co_return;
    }
    sim_.probes().hit(probe_conflict_retry_);
    got = co_await client.get(ref);
  }
}

Task<void> ToyRun::relabel(kube::Client client, std::string namespace_, std::string name,
                           ChoiceStream stream) {
  kube::MergePatch patch;
  patch.labels["toy/touched-by"] = client.identity().substr(client.identity().find('/') + 1);
  patch.labels["toy/generation"] = std::to_string(stream.below(10));
  co_await client.patch(kube::ObjectRef{"ConfigMap", namespace_, name}, patch);
}

Task<void> ToyRun::deployment_op(kube::Client client, std::string namespace_, ChoiceStream stream) {
  const std::string name =
      "web-" + std::to_string(stream.below(static_cast<std::uint64_t>(kDeployments)));
  const kube::ObjectRef ref{"Deployment", namespace_, name};
  switch (stream.below(3)) {
    case 0: {
      const kube::Result<kube::Object> created =
          co_await client.create(make_deployment(namespace_, name));
      sim_.probes().sometimes(created.status.is(kube::Code::kForbidden), probe_create_forbidden_);
      break;
    }
    case 1: {
      kube::MergePatch patch;
      patch.spec["replicas"] = std::to_string(stream.below(2));
      co_await client.patch(ref, patch);
      break;
    }
    default:
      co_await client.remove(ref);
      break;
  }
}

Task<void> ToyRun::keeper() {
  kube::Client client = cluster_->client("toy/keeper");
  ChoiceStream stream = sim_.stream("toy.keeper");
  while (true) {
    for (int n = 0; n < options_.namespaces; ++n) {
      const std::string ns = namespace_name(n);
      const kube::Result<kube::Object> got =
          co_await client.get(kube::ObjectRef{"Namespace", "", ns});
      if (got.status.is(kube::Code::kNotFound)) {
        kube::Object object;
        object.kind = "Namespace";
        object.meta.name = ns;
        object.meta.labels[kManagedByLabel] = "toy";
        const kube::Result<kube::Object> created = co_await client.create(object);
        if (!created.ok()) continue;
        sim_.probes().sometimes(namespace_seen_[ns], probe_namespace_recreated_);
        namespace_seen_[ns] = true;
      } else if (!got.ok() || got.value.meta.deletion_ms.has_value()) {
        continue;  // An error, or Terminating: wait until it is gone.
      }
      for (int c = 0; c < options_.counters; ++c) {
        const kube::ObjectRef ref{"ConfigMap", ns, counter_name(c)};
        const kube::Result<kube::Object> counter = co_await client.get(ref);
        if (!counter.status.is(kube::Code::kNotFound)) continue;
        const kube::Result<kube::Object> created =
            co_await client.create(make_counter(ns, ref.name));
        sim_.probes().sometimes(created.status.is(kube::Code::kForbidden), probe_create_forbidden_);
      }
    }
    co_await sim_.loop().sleep(kKeeperResyncMs + stream.range(0, kSecondMs));
  }
}

void ToyRun::restart_actor(int index) {
  sim_.loop().cancel(actors_[static_cast<std::size_t>(index)]);
  actors_[static_cast<std::size_t>(index)] =
      sim_.loop().spawn("toy/actor-" + std::to_string(index), actor(index));
}

bool ToyRun::perform(const proto::ScriptedEvent& event, std::string& error) {
  const std::string& target = event.target();
  const std::size_t slash = target.find('/');
  const std::string ns = target.substr(0, slash);
  const std::string name = slash == std::string::npos ? "" : target.substr(slash + 1);
  if (event.actor() == "kubectl" && event.action() == "delete_namespace") {
    if (!valid_namespace(target)) {
      error = "target '" + target + "' is not a toy namespace (toy-0..toy-" +
              std::to_string(options_.namespaces - 1) + ")";
      return false;
    }
    cluster_->remove(kube::ObjectRef{"Namespace", "", target});
    return true;
  }
  if (event.actor() == "kubectl" && event.action() == "delete_counter") {
    if (!valid_counter(ns, name)) {
      error = "target '" + target + "' is not a counter (toy-N/counter-M)";
      return false;
    }
    cluster_->remove(kube::ObjectRef{"ConfigMap", ns, name});
    return true;
  }
  if (event.actor() == "user" && event.action() == "increment") {
    if (!valid_counter(ns, name)) {
      error = "target '" + target + "' is not a counter (toy-N/counter-M)";
      return false;
    }
    sim_.loop().spawn("toy/script", increment(cluster_->client("toy/script"), ns, name,
                                              sim_.stream("toy.script")));
    return true;
  }
  if (event.actor() == "toy" && event.action() == "crash_actor") {
    for (std::size_t i = 0; i < actors_.size(); ++i) {
      if (target == "actor-" + std::to_string(i)) {
        restart_actor(static_cast<int>(i));
        return true;
      }
    }
    error = "target '" + target + "' is not a running actor" +
            (actors_.empty() ? " (scripted_only scenarios have none)" : "");
    return false;
  }
  error = "unknown action '" + event.actor() + " " + event.action() +
          "' (`wsim list` shows the toy actions)";
  return false;
}

std::optional<run::Violation> ToyRun::check_safety() {
  if (auto world = run::world_safety_violation(*cluster_)) return world;
  // Incremental: nothing to check unless the server wrote something since the last check.
  const std::uint64_t version = cluster_->api().current_resource_version();
  if (version == checked_resource_version_) return std::nullopt;
  checked_resource_version_ = version;
  for (int n = 0; n < options_.namespaces; ++n) {
    for (int c = 0; c < options_.counters; ++c) {
      const kube::ObjectRef ref{"ConfigMap", namespace_name(n), counter_name(c)};
      const kube::Object* object = cluster_->api().peek(ref);
      if (object == nullptr) continue;
      auto label = object->meta.labels.find(kManagedByLabel);
      if (label == object->meta.labels.end() || label->second != "toy") {
        return run::Violation{
            "toy.S2", ref.to_string(),
            "the counter lost its label " + std::string(kManagedByLabel) + "=toy"};
      }
      std::int64_t count = 0;
      auto data = object->data.find("count");
      if (data == object->data.end() || !parse_count(data->second, count)) {
        return run::Violation{"toy.S1", ref.to_string(), "count is not a number"};
      }
      auto [it, inserted] = high_water_.emplace(object->meta.uid, count);
      if (!inserted && count < it->second) {
        return run::Violation{
            "toy.S1", ref.to_string(),
            "count went backwards from " + std::to_string(it->second) + " to " +
                std::to_string(count) + " (uid " + object->meta.uid + ", resourceVersion " +
                std::to_string(object->meta.resource_version) + "): an increment was lost"};
      }
      if (count > it->second) it->second = count;
    }
  }
  return std::nullopt;
}

void ToyRun::heal() { healed_ = true; }

std::vector<run::Violation> ToyRun::check_liveness() {
  std::vector<run::Violation> out;
  for (int n = 0; n < options_.namespaces; ++n) {
    const std::string ns = namespace_name(n);
    const kube::Object* object = cluster_->api().peek(kube::ObjectRef{"Namespace", "", ns});
    if (object == nullptr) {
      out.push_back({"toy.L1", "Namespace/" + ns, "the namespace does not exist after settle"});
      continue;
    }
    if (object->meta.deletion_ms) {
      out.push_back(
          {"toy.L1", "Namespace/" + ns, "the namespace is still Terminating after settle"});
      continue;
    }
    for (int c = 0; c < options_.counters; ++c) {
      const kube::ObjectRef ref{"ConfigMap", ns, counter_name(c)};
      if (cluster_->api().peek(ref) == nullptr) {
        out.push_back({"toy.L1", ref.to_string(), "the counter does not exist after settle"});
      }
    }
  }
  run::append_world_liveness(*cluster_, out);
  return out;
}

std::string ToyRun::describe_state() const {
  std::string out;
  for (int n = 0; n < options_.namespaces; ++n) {
    const std::string ns = namespace_name(n);
    const kube::Object* object = cluster_->api().peek(kube::ObjectRef{"Namespace", "", ns});
    out += ns + ": " +
           (object == nullptr          ? "missing"
            : object->meta.deletion_ms ? "Terminating"
                                       : "Active");
    for (int c = 0; c < options_.counters; ++c) {
      const kube::Object* counter =
          cluster_->api().peek(kube::ObjectRef{"ConfigMap", ns, counter_name(c)});
      out += ", " + counter_name(c) + "=" +
             (counter == nullptr             ? std::string("-")
              : counter->data.count("count") ? counter->data.at("count")
                                             : std::string("?"));
    }
    out += "\n";
  }
  return out;
}

}  // namespace wsim::toy
