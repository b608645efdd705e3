// Model-based property test of the API server's store (docs/architecture.md §7):
// random command sequences drive the server through its synchronous server_* methods and a
// small reference model predicts every result code, resourceVersion, generation and deletion
// state. RapidCheck shrinks a failing sequence to a minimal one.
//
// Reproduce a failure with the RC_PARAMS="reproduce=..." line RapidCheck prints.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <iostream>
#include <map>
#include <ostream>
#include <string>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"

namespace wsim::kube {
namespace {

constexpr const char* kKind = "Deployment";
constexpr const char* kFinalizer = "example.com/hold";

struct ModelObject {
  std::uint64_t resource_version = 0;
  std::int64_t generation = 1;
  std::string replicas;
  std::string status;  // status "observed"
  bool finalizer = false;
  bool deleting = false;
};

struct ModelNamespace {
  bool terminating = false;
};

struct Model {
  std::uint64_t resource_version = 0;
  std::map<std::string, ModelNamespace> namespaces;
  std::map<std::pair<std::string, std::string>, ModelObject> objects;

  bool has_content(const std::string& ns) const {
    for (const auto& [key, object] : objects) {
      if (key.first == ns) return true;
    }
    return false;
  }
};

struct Sut {
  Sim sim{ChoiceSource::from_seed(1)};
  ApiServer api{sim};
};

struct Outcome {
  Code code = Code::kOk;
  Model next;
};

using Command = rc::state::Command<Model, Sut>;

// Every command: simulate() on the model gives the expected code and next model; execute()
// runs it on the server. run() compares code and the complete store with the model.
struct StoreCommand : Command {
  virtual Outcome simulate(const Model& model) const = 0;
  virtual Code execute(Sut& sut) const = 0;

  void apply(Model& model) const override { model = simulate(model).next; }

  void run(const Model& model, Sut& sut) const override {
    const Outcome expected = simulate(model);
    const std::uint64_t rv_before = sut.api.current_resource_version();
    const Code got = execute(sut);
    RC_ASSERT(std::string(code_name(got)) == std::string(code_name(expected.code)));
    const std::uint64_t rv_after = sut.api.current_resource_version();
    RC_ASSERT(rv_after >= rv_before);  // Never goes back.
    RC_ASSERT(rv_after == expected.next.resource_version);
    check_store(expected.next, sut);
  }

  static void check_store(const Model& model, Sut& sut) {
    auto namespaces = sut.api.peek_list("Namespace", "");
    RC_ASSERT(namespaces.size() == model.namespaces.size());
    for (const Object* ns : namespaces) {
      auto it = model.namespaces.find(ns->meta.name);
      RC_ASSERT(it != model.namespaces.end());
      RC_ASSERT(ns->status_or("phase", "") ==
                std::string(it->second.terminating ? "Terminating" : "Active"));
      RC_ASSERT(ns->meta.deletion_ms.has_value() == it->second.terminating);
    }
    auto objects = sut.api.peek_list(kKind, "");
    RC_ASSERT(objects.size() == model.objects.size());
    for (const Object* o : objects) {
      auto it = model.objects.find({o->meta.namespace_, o->meta.name});
      RC_ASSERT(it != model.objects.end());
      const ModelObject& m = it->second;
      RC_ASSERT(o->meta.resource_version == m.resource_version);
      RC_ASSERT(o->meta.generation == m.generation);
      RC_ASSERT(o->spec_or("replicas", "") == m.replicas);
      RC_ASSERT(o->status_or("observed", "") == m.status);
      RC_ASSERT(o->meta.deletion_ms.has_value() == m.deleting);
      RC_ASSERT((o->meta.finalizers == std::vector<std::string>{kFinalizer}) == m.finalizer);
      RC_ASSERT(o->meta.finalizers.empty() == !m.finalizer);
      RC_ASSERT(o->meta.resource_version <= sut.api.current_resource_version());
    }
  }
};

std::string any_namespace() { return *rc::gen::element<std::string>("a", "b"); }
std::string any_name() { return *rc::gen::element<std::string>("x", "y"); }
std::string any_replicas() { return *rc::gen::element<std::string>("0", "1"); }

struct CreateNamespace : StoreCommand {
  std::string ns = any_namespace();
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    if (m.namespaces.count(ns)) {
      out.code = Code::kAlreadyExists;
      return out;
    }
    out.next.namespaces[ns] = ModelNamespace{};
    ++out.next.resource_version;
    return out;
  }
  Code execute(Sut& sut) const override {
    Object o;
    o.kind = "Namespace";
    o.meta.name = ns;
    return sut.api.server_create(o, "test").status.code;
  }
  void show(std::ostream& os) const override { os << "create Namespace/" << ns; }
};

struct DeleteNamespace : StoreCommand {
  std::string ns = any_namespace();
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    auto it = out.next.namespaces.find(ns);
    if (it == out.next.namespaces.end()) {
      out.code = Code::kNotFound;
    } else if (it->second.terminating) {
      out.code = Code::kConflict;
    } else {
      it->second.terminating = true;
      ++out.next.resource_version;
    }
    return out;
  }
  Code execute(Sut& sut) const override {
    return sut.api.server_delete(ObjectRef{"Namespace", "", ns}, {}, "test").code;
  }
  void show(std::ostream& os) const override { os << "delete Namespace/" << ns; }
};

