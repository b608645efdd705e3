// Server-side printing: a meta.k8s.io/v1 Table of objects, what kubectl asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` so that `kubectl get` shows the columns
// it shows against a real cluster (Pods: READY STATUS RESTARTS AGE; Deployments: READY
// UP-TO-DATE AVAILABLE AGE; ...). Rows carry the object's metadata (kubectl adds NAMESPACE with
// -A). AGE is virtual: now_ms - creationTimestamp, in Kubernetes' short form ("5m3s", "2d4h").
//
// Threading: pure functions.
#pragma once

#include <string>
#include <vector>

#include "serve/codec.h"
#include "serve/resources.h"
#include "sim/kube/object.h"

namespace wsim::serve {

// True when an Accept header asks for a meta.k8s.io/v1 Table.
bool wants_table(const std::string& accept);

// Kubernetes' duration.HumanDuration.
std::string human_duration(std::int64_t duration_ms);

Json table_of(const std::vector<kube::Object>& objects, const Resource& resource,
              std::uint64_t resource_version, TimeMs now_ms, std::int64_t epoch_wall_ms);

}  // namespace wsim::serve
