// Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`), which
// kubectl's generators send for built-in kinds (`kubectl create namespace`, `create configmap
// --from-literal`, `create secret generic`, `create deployment`, `run`) with no JSON fallback.
// Decodes the envelope ("k8s\0" + runtime.Unknown{typeMeta, raw}) and the fields of the object
// that sim/kube keeps, into the JSON the codec reads — for Namespace, Pod, ConfigMap, Secret
// and Deployment only; other kinds (and fields) are not decoded (see serve/README.md). Field
// numbers are those of k8s.io/api's generated.proto.
//
// Threading: pure functions.
#pragma once

#include <string>

#include "serve/codec.h"

namespace wsim::serve {

inline constexpr const char* kProtobufMediaType = "application/vnd.kubernetes.protobuf";

// False with `error` for a malformed body or an unsupported kind.
bool protobuf_to_json(const std::string& body, Json& out, std::string& error);

}  // namespace wsim::serve
