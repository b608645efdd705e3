// Not a port: the reference model of the agent ⇄ Rails protocol (docs/gitlab-oracles.md,
// "Reference model") [invented], checked against every exchange (gitlab.S14).
#include "model/gitlab/invariants/protocol_model.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace wsim::gitlab {

ProtocolModel::ProtocolModel(Report report, StampOf stamp_of)
    : report_(std::move(report)), stamp_of_(std::move(stamp_of)) {
  WSIM_ASSERT(report_ != nullptr);
}

void ProtocolModel::on_desired_changed(const std::string& workspace, State desired, TimeMs now_ms) {
  WSIM_ASSERT(!workspace.empty());
  if (!is_valid_desired(desired)) return;  // gitlab.S1 reports it; nothing to deliver.
  Workspace& w = workspaces_[workspace];
  WSIM_ASSERT_LE(w.changed_ms, now_ms);  // Virtual time never goes back.
  w.desired = desired;
  w.changed_step = ++step_;
  w.changed_ms = now_ms;
  set_delivered(w, false);
  w.excused = false;
  w.in_flight_request = in_flight_.empty() ? 0 : in_flight_.back();
  WSIM_ASSERT_GT(undelivered_, 0u);
}

void ProtocolModel::set_delivered(Workspace& w, bool delivered) {
  if (w.delivered == delivered) return;
  w.delivered = delivered;
  if (delivered) {
    WSIM_ASSERT_GT(undelivered_, 0u);
    --undelivered_;
  } else {
    ++undelivered_;
  }
  WSIM_ASSERT_LE(undelivered_, workspaces_.size());
}

// A std::set's insert followed by trimming it from its smallest id.
void ProtocolModel::insert_in_flight(std::uint64_t request_id) {
  auto it = std::lower_bound(in_flight_.begin(), in_flight_.end(), request_id);
  if (it == in_flight_.end() || *it != request_id) in_flight_.insert(it, request_id);
  if (in_flight_.size() > kRequestsRemembered) {
    in_flight_.erase(
        in_flight_.begin(),
        in_flight_.begin() + static_cast<std::ptrdiff_t>(in_flight_.size() - kRequestsRemembered));
  }
  WSIM_ASSERT_LE(in_flight_.size(), kRequestsRemembered);
}

void ProtocolModel::on_select(std::uint64_t request_id) {
  WSIM_ASSERT_GT(request_id, 0u);
  Selection selection{++step_, {}};
  if (stamp_of_ && undelivered_ > 0) {
    for (const auto& [name, w] : workspaces_) {
      if (!w.delivered) selection.stamps.emplace_back(name, stamp_of_(name));
    }
  }
  const bool inserted = selected_.insert(request_id, std::move(selection));
  WSIM_ASSERT_MSG(inserted, "request " << request_id << " selected twice");
  insert_in_flight(request_id);
}

bool ProtocolModel::delivers(const WorkspaceRailsInfo& info, State desired) {
  // on_desired_changed records valid desired states only.
  WSIM_ASSERT(is_valid_desired(desired));
  if (info.desired_state != desired) return false;
  // Termination needs no config (the agent acts on the desired state); every other desired
  // state reaches the cluster only through the Deployment Rails sends.
  if (desired == State::kTerminated) return true;
  for (const kube::Object& object : info.config_to_apply) {
    if (object.kind == "Deployment") return true;
  }
  return false;
}

void ProtocolModel::deliver(const RailsResponse& response) {
  for (const WorkspaceRailsInfo& info : response.workspace_rails_infos) {
    auto it = workspaces_.find(info.name);
    if (it == workspaces_.end() || it->second.delivered) continue;
    if (delivers(info, it->second.desired)) {
      set_delivered(it->second, true);
      it->second.excused = false;
    }
  }
  WSIM_ASSERT_LE(undelivered_, workspaces_.size());
}

