// ActualStateCalculator: a pure port of Rails `ActualStateCalculator.calculate_actual_state`
// (docs/systems/gitlab.md §4.3; R0 `actual_state_calculator.rb` @ 50566b4f3874, R1..R3
// `input/actual_state_calculator.rb`).
//
// Order of rules:
//   R1..R3: termination_progress Terminated → Terminated (wins over error_details);
//           error_details present → Error; termination_progress Terminating → Terminating;
//           then the Deployment rules.
//   R0:     Terminating → Terminating; Terminated → Terminated; then the Deployment rules
//           (no error handling: an error-only info of an A0b+ agent gives Unknown).
// The Deployment rules read spec.replicas, status.availableReplicas/unavailableReplicas and the
// reasons of the Progressing and Available conditions, exactly as listed in §4.3.
// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#pragma once

#include <optional>

#include "model/gitlab/states.h"
#include "model/gitlab/versions.h"
#include "model/gitlab/wire.h"
#include "sim/kube/object.h"

namespace wsim::gitlab {

// The §4.3 "Deployment rules" alone. nullopt deployment = info without a Deployment → Unknown.
State actual_state_from_deployment(const std::optional<kube::Object>& deployment);

// The whole calculator for one agent info.
State calculate_actual_state(RailsVersion version, const WorkspaceAgentInfo& info);

}  // namespace wsim::gitlab
