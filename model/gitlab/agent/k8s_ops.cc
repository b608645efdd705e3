// § numbers in this file refer to docs/systems/gitlab.md unless another document is named.
#include "model/gitlab/agent/k8s_ops.h"

#include "sim/core/assert.h"

namespace wsim::gitlab {
namespace {

kube::ObjectRef namespace_ref(const std::string& namespace_) {
  return kube::ObjectRef{"Namespace", "", namespace_};
}

}  // namespace

std::string render_status(const kube::Status& status) {
  WSIM_ASSERT(!status.ok());
  std::string out = kube::code_name(status.code);
  if (!status.message.empty()) out += ": " + status.message;
  return out;
}

Task<NamespaceCheck> K8sOps::namespace_exists(std::string namespace_) {
  WSIM_ASSERT(!namespace_.empty());
  const kube::Result<kube::Object> got = co_await client_.get(namespace_ref(namespace_));
  NamespaceCheck check;
  if (got.ok()) {
    WSIM_ASSERT_EQ(got.value.meta.name, namespace_);
    check.exists = true;
    co_return check;
  }
  // A0: `return err == nil` — any error is "absent" (§5.5 A0, §7.1).
  if (versions_.agent_pre_fix()) co_return check;
  if (!got.status.is(kube::Code::kNotFound)) {
    check.error = "error when checking if namespace exists: " + render_status(got.status);
  }
  co_return check;
}

Task<std::optional<std::string>> K8sOps::create_namespace(std::string namespace_) {
  WSIM_ASSERT(!namespace_.empty());
  kube::Object ns;
  ns.kind = "Namespace";
  ns.meta.name = namespace_;
  const kube::Result<kube::Object> created = co_await client_.create(std::move(ns));
  // §5.5: ignore AlreadyExists; other errors are returned.
  if (created.ok() || created.status.is(kube::Code::kAlreadyExists)) co_return std::nullopt;
  co_return render_status(created.status);
}

Task<std::optional<std::string>> K8sOps::delete_namespace(std::string namespace_) {
  WSIM_ASSERT(!namespace_.empty());
  const kube::Status status = co_await client_.remove(namespace_ref(namespace_));
  if (status.ok()) co_return std::nullopt;
  if (probes_ != nullptr && status.is(kube::Code::kConflict)) {
    sim_.probes().hit(probes_->delete_namespace_conflict);
  }
  co_return render_status(status);
}

}  // namespace wsim::gitlab
