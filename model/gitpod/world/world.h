// Not a port: the installation around ws-manager [invented] (nodes, ws-daemons, content).
//
// GitpodWorld: the cluster and everything around ws-manager that a Gitpod installation has —
// the fake Kubernetes (sim/kube/cluster.h), node disks and remote storage (content.h), one
// ws-daemon per node, node-labeler (the ws-daemon readiness label workspace pods require,
// docs/systems/gitpod.md §5.1, §6.1), the supervisor that reports a workspace container ready once its
// content is initialized, the PR #20243 "breaker", and the cluster admission gate of the
// Gitpod server (cordon / score 0, docs/systems/gitpod.md §9.3.5).
//
// ws-manager itself (mk1 or mk2) is plugged in by the run (manager.h); the world only knows
// the Manager interface.
//
// Single-threaded, on the event loop. Contract: every pod the model creates goes through
// workspace_pod_template() so the labeler, supervisor and breaker recognise it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/gitpod/versions.h"
#include "model/gitpod/world/content.h"
#include "sim/core/sim.h"
#include "sim/kube/cluster.h"

namespace wsim::gitpod {

class WsDaemon;

// Node label workspace pods require (mk2 create.go; node-labeler cmd/run.go at 99cc66b7cf).
inline constexpr const char* kDaemonReadyLabel = "gitpod.io/ws-daemon_ready_ns_gitpod";

struct Gate {
  bool cordoned = false;  // gpctl clusters cordon → state "cordoned".
  int score = 100;        // Selection requires score > 0 (client-provider.ts).
  bool admits() const { return !cordoned && score > 0; }
};

class GitpodWorld {
 public:
  GitpodWorld(Sim& sim, const Versions& versions, const Settings& settings);
  ~GitpodWorld();
  GitpodWorld(const GitpodWorld&) = delete;
  GitpodWorld& operator=(const GitpodWorld&) = delete;

  // Starts the cluster, labels the nodes, starts every ws-daemon.
  void start();

  Sim& sim() { return sim_; }
  kube::Cluster& cluster() { return *cluster_; }
  kube::ApiServer& api() { return cluster_->api(); }
  ContentStore& content() { return content_; }
  const ContentStore& content() const { return content_; }
  const Versions& versions() const { return versions_; }
  const Settings& settings() const { return settings_; }
  Gate& gate() { return gate_; }

  // --- ws-daemon per node. ---
  WsDaemon* daemon(const std::string& node);  // nullptr for an unknown/deleted node.
  std::vector<std::string> nodes() const;     // Live nodes, sorted.
  // ws-daemon down/up (crash, upgrade). node-labeler follows after a short delay.
  void daemon_down(const std::string& node);
  void daemon_up(const std::string& node);
  // kubectl delete node: the node's disk and daemon go with it.
  void delete_node(const std::string& node);

  // A pod object for a workspace instance: name ws-<instance>, labels, readiness=manual (the
  // supervisor reports readiness), the ws-daemon readiness nodeSelector, 30 min grace (mk2
  // create.go). The caller adds owner references and finalizers.
  kube::Object workspace_pod_template(const std::string& instance,
                                      const std::string& workspace_id) const;

  // Content init finished for `instance` on `node`: the supervisor may report ready.
  void content_initialized(const std::string& node, const std::string& instance);

  // Breaker (PR #20243 dev/rejector): reject every workspace pod name exactly once.
  void set_breaker(bool on) { breaker_ = on; }
  std::uint64_t breaker_rejections() const { return broken_.size(); }

 private:
  void install_fault_rules();
  void on_pod(const kube::WatchEvent& event);
  void maybe_ready(const kube::Object& pod);
  void label_later(const std::string& node, bool ready);

  Sim& sim_;
  Versions versions_;
  Settings settings_;
  std::unique_ptr<kube::Cluster> cluster_;
  ContentStore content_;
  std::map<std::string, std::unique_ptr<WsDaemon>> daemons_;
  std::vector<std::unique_ptr<WsDaemon>> retired_daemons_;
  Gate gate_;
  bool breaker_ = false;
  std::set<std::string> broken_;  // Pod names the breaker already rejected.
  ChoiceStream stream_;           // "gitpod.world": labeler and supervisor delays.
};

}  // namespace wsim::gitpod
