// mk1's PLIS and disposal annotations: key=value lines (model/gitpod/mk1/annotations.h).
#include "model/gitpod/mk1/annotations.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "model/gitpod/names.h"

namespace wsim::gitpod::mk1 {
namespace {

// The parse read_plis used before docs/performance.md §13.1 (a stream of lines into a map): the
// reference the view-based parse must agree with.
std::map<std::string, std::string> reference_lines(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

std::string field(const std::map<std::string, std::string>& lines, const std::string& key) {
  auto it = lines.find(key);
  return it == lines.end() ? std::string() : it->second;
}

kube::Object config_map(const std::string& text) {
  kube::Object cm;
  cm.kind = "ConfigMap";
  cm.meta.name = "plis-w1";
  cm.meta.annotations[kAnnPlis] = text;
  return cm;
}

TEST(Mk1Annotations, PlisRoundTrips) {
  Plis plis;
  plis.final_backup_complete = true;
  plis.final_backup_failure = "upload failed: a reason longer than the small-string buffer";
  plis.stopping_since_ms = 123456;
  plis.last_pod_phase = "Running";
  plis.last_pod_ever_ready = true;
  plis.host_ip = "node-2";
  const std::optional<Plis> read = read_plis(config_map(encode_plis(plis)));
  ASSERT_TRUE(read.has_value());
  EXPECT_TRUE(read->final_backup_complete);
  EXPECT_EQ(read->final_backup_failure, plis.final_backup_failure);
  EXPECT_EQ(read->stopping_since_ms, std::optional<TimeMs>(123456));
  EXPECT_EQ(read->last_pod_phase, "Running");
  EXPECT_TRUE(read->last_pod_ever_ready);
  EXPECT_FALSE(read->last_pod_deployed);
  EXPECT_EQ(read->host_ip, "node-2");
  kube::Object unannotated;  // A ConfigMap without the PLIS annotation.
  unannotated.kind = "ConfigMap";
  EXPECT_FALSE(read_plis(unannotated).has_value());
}

// Odd texts read like the stream-and-map parse: a repeated key keeps its last value, lines
// without '=' are skipped, '=' inside a value stays, no trailing newline, empty lines, '\r'.
TEST(Mk1Annotations, PlisReadsLikeAMapOfItsLines) {
  for (const std::string text : {
           std::string(""),
           std::string("\n\n"),
           std::string("lastPodPhase=Pending\nlastPodPhase=Running\n"),
           std::string("garbage\nhostIP=a=b\n=empty-key\nlastPodPhase"),
           std::string("finalBackupComplete=true"),
           std::string("finalBackupComplete=true\r\nhostIP=n1\r\n"),
           std::string("stoppingSinceMs=\nlastPodEverReady=true\n\nlastPodDeployed=true"),
           std::string("stoppingSinceMs=42\nstoppingSinceMs=43\n"),
       }) {
    const std::map<std::string, std::string> lines = reference_lines(text);
    const std::optional<Plis> plis = read_plis(config_map(text));
    ASSERT_TRUE(plis.has_value()) << text;
    EXPECT_EQ(plis->final_backup_complete, field(lines, "finalBackupComplete") == "true") << text;
    EXPECT_EQ(plis->final_backup_failure, field(lines, "finalBackupFailure")) << text;
    const std::string since = field(lines, "stoppingSinceMs");
    EXPECT_EQ(plis->stopping_since_ms.has_value(), !since.empty()) << text;
    if (!since.empty()) EXPECT_EQ(std::to_string(*plis->stopping_since_ms), since) << text;
    EXPECT_EQ(plis->last_pod_phase, field(lines, "lastPodPhase")) << text;
    EXPECT_EQ(plis->last_pod_ever_ready, field(lines, "lastPodEverReady") == "true") << text;
    EXPECT_EQ(plis->last_pod_deployed, field(lines, "lastPodDeployed") == "true") << text;
    EXPECT_EQ(plis->host_ip, field(lines, "hostIP")) << text;
  }
  EXPECT_FALSE(read_plis(config_map("stoppingSinceMs=12x\n")).has_value());  // Not a number.
}

TEST(Mk1Annotations, DisposalReadsLikeAMapOfItsLines) {
  kube::Object pod;
  pod.kind = "Pod";
  EXPECT_EQ(read_disposal(pod).status, "");
  pod.meta.annotations[kAnnDisposalStatus] = "status=started\nbackupFailure=x\nstatus=finished";
  const DisposalStatus disposal = read_disposal(pod);
  EXPECT_EQ(disposal.status, "finished");
  EXPECT_EQ(disposal.backup_failure, "x");
  DisposalStatus written;
  written.status = "finished";
  pod.meta.annotations[kAnnDisposalStatus] = encode_disposal(written);
  EXPECT_EQ(read_disposal(pod).status, "finished");
  EXPECT_EQ(read_disposal(pod).backup_failure, "");
}

}  // namespace
}  // namespace wsim::gitpod::mk1
