#include "sim/run/bundle.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/run/duration.h"
#include "sim/run/report.h"
#include "sim/run/timeline_html.h"

namespace wsim::run {

namespace fs = std::filesystem;

namespace {

std::string sanitize(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  return out.substr(0, 120);
}

// Writes `bytes` to `path` and fsyncs it, so the rename that publishes the bundle never exposes
// a file whose content is still only in the page cache.
bool write_file(const fs::path& path, std::string_view bytes, std::string& error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = path.string() + ": cannot create: " + std::strerror(errno);
    return false;
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = path.string() + ": write failed: " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    error = path.string() + ": cannot flush: " + std::strerror(errno);
    return false;
  }
  return true;
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// The value of a top-level string member `"key": "value"` of a JSON object we wrote ourselves
// (verdict.json). Inside a JSON string every quote is escaped, so `"key":` cannot match there.
bool json_member(std::string_view json, std::string_view key, std::string& value) {
  const std::string needle = "\"" + std::string(key) + "\"";
  for (std::size_t at = json.find(needle); at != std::string_view::npos;
       at = json.find(needle, at + 1)) {
    std::size_t i = at + needle.size();
    while (i < json.size() && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n')) ++i;
    if (i >= json.size() || json[i] != ':') continue;
    ++i;
    while (i < json.size() && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n')) ++i;
    if (i >= json.size() || json[i] != '"') return false;
    ++i;
    std::string out;
    while (i < json.size() && json[i] != '"') {
      if (json[i] == '\\') {
        if (i + 1 >= json.size()) return false;
        ++i;  // Escapes other than \" and \\ do not occur in the members read back.
      }
      out += json[i++];
      if (out.size() > 4096) return false;
    }
    if (i >= json.size()) return false;
    value = std::move(out);
    return true;
  }
  return false;
}

}  // namespace

std::string bundle_name(const System& system, const proto::Scenario& scenario,
                        const RunResult& result) {
  std::string name = system.name();
  const std::string versions = version_tag(scenario, system);
  if (!versions.empty()) name += "-" + versions;
  name += "-s" + std::to_string(result.seed) + "-";
  name +=
      result.violation ? result.violation->invariant_id : std::string(verdict_name(result.verdict));
  return sanitize(name);
}

bool write_bundle(const std::string& out_dir, const System& system, const proto::Scenario& scenario,
                  const RunResult& result, std::string& path, std::string& error) {
  std::error_code ec;
  const fs::path out(out_dir.empty() ? "." : out_dir);
  fs::create_directories(out, ec);
  if (ec) {
    error = out.string() + ": cannot create the output directory: " + ec.message();
    return false;
  }
  const std::string name = bundle_name(system, scenario, result);
  const fs::path final_dir = out / name;
  const fs::path tmp_dir = out / (".tmp-" + name);
  const fs::path old_dir = out / (".old-" + name);
  fs::remove_all(tmp_dir, ec);  // A stale one from an interrupted write.
  if (!fs::create_directory(tmp_dir, ec) || ec) {
    error = tmp_dir.string() + ": cannot create: " + (ec ? ec.message() : "exists");
    return false;
  }

  std::string scenario_text = "# wsim failure bundle: " + std::string(verdict_name(result.verdict));
  if (result.violation) scenario_text += " " + result.violation->invariant_id;
  scenario_text += ", seed " + std::to_string(result.seed) + "\n";
  scenario_text += "# replay exactly (choices.bin): scripts/wsim replay " + final_dir.string() +
                   "\n# run from the seed:            scripts/wsim run --scenario " +
                   (final_dir / "scenario.textproto").string() + "\n";
  scenario_text += scenario_to_text(scenario);

  const std::pair<const char*, std::string> files[] = {
      {"scenario.textproto", std::move(scenario_text)},
      {"choices.bin", encode_choice_record(result.record)},
      {"trace.jsonl", render_trace_jsonl(result)},
      {"trace.txt", render_trace_text(system, scenario, result)},
      {"verdict.json", render_verdict_json(system, scenario, result)},
      {"timeline.html", render_timeline_html(system, scenario, result)},
  };
  for (const auto& [file, bytes] : files) {
    if (!write_file(tmp_dir / file, bytes, error)) {
      fs::remove_all(tmp_dir, ec);
      return false;
    }
  }
  sync_directory(tmp_dir);

  // Publish: move an existing bundle of the same name aside, rename, then drop the old one.
  fs::remove_all(old_dir, ec);
  const bool had_old = fs::exists(final_dir, ec);
  if (had_old && ::rename(final_dir.c_str(), old_dir.c_str()) != 0) {
    error = final_dir.string() + ": cannot replace the existing bundle: " + std::strerror(errno);
    fs::remove_all(tmp_dir, ec);
    return false;
  }
  if (::rename(tmp_dir.c_str(), final_dir.c_str()) != 0) {
    error = final_dir.string() + ": cannot publish the bundle: " + std::strerror(errno);
    if (had_old) ::rename(old_dir.c_str(), final_dir.c_str());
    fs::remove_all(tmp_dir, ec);
    return false;
  }
  sync_directory(out);
  if (had_old) fs::remove_all(old_dir, ec);
  path = final_dir.string();
  return true;
}

bool read_bundle(const std::string& dir, Bundle& bundle, std::string& error) {
  bundle = Bundle{};
  bundle.dir = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    error = dir + ": not a bundle directory";
    return false;
  }
  const fs::path root(dir);
  if (!load_scenario_file((root / "scenario.textproto").string(), bundle.scenario, error)) {
    return false;
  }
  std::string bytes;
  const std::string choices_path = (root / "choices.bin").string();
  if (!read_file_capped(choices_path, kChoicesBytesMax, bytes, error)) return false;
  std::string problem;
  if (!decode_choice_record(bytes, bundle.record, problem)) {
    error = choices_path + ": " + problem;
    return false;
  }
  std::string json;
  const std::string verdict_path = (root / "verdict.json").string();
  if (!read_file_capped(verdict_path, kVerdictBytesMax, json, error)) return false;
  std::string fingerprint;
  std::string trace_hash;
  if (!json_member(json, "fingerprint", fingerprint) ||
      !json_member(json, "trace_hash", trace_hash) ||
      !parse_hash(fingerprint, bundle.fingerprint) || !parse_hash(trace_hash, bundle.trace_hash)) {
    error = verdict_path + ": field fingerprint/trace_hash: missing or not a 0x-prefixed " +
            "16-digit hash";
    return false;
  }
  bundle.has_hashes = true;
  json_member(json, "verdict", bundle.verdict);
  json_member(json, "invariant", bundle.invariant);
  return true;
}

}  // namespace wsim::run
