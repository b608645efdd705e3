// Not a port: the ws-manager seam [invented]; each era cites its upstream files.
//
// The ws-manager seam: what users, the Gitpod server and the upgrade actor call, implemented
// by every era (mk2/manager.h, mk1/manager.h). The gRPC API of docs/systems/gitpod.md §4.1–§4.3
// (mk2) and §7, §8 (mk1), reduced to what the lifecycle depends on.
//
// Contract: the API calls are coroutines run by the caller's actor (the gRPC handler); each API
// request inside them is an interleaving point. stop() models a crash / redeploy: every actor of
// the manager is cancelled and its in-memory state is gone; start() begins from the API store.
#pragma once

#include <functional>
#include <string>

#include "sim/core/task.h"

namespace wsim::gitpod {

enum class StopPolicy { kNormal, kImmediate, kAbort };
const char* stop_policy_name(StopPolicy policy);

enum class ApiCode { kOk, kAlreadyExists, kFailedPrecondition, kNotFound, kUnavailable, kInternal };
const char* api_code_name(ApiCode code);

struct ApiReply {
  ApiCode code = ApiCode::kOk;
  std::string message;
  bool ok() const { return code == ApiCode::kOk; }
};

struct StartRequest {
  std::string instance;      // The CR / pod name.
  std::string workspace_id;  // The user's workspace (content identity).
  std::string type = "Regular";
};

class Manager {
 public:
  virtual ~Manager() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual bool up() const = 0;
  virtual Task<ApiReply> start_workspace(StartRequest request) = 0;
  virtual Task<ApiReply> stop_workspace(std::string instance, StopPolicy policy) = 0;
  virtual Task<ApiReply> mark_active(std::string instance) = 0;
  // Maintenance mode (mk2 §4.5; mk1 MaintenanceMode config §8.5).
  virtual void set_maintenance(bool on) = 0;
  // GetWorkspaces, reduced to "does ws-manager list this instance" (mk2: its Workspace CR; mk1:
  // its pod or, PLIS era, its PLIS). What ws-manager-bridge's controller compares the server's
  // records with (docs/fidelity.md U1). Simplified: reads the API server, not the manager's cache.
  virtual bool lists(const std::string& instance) const = 0;

  // ws-manager's Subscribe stream, reduced to the phase: each era calls it where upstream
  // publishes a WorkspaceStatus (mk2: the subscriber controller; mk1: the monitor's OnChange),
  // with the API phase name ("PENDING" ... "STOPPED", "UNKNOWN"). The listener is the Gitpod
  // server's side (ws-manager-bridge, run.cc). Only while the manager is up.
  using StatusListener = std::function<void(const std::string& instance, const std::string& phase)>;
  void set_status_listener(StatusListener listener) { status_listener_ = std::move(listener); }

 protected:
  void publish_status(const std::string& instance, const std::string& phase) const {
    if (status_listener_) status_listener_(instance, phase);
  }

 private:
  StatusListener status_listener_;
};

}  // namespace wsim::gitpod
