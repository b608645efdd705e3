// lanes.h: actor name prefixes to lanes.
#include "sim/run/lanes.h"

#include "sim/run/trace_view.h"

namespace wsim::run {

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool starts_with(std::string_view text, std::string_view head) {
  return text.substr(0, head.size()) == head;
}

std::string_view prefix(std::string_view actor) { return actor_prefix(actor); }

}  // namespace

std::string_view lane_name(Lane lane) {
  switch (lane) {
    case Lane::kUser:
      return "user";
    case Lane::kControlPlane:
      return "control plane";
    case Lane::kAgent:
      return "agent";
    case Lane::kApiServer:
      return "API server";
    case Lane::kKubeControllers:
      return "kube controllers";
    case Lane::kKubelet:
      return "kubelet";
    case Lane::kWsDaemon:
      return "ws-daemon";
    case Lane::kStorage:
      return "storage";
    case Lane::kOther:
      return "other";
    case Lane::kHarness:
      return "wsim";
  }
  return "other";
}

Lane lane_of(std::string_view actor) {
  const std::string_view p = prefix(actor);
  if (p == "user" || p == "kubectl" || p == "admin") return Lane::kUser;
  if (p == "rails" || p == "ws-manager" || p == "server" || p == "gitlab" || p == "gitpod" ||
      p == "breaker") {
    return Lane::kControlPlane;
  }
  if (starts_with(p, "agent")) return Lane::kAgent;
  if (p == "apiserver" || p == "kube-apiserver" || p == "etcd") return Lane::kApiServer;
  if (p == "scheduler" || ends_with(p, "-controller") || p == "garbage-collector" ||
      p == "node-labeler" || p == "node-lifecycle" || p == "controller-manager") {
    return Lane::kKubeControllers;
  }
  if (p == "kubelet") return Lane::kKubelet;
  if (p == "ws-daemon") return Lane::kWsDaemon;
  if (p == "storage" || p == "s3" || p == "minio" || p == "gcs" || p == "blobstore") {
    return Lane::kStorage;
  }
  if (p == "wsim" || p == "monitor") return Lane::kHarness;
  return Lane::kOther;
}

}  // namespace wsim::run