// How the row's Rails timestamps compared when the judged request's finder ran: the one fact
// that tells R3's strict-`>` tie from a change made between a finder and its touch.
std::string ProtocolModel::stamps_words(const RailsRequest& request,
                                        const std::string& name) const {
  WSIM_ASSERT(!name.empty());
  const Selection* selection = selected_.find(request.request_id);
  if (selection == nullptr) return "";
  auto stamps = std::find_if(selection->stamps.begin(), selection->stamps.end(),
                             [&](const auto& entry) { return entry.first == name; });
  if (stamps == selection->stamps.end()) return "";
  switch (stamps->second) {
    case Stamps::kChangeBeforeTouch:
      return "desired_state_updated_at before responded_to_agent_at; ";
    case Stamps::kChangeAtTouch:
      return "desired_state_updated_at equal to responded_to_agent_at; ";
    case Stamps::kChangeAfterTouch:
      return "desired_state_updated_at after responded_to_agent_at; ";
    case Stamps::kUnknown:
      return "";
  }
  return "";
}

// The mechanism, for the message (and so for finding signatures): where the change fell, how
// the row's Rails timestamps compared at the judged finder, and what the judged response did
// with the workspace.
std::string ProtocolModel::how_swallowed(const Workspace& w, const RailsRequest& request,
                                         const RailsResponse& response,
                                         const std::string& name) const {
  WSIM_ASSERT(!w.delivered);  // Only an undelivered change can have been swallowed.
  std::string how = w.in_flight_request != 0
                        ? "changed while request " + std::to_string(w.in_flight_request) +
                              " was between its finder and its answer; "
                        : "changed with no request in flight; ";
  how += stamps_words(request, name);
  for (const WorkspaceRailsInfo& info : response.workspace_rails_infos) {
    if (info.name != name) continue;
    if (info.desired_state != w.desired) return how + "returned with a stale desired state";
    return how + "returned without a Deployment to apply";
  }
  return how + "not returned";
}

void ProtocolModel::judge_partial(const RailsRequest& request, const RailsResponse& response,
                                  std::uint64_t select_step) {
  WSIM_ASSERT(request.update_type == UpdateType::kPartial);
  WSIM_ASSERT_LE(select_step, step_);
  if (undelivered_ == 0) return;  // Nothing pending: nothing to judge.
  for (auto& [name, w] : workspaces_) {
    if (w.delivered || w.excused || w.changed_step > select_step) continue;
    w.excused = true;  // Report each swallowed change once.
    report_(name, "desired " + std::string(state_name(w.desired)) + " set at " +
                      std::to_string(w.changed_ms) +
                      " ms was not delivered by the partial exchange (request " +
                      std::to_string(request.request_id) + ") whose finder ran after it (" +
                      how_swallowed(w, request, response, name) + ")");
  }
}

void ProtocolModel::excuse_pending() {
  WSIM_ASSERT_LE(undelivered_, workspaces_.size());
  if (undelivered_ == 0) return;
  for (auto& [name, w] : workspaces_) {
    if (!w.delivered) w.excused = true;
  }
}

void ProtocolModel::on_exchange(const RailsRequest& request, bool ok,
                                const RailsResponse& response) {
  auto in_flight = std::lower_bound(in_flight_.begin(), in_flight_.end(), request.request_id);
  if (in_flight != in_flight_.end() && *in_flight == request.request_id)
    in_flight_.erase(in_flight);
  WSIM_ASSERT(!std::binary_search(in_flight_.begin(), in_flight_.end(), request.request_id));
  if (!ok) {
    excuse_pending();
    return;
  }
  deliver(response);
  if (request.update_type != UpdateType::kPartial) return;
  const Selection* selection = selected_.find(request.request_id);
  // Unknown: older than the remembered requests (or a test driving the agent side alone).
  if (selection == nullptr) return;
  judge_partial(request, response, selection->step);
}

void ProtocolModel::on_agent_restart() {
  excuse_pending();
  WSIM_ASSERT_LE(undelivered_, workspaces_.size());
  in_flight_.clear();  // The old worker's exchange is abandoned.
}

std::size_t ProtocolModel::pending() const {
  std::size_t count = 0;
  for (const auto& [name, w] : workspaces_) count += w.delivered ? 0 : 1;
  WSIM_ASSERT_EQ(count, undelivered_);
  return count;
}

}  // namespace wsim::gitlab
