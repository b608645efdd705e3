// Upstream: see annotations.h.
#include "model/gitpod/mk1/annotations.h"

#include <charconv>
#include <string_view>
#include <utility>
#include <vector>

#include "model/gitpod/names.h"
#include "sim/core/assert.h"

namespace wsim::gitpod::mk1 {
namespace {

// The key=value lines of `text` (split on '\n' like std::getline; a line without '=' is
// skipped), as views into `text`: no stream and no map per read (a PLIS annotation is read on
// every ConfigMap event and by the checker, docs/performance.md §13.1).
using Lines = std::vector<std::pair<std::string_view, std::string_view>>;

Lines parse_lines(std::string_view text) {
  Lines out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  return out;
}

// The value of the last line with `key` (what a map filled line by line would hold), "" if none.
std::string_view get(const Lines& fields, std::string_view key) {
  WSIM_ASSERT(!key.empty());
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) {
    if (it->first == key) return it->second;
  }
  return {};
}

void put(std::string& out, const char* key, const std::string& value) {
  WSIM_ASSERT(value.find('\n') == std::string::npos);
  out += key;
  out += '=';
  out += value;
  out += '\n';
}

}  // namespace

std::string encode_plis(const Plis& plis) {
  if (plis.stopping_since_ms) WSIM_ASSERT_GE(*plis.stopping_since_ms, 0);  // Virtual time.
  std::string out;
  put(out, "finalBackupComplete", plis.final_backup_complete ? "true" : "false");
  put(out, "finalBackupFailure", plis.final_backup_failure);
  put(out, "stoppingSinceMs",
      plis.stopping_since_ms.has_value() ? std::to_string(*plis.stopping_since_ms) : "");
  put(out, "lastPodPhase", plis.last_pod_phase);
  put(out, "lastPodEverReady", plis.last_pod_ever_ready ? "true" : "false");
  put(out, "lastPodDeployed", plis.last_pod_deployed ? "true" : "false");
  put(out, "hostIP", plis.host_ip);
  return out;
}

std::optional<Plis> read_plis(const kube::Object& config_map) {
  WSIM_ASSERT_EQ(config_map.kind, std::string("ConfigMap"));  // A PLIS is a ConfigMap.
  auto it = config_map.meta.annotations.find(kAnnPlis);
  if (it == config_map.meta.annotations.end()) return std::nullopt;
  const Lines fields = parse_lines(it->second);
  Plis plis;
  plis.final_backup_complete = get(fields, "finalBackupComplete") == "true";
  plis.final_backup_failure = get(fields, "finalBackupFailure");
  const std::string_view since = get(fields, "stoppingSinceMs");
  if (!since.empty()) {
    TimeMs value = 0;
    auto [ptr, error] = std::from_chars(since.data(), since.data() + since.size(), value);
    if (error != std::errc() || ptr != since.data() + since.size()) return std::nullopt;
    plis.stopping_since_ms = value;
    WSIM_ASSERT_GE(value, 0);  // Pairs with encode_plis: only ws-manager writes the PLIS.
  }
  plis.last_pod_phase = get(fields, "lastPodPhase");
  plis.last_pod_ever_ready = get(fields, "lastPodEverReady") == "true";
  plis.last_pod_deployed = get(fields, "lastPodDeployed") == "true";
  plis.host_ip = get(fields, "hostIP");
  return plis;
}

std::string encode_disposal(const DisposalStatus& disposal) {
  WSIM_ASSERT_MSG(disposal.status == "started" || disposal.status == "retrying" ||
                      disposal.status == "finished",
                  "disposal status " << disposal.status);
  // Only a finished disposal carries its backup failure (finalize_pod, handle_pod).
  if (!disposal.backup_failure.empty()) WSIM_ASSERT_EQ(disposal.status, std::string("finished"));
  std::string out;
  put(out, "status", disposal.status);
  put(out, "backupFailure", disposal.backup_failure);
  return out;
}

DisposalStatus read_disposal(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  DisposalStatus out;
  auto it = pod.meta.annotations.find(kAnnDisposalStatus);
  if (it == pod.meta.annotations.end()) return out;
  const Lines fields = parse_lines(it->second);
  out.status = get(fields, "status");
  out.backup_failure = get(fields, "backupFailure");
  return out;
}

}  // namespace wsim::gitpod::mk1
