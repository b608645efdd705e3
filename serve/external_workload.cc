// The user workload of an external scenario for any kind (external_workload.h): the workload block
// checked and defaulted (at most kObjectsMax objects, weights up to kWeightMax; errors name the
// field), and each user's draw and action. Single-threaded, runs on the event loop.
#include "serve/external_workload.h"

#include <cctype>
#include <map>
#include <vector>

#include "serve/resources.h"
#include "sim/core/assert.h"

namespace wsim::serve {
namespace {

constexpr std::uint32_t kObjectsMax = 16;
constexpr std::uint32_t kBurstMax = 8;
constexpr std::uint32_t kWeightMax = 1000;
constexpr int kGoneWaitPolls = 300;  // recreate: 1 s polls until the object is gone (5 min).

std::string lower(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// {name} and {index} in `pattern`.
std::string fill(const std::string& pattern, const std::string& name, int index) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 6, "{name}") == 0) {
      out += name;
      i += 6;
    } else if (pattern.compare(i, 7, "{index}") == 0) {
      out += std::to_string(index);
      i += 7;
    } else {
      out += pattern[i++];
    }
  }
  return out;
}

bool all_weights_zero(const proto::ExternalWorkload& w) {
  return w.weight_idle() == 0 && w.weight_start() == 0 && w.weight_stop() == 0 &&
         w.weight_restart() == 0 && w.weight_terminate() == 0 && w.weight_burst() == 0;
}

bool check_weights(const proto::ExternalWorkload& w, std::string& error) {
  for (std::uint32_t weight : {w.weight_idle(), w.weight_start(), w.weight_stop(),
                               w.weight_restart(), w.weight_terminate(), w.weight_burst()}) {
    if (weight > kWeightMax) {
      error = "workload.weight_*: at most " + std::to_string(kWeightMax);
      return false;
    }
  }
  if (w.weight_start() == 0) {
    error = "workload.weight_start: 0 (the users would never create anything)";
    return false;
  }
  return true;
}