// The namespace controller's last step, once the namespace is empty.
struct FinalizeNamespace : StoreCommand {
  std::string ns = any_namespace();
  void checkPreconditions(const Model& m) const override {
    auto it = m.namespaces.find(ns);
    RC_PRE(it != m.namespaces.end() && it->second.terminating && !m.has_content(ns));
  }
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    out.next.namespaces.erase(ns);
    ++out.next.resource_version;
    return out;
  }
  Code execute(Sut& sut) const override {
    MergePatch clear;
    clear.spec["finalizers"] = std::nullopt;
    return sut.api.server_patch(ObjectRef{"Namespace", "", ns}, clear, Subresource::kMain, "nsc")
        .status.code;
  }
  void show(std::ostream& os) const override { os << "finalize Namespace/" << ns; }
};

struct CreateObject : StoreCommand {
  std::string ns = any_namespace();
  std::string name = any_name();
  std::string replicas = any_replicas();
  bool finalizer = *rc::gen::arbitrary<bool>();
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    auto ns_it = m.namespaces.find(ns);
    if (ns_it == m.namespaces.end()) {
      out.code = Code::kNotFound;
    } else if (ns_it->second.terminating) {
      out.code = Code::kForbidden;
    } else if (m.objects.count({ns, name})) {
      out.code = Code::kAlreadyExists;
    } else {
      ModelObject o;
      o.resource_version = ++out.next.resource_version;
      o.replicas = replicas;
      o.finalizer = finalizer;
      out.next.objects[{ns, name}] = o;
    }
    return out;
  }
  Code execute(Sut& sut) const override {
    Object o;
    o.kind = kKind;
    o.meta.namespace_ = ns;
    o.meta.name = name;
    o.spec["replicas"] = replicas;
    if (finalizer) o.meta.finalizers.push_back(kFinalizer);
    return sut.api.server_create(o, "test").status.code;
  }
  void show(std::ostream& os) const override {
    os << "create " << kKind << "/" << ns << "/" << name << " replicas=" << replicas
       << (finalizer ? " +finalizer" : "");
  }
};

// Update of the main resource carrying a fresh or a stale resourceVersion.
struct UpdateObject : StoreCommand {
  std::string ns = any_namespace();
  std::string name = any_name();
  std::string replicas = any_replicas();
  bool stale = *rc::gen::arbitrary<bool>();
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    auto it = out.next.objects.find({ns, name});
    if (it == out.next.objects.end()) {
      out.code = Code::kNotFound;
    } else if (stale) {
      out.code = Code::kConflict;
    } else if (it->second.replicas != replicas) {
      it->second.replicas = replicas;
      ++it->second.generation;
      it->second.resource_version = ++out.next.resource_version;
    }  // Else: nothing changes, nothing is written.
    return out;
  }
  Code execute(Sut& sut) const override {
    const Object* live = sut.api.peek(ObjectRef{kKind, ns, name});
    if (!live) {
      Object o;
      o.kind = kKind;
      o.meta.namespace_ = ns;
      o.meta.name = name;
      return sut.api.server_update(o, Subresource::kMain, "test").status.code;
    }
    Object o = *live;
    o.spec["replicas"] = replicas;
    if (stale) o.meta.resource_version -= 1;  // >= 1: never the unconditional 0.
    return sut.api.server_update(o, Subresource::kMain, "test").status.code;
  }
  void show(std::ostream& os) const override {
    os << "update " << kKind << "/" << ns << "/" << name << " replicas=" << replicas
       << (stale ? " (stale resourceVersion)" : "");
  }
};

struct UpdateStatus : StoreCommand {
  std::string ns = any_namespace();
  std::string name = any_name();
  std::string observed = *rc::gen::element<std::string>("", "1", "2");
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    auto it = out.next.objects.find({ns, name});
    if (it == out.next.objects.end()) {
      out.code = Code::kNotFound;
    } else if (it->second.status != observed) {
      it->second.status = observed;
      it->second.resource_version = ++out.next.resource_version;
    }
    return out;
  }
  Code execute(Sut& sut) const override {
    const Object* live = sut.api.peek(ObjectRef{kKind, ns, name});
    Object o;
    if (live) {
      o = *live;
    } else {
      o.kind = kKind;
      o.meta.namespace_ = ns;
      o.meta.name = name;
    }
    if (observed.empty()) {
      o.status.erase("observed");
    } else {
      o.status["observed"] = observed;
    }
    o.spec["replicas"] = "ignored-by-status";
    return sut.api.server_update(o, Subresource::kStatus, "test").status.code;
  }
  void show(std::ostream& os) const override {
    os << "update status " << kKind << "/" << ns << "/" << name << " observed=" << observed;
  }
};

