// The agentk ⇄ Rails messages as C++ structs (docs/systems/gitlab.md §2). They travel over a
// net::Link as values (deep copies), never as JSON: the simulation keeps the information content
// of the JSON payloads of §2.2/§2.3, not their encoding.
//
// Invariants of the structs:
//  1. `name` is always set (every info names a workspace).
//  2. A ReconcileResponse with http_status != 201 carries nothing the agent may process (§2.1).
//  3. `request_id` is harness metadata (like an HTTP request id): it lets the invariants connect
//     a Rails write to the agent cycle whose info caused it (S3). It changes no behaviour.
// Not modelled: JSON-schema 400s (our agents only send valid payloads), the A-1 `message_type`.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/gitlab/states.h"
#include "sim/kube/object.h"

namespace wsim::gitlab {

// §2.2 ErrorDetails; error_type "applier" (R3 also accepts "kubernetes").
struct ErrorDetails {
  std::string error_type = "applier";
  std::string error_message;
};

// §2.2 WorkspaceAgentInfo.
struct WorkspaceAgentInfo {
  std::string name;
  std::string namespace_;
  std::optional<kube::Object> latest_k8s_deployment_info;  // The whole Deployment object.
  TerminationProgress termination_progress = TerminationProgress::kNone;
  std::optional<ErrorDetails> error_details;  // A0b and later.
};

enum class UpdateType { kPartial, kFull };

// §2.2 RequestPayload (POST .../reconcile) or the A3 prerequisites GET (§2.4).
struct RailsRequest {
  enum class Endpoint { kReconcile, kPrerequisites };
  Endpoint endpoint = Endpoint::kReconcile;
  std::uint64_t request_id = 0;
  UpdateType update_type = UpdateType::kPartial;
  std::vector<WorkspaceAgentInfo> workspace_agent_infos;  // A0a may repeat a name (§2.2).
};

// §2.3 WorkspaceRailsInfo.
struct WorkspaceRailsInfo {
  std::string name;
  std::string namespace_;
  State desired_state = State::kRunning;
  State actual_state = State::kUnknown;
  std::string deployment_resource_version;  // "" = nil.
  // R0/R1 send null and R2/R3 "" when not sent; both mean "no config" to the agent (§5.5), so
  // one empty vector stands for both. Objects stand for the YAML stream, in stream order.
  std::vector<kube::Object> config_to_apply;
  std::vector<std::string> image_pull_secrets;  // R2+; names only.
};

// §2.3 settings (R2+).
struct RailsSettings {
  std::int64_t full_reconciliation_interval_s = 3600;
  std::int64_t partial_reconciliation_interval_s = 10;
};

struct RailsResponse {
  int http_status = 201;
  std::vector<WorkspaceRailsInfo> workspace_rails_infos;
  std::optional<RailsSettings> settings;  // R2+.
  std::string shared_namespace;           // Prerequisites only; "" = unique mode (§2.4).
};

}  // namespace wsim::gitlab