bool valid_name(const std::string& text) {
  if (text.empty() || text.size() > 40) return false;
  for (char c : text) {
    if (!std::islower(static_cast<unsigned char>(c)) &&
        !std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

void fill_defaults(proto::ExternalWorkload& w) {
  if (w.version().empty()) w.set_version("v1");
  if (w.plural().empty()) w.set_plural(lower(w.kind()) + "s");
  if (w.objects() == 0) w.set_objects(2);
  if (w.name_prefix().empty()) w.set_name_prefix(lower(w.kind()) + "-");
  if (w.burst_max() == 0) w.set_burst_max(3);
  if (w.restart().empty()) w.set_restart(w.stop_field().empty() ? "recreate" : "stop-start");
  if (all_weights_zero(w)) {
    w.set_weight_idle(1);
    w.set_weight_start(4);
    w.set_weight_stop(w.stop_field().empty() ? 0 : 2);
    w.set_weight_restart(1);
    w.set_weight_terminate(1);
    w.set_weight_burst(1);
  }
}

}  // namespace

bool ExternalWorkload::normalize_workload(proto::ExternalConfig& config, std::string& error) {
  WSIM_ASSERT(config.has_workload());
  proto::ExternalWorkload& w = *config.mutable_workload();
  if (w.kind().empty() || !std::isupper(static_cast<unsigned char>(w.kind()[0]))) {
    error = "workload.kind: a kind is required (e.g. \"Notebook\")";
    return false;
  }
  fill_defaults(w);
  if (w.objects() > kObjectsMax || w.burst_max() < 2 || w.burst_max() > kBurstMax) {
    error = "workload.objects (1..16) or workload.burst_max (2..8) out of range";
    return false;
  }
  if (!valid_name(w.name_prefix() + "0")) {
    error = "workload.name_prefix: '" + w.name_prefix() + "' makes no DNS-1123 name";
    return false;
  }
  if (!w.stop_field().empty() && (w.stop_field().rfind("spec.", 0) != 0 ||
                                  w.stop_field().size() <= 5 || w.stop_value().empty())) {
    error = "workload.stop_field: write it as spec.KEY, with a stop_value";
    return false;
  }
  if (w.restart() != "stop-start" && w.restart() != "recreate") {
    error = "workload.restart: \"stop-start\" or \"recreate\", not '" + w.restart() + "'";
    return false;
  }
  if (w.restart() == "stop-start" && w.stop_field().empty()) {
    error = "workload.restart: \"stop-start\" needs a stop_field";
    return false;
  }
  if (w.weight_stop() > 0 && w.stop_field().empty()) {
    error = "workload.weight_stop: the users cannot stop without a stop_field";
    return false;
  }
  if (!check_weights(w, error)) return false;
  return serve_kind(w, error);
}

bool ExternalWorkload::serve_kind(const proto::ExternalWorkload& workload, std::string& error) {
  if (find_by_kind(workload.kind()) != nullptr) return true;
  if (workload.group().empty()) {
    error = "workload.group: wsim does not serve kind " + workload.kind() +
            ": give its group (and version, plural) to serve it as a custom resource";
    return false;
  }
  Resource resource;
  resource.kind = workload.kind();
  resource.group = workload.group();
  resource.version = workload.version();
  resource.plural = workload.plural();
  resource.singular = lower(workload.kind());
  resource.custom = true;
  if (!register_custom(resource, error)) {
    error = "workload.group: " + error;
    return false;
  }
  WSIM_ASSERT(find_by_kind(workload.kind()) != nullptr);
  return true;
}

ExternalWorkload::ExternalWorkload(Sim& sim, kube::Cluster& cluster,
                                   const proto::ExternalConfig& config, const bool& healed)
    : sim_(sim), cluster_(cluster), config_(config), workload_(config.workload()), healed_(healed) {
  WSIM_ASSERT(config.has_workload());
  WSIM_ASSERT_GE(workload_.objects(), 1u);
  WSIM_ASSERT_GT(workload_.weight_start(), 0u);
}

kube::ObjectRef ExternalWorkload::ref(int index) const {
  WSIM_ASSERT_GE(index, 0);
  return kube::ObjectRef{workload_.kind(), config_.namespace_(),
                         workload_.name_prefix() + std::to_string(index)};
}

std::string ExternalWorkload::stop_key() const {
  WSIM_ASSERT(!workload_.stop_field().empty());
  return workload_.stop_field().substr(5);  // After "spec.".
}

kube::Object ExternalWorkload::object(int index) const {
  kube::Object out;
  const kube::ObjectRef at = ref(index);
  out.kind = at.kind;
  out.meta.namespace_ = at.namespace_;
  out.meta.name = at.name;
  // The proto maps are unordered: copy them into sorted maps first.
  const std::map<std::string, std::string> spec(workload_.spec().begin(), workload_.spec().end());
  const std::map<std::string, std::string> labels(workload_.labels().begin(),
                                                  workload_.labels().end());
  for (const auto& [key, value] : spec) out.spec[key] = fill(value, at.name, index);
  for (const auto& [key, value] : labels) out.meta.labels[key] = fill(value, at.name, index);
  WSIM_ASSERT_EQ(out.spec.size(), spec.size());
  return out;
}

ExternalWorkload::State ExternalWorkload::state_of(int index) const {
  const kube::Object* current = cluster_.api().peek(ref(index));
  if (current == nullptr) return State::kAbsent;
  if (current->meta.deletion_ms) return State::kDeleting;
  if (!workload_.stop_field().empty() &&
      current->spec.value_or_empty(stop_key()) == workload_.stop_value()) {
    return State::kStopped;
  }
  return State::kRunning;
}

ExternalWorkload::Action ExternalWorkload::draw(State state, bool burst_allowed,
                                                ChoiceStream& stream) const {
  if (state == State::kDeleting) return Action::kIdle;
  const bool present = state != State::kAbsent;
  const std::vector<std::pair<Action, std::uint32_t>> all = {
      {Action::kIdle, workload_.weight_idle()},
      {Action::kStart, state == State::kRunning ? 0 : workload_.weight_start()},
      {Action::kStop, state == State::kRunning ? workload_.weight_stop() : 0},
      {Action::kRestart, present ? workload_.weight_restart() : 0},
      {Action::kTerminate, present ? workload_.weight_terminate() : 0},
      {Action::kBurst, burst_allowed ? workload_.weight_burst() : 0}};
  std::uint64_t total = 0;
  for (const auto& [action, weight] : all) total += weight;
  if (total == 0) return Action::kIdle;
  std::uint64_t pick = stream.below(total);
  for (const auto& [action, weight] : all) {
    if (pick < weight) return action;
    pick -= weight;
  }
  WSIM_ASSERT_MSG(false, "weighted draw out of range");
  return Action::kIdle;
}

Task<void> ExternalWorkload::start_object(int index, kube::Client& client) {
  const State state = state_of(index);
  if (state == State::kAbsent) {
    kube::Object created = object(index);
    co_await client.create(std::move(created));
  } else if (state == State::kStopped) {
    kube::MergePatch patch;
    const auto& spec = workload_.spec();
    const auto it = spec.find(stop_key());
    patch.spec[stop_key()] =
        it == spec.end() ? std::nullopt : std::optional<std::string>(it->second);
    co_await client.patch(ref(index), std::move(patch));
  }
}

Task<void> ExternalWorkload::stop_object(int index, kube::Client& client) {
  if (state_of(index) != State::kRunning) co_return;
  kube::MergePatch patch;
  patch.spec[stop_key()] = workload_.stop_value();
  co_await client.patch(ref(index), std::move(patch));
}

Task<void> ExternalWorkload::recreate(int index, kube::Client& client) {
  if (state_of(index) == State::kAbsent) co_return;
  co_await client.remove(ref(index));
  for (int poll = 0; poll < kGoneWaitPolls && !healed_; ++poll) {
    if (state_of(index) == State::kAbsent) break;
    co_await sim_.loop().sleep(kSecondMs);
  }
  if (!healed_ && state_of(index) == State::kAbsent) co_await start_object(index, client);
}

Task<void> ExternalWorkload::act(Action action, int index, kube::Client& client,
                                 ChoiceStream& stream) {
  switch (action) {
    case Action::kIdle:
    case Action::kBurst:  // A burst is its actions (user()).
      break;
    case Action::kStart:
      co_await start_object(index, client);
      break;
    case Action::kStop:
      co_await stop_object(index, client);
      break;
    case Action::kRestart:
      if (workload_.restart() == "recreate") {
        co_await recreate(index, client);
        break;
      }
      co_await stop_object(index, client);
      co_await sim_.loop().sleep(stream.range(0, config_.think_min_ms()));
      if (!healed_) co_await start_object(index, client);
      break;
    case Action::kTerminate:
      if (state_of(index) != State::kAbsent) co_await client.remove(ref(index));
      break;
  }
}

// A user: thinks, draws an action, does it; until heal.
Task<void> ExternalWorkload::user(int index) {
  const std::string name = ref(index).name;
  kube::Client client = cluster_.client("user/" + name);
  ChoiceStream stream = sim_.stream("external.workload-" + std::to_string(index));
  while (!healed_) {
    co_await sim_.loop().sleep(stream.range(config_.think_min_ms(), config_.think_max_ms()));
    if (healed_) break;
    const Action action = draw(state_of(index), true, stream);
    if (action != Action::kBurst) {
      co_await act(action, index, client, stream);
      continue;
    }
    const std::int64_t count = stream.range(2, workload_.burst_max());
    for (std::int64_t i = 0; i < count && !healed_; ++i) {
      co_await act(draw(state_of(index), false, stream), index, client, stream);
    }
  }
}

void ExternalWorkload::start() {
  for (std::uint32_t i = 0; i < workload_.objects(); ++i) {
    const int index = static_cast<int>(i);
    sim_.loop().spawn("user/" + ref(index).name, user(index));
  }
}

bool ExternalWorkload::perform(const std::string& action, const std::string& name,
                               std::string& error) {
  int index = -1;
  for (std::uint32_t i = 0; i < workload_.objects(); ++i) {
    if (ref(static_cast<int>(i)).name == name) index = static_cast<int>(i);
  }
  if (index < 0) {
    error = "no object '" + name + "' in the workload (" + workload_.name_prefix() + "0.." +
            std::to_string(workload_.objects() - 1) + ")";
    return false;
  }
  const State state = state_of(index);
  kube::ApiServer& api = cluster_.api();
  const bool stops = !workload_.stop_field().empty();
  if (action == "terminate" || (action == "restart" && !stops)) {
    if (state != State::kAbsent) cluster_.remove(ref(index));
    if (action == "terminate" || state_of(index) != State::kAbsent) return true;
  }
  if ((action == "stop" || action == "restart") && stops && state == State::kRunning) {
    kube::MergePatch patch;
    patch.spec[stop_key()] = workload_.stop_value();
    (void)api.server_patch(ref(index), patch, kube::Subresource::kMain, "user");
  }
  if (action == "start" || action == "restart") {
    if (state_of(index) == State::kAbsent) {
      cluster_.create(object(index));
    } else if (state_of(index) == State::kStopped) {
      kube::MergePatch patch;
      const auto it = workload_.spec().find(stop_key());
      patch.spec[stop_key()] =
          it == workload_.spec().end() ? std::nullopt : std::optional<std::string>(it->second);
      (void)api.server_patch(ref(index), patch, kube::Subresource::kMain, "user");
    }
    return true;
  }
  if (action == "stop" && stops) return true;
  error = "unknown workload action '" + action +
          "' (user start|stop|restart|terminate NAME; stop needs a stop_field)";
  return false;
}

}  // namespace wsim::serve