struct PatchObject : StoreCommand {
  std::string ns = any_namespace();
  std::string name = any_name();
  std::string replicas = any_replicas();
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    auto it = out.next.objects.find({ns, name});
    if (it == out.next.objects.end()) {
      out.code = Code::kNotFound;
    } else if (it->second.replicas != replicas) {
      it->second.replicas = replicas;
      ++it->second.generation;
      it->second.resource_version = ++out.next.resource_version;
    }
    return out;
  }
  Code execute(Sut& sut) const override {
    MergePatch p;
    p.spec["replicas"] = replicas;
    return sut.api.server_patch(ObjectRef{kKind, ns, name}, p, Subresource::kMain, "test")
        .status.code;
  }
  void show(std::ostream& os) const override {
    os << "patch " << kKind << "/" << ns << "/" << name << " replicas=" << replicas;
  }
};

struct DeleteObject : StoreCommand {
  std::string ns = any_namespace();
  std::string name = any_name();
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    auto it = out.next.objects.find({ns, name});
    if (it == out.next.objects.end()) {
      out.code = Code::kNotFound;
    } else if (it->second.deleting) {
      // Already being deleted: a no-op.
    } else if (it->second.finalizer) {
      it->second.deleting = true;
      ++it->second.generation;
      it->second.resource_version = ++out.next.resource_version;
    } else {
      out.next.objects.erase(it);
      ++out.next.resource_version;
    }
    return out;
  }
  Code execute(Sut& sut) const override {
    return sut.api.server_delete(ObjectRef{kKind, ns, name}, {}, "test").code;
  }
  void show(std::ostream& os) const override {
    os << "delete " << kKind << "/" << ns << "/" << name;
  }
};

struct RemoveFinalizer : StoreCommand {
  std::string ns = any_namespace();
  std::string name = any_name();
  Outcome simulate(const Model& m) const override {
    Outcome out{Code::kOk, m};
    auto it = out.next.objects.find({ns, name});
    if (it == out.next.objects.end()) {
      out.code = Code::kNotFound;
    } else if (!it->second.finalizer) {
      // Nothing to remove: not a write.
    } else if (it->second.deleting) {
      out.next.objects.erase(it);
      ++out.next.resource_version;
    } else {
      it->second.finalizer = false;
      it->second.resource_version = ++out.next.resource_version;
    }
    return out;
  }
  Code execute(Sut& sut) const override {
    MergePatch p;
    p.finalizers = std::vector<std::string>{};
    return sut.api.server_patch(ObjectRef{kKind, ns, name}, p, Subresource::kMain, "gc")
        .status.code;
  }
  void show(std::ostream& os) const override {
    os << "remove finalizer " << kKind << "/" << ns << "/" << name;
  }
};

RC_GTEST_PROP(StoreModel, ServerMatchesTheReferenceModel, ()) {
  Sut sut;
  rc::state::check(
      Model{}, sut,
      rc::state::gen::execOneOfWithArgs<CreateNamespace, DeleteNamespace, FinalizeNamespace,
                                        CreateObject, UpdateObject, UpdateStatus, PatchObject,
                                        DeleteObject, RemoveFinalizer>());
}

// The model test must be able to fail: a deliberately wrong model (stale updates succeed) is
// caught and shrunk to a short sequence.
struct WrongUpdate : UpdateObject {
  Outcome simulate(const Model& m) const override {
    UpdateObject fresh = *this;
    fresh.stale = false;
    return fresh.UpdateObject::simulate(m);
  }
};

TEST(StoreModel, AWrongModelIsCaughtAndShrunk) {
  const auto result = rc::detail::checkTestable([] {
    Sut sut;
    rc::state::check(
        Model{}, sut,
        rc::state::gen::execOneOfWithArgs<CreateNamespace, CreateObject, WrongUpdate>());
  });
  ASSERT_TRUE(result.template is<rc::detail::FailureResult>()) << "the wrong model was not caught";
  const auto& failure = result.template get<rc::detail::FailureResult>();
  std::string shown;
  for (const auto& [type, value] : failure.counterExample) shown += value + "\n";
  // Shrunk to the essentials: a namespace, an object, a stale update.
  int commands = 0;
  std::size_t line_start = 0;
  for (std::size_t at = 0; (at = shown.find('\n', at)) != std::string::npos; line_start = ++at) {
    if (at > line_start) ++commands;  // Non-empty line: one command.
  }
  EXPECT_NE(shown.find("create Namespace/"), std::string::npos) << shown;
  EXPECT_NE(shown.find("(stale resourceVersion)"), std::string::npos) << shown;
  // Not `shrinkPath` non-empty: with RapidCheck's random seed the first counterexample is
  // sometimes already minimal (a flaky assertion, seen in CI); the length below is the point.
  EXPECT_EQ(commands, 3) << shown;
  std::cout << "shrunk counterexample:\n" << shown;
}

}  // namespace
}  // namespace wsim::kube
