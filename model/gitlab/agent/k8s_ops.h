// agentk's Kubernetes client operations (docs/systems/gitlab.md §5.6, agent `k8s/client.go`
// @ 9743dcf6), as coroutines over the fake API client.
//   NamespaceExists: GET namespace. A1+: found → (true, nil); NotFound → (false, nil); any other
//     error → (false, err). A0: a bool that is simply "the GET succeeded" — any API error counts
//     as "does not exist" (§7.1 "Other traces"). A Terminating namespace is found.
//   CreateNamespace: plain create. DeleteNamespace: plain delete (default propagation); on a
//     Terminating namespace the API answers 409 Conflict; NotFound is an error too.
// Each call is an interleaving point. The trace shows each call as actor "agentk".
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <optional>
#include <string>

#include "model/gitlab/probes.h"
#include "model/gitlab/versions.h"
#include "sim/core/sim.h"
#include "sim/core/task.h"
#include "sim/kube/client.h"

namespace wsim::gitlab {

struct NamespaceCheck {
  bool exists = false;
  std::optional<std::string> error;  // A1+ only.
};

class K8sOps {
 public:
  K8sOps(Sim& sim, kube::Client client, Versions versions, const GitlabProbes* probes)
      : sim_(sim), client_(std::move(client)), versions_(versions), probes_(probes) {}

  Task<NamespaceCheck> namespace_exists(std::string namespace_);
  // Returns an error message, or nullopt on success.
  Task<std::optional<std::string>> create_namespace(std::string namespace_);
  Task<std::optional<std::string>> delete_namespace(std::string namespace_);
  kube::Client& client() { return client_; }

 private:
  Sim& sim_;
  kube::Client client_;
  Versions versions_;
  const GitlabProbes* probes_;
};

// "Conflict: <message>" — how agentk renders an API error into error_details.
std::string render_status(const kube::Status& status);

}  // namespace wsim::gitlab
